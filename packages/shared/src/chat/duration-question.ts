import { foldForIntent } from '../intent/classifier.ts';

/**
 * A question for how long something takes or lasts ("how long is a lesson?", "how long will my order
 * take to arrive?"): its answer states a duration ("50 minutes", "2–3 working days"). Like a price
 * (price-question.ts), the kind of answer a question asks for is evidence that means the same on every
 * site: the page and the sentence that state one answer it, the ones that only name the thing do not.
 * English, Spanish, French, German and Portuguese (the lead classifier's languages), accents folded.
 */
const ASKS_FOR_DURATION =
  /\bhow long\b|\bhow many (?:minutes|hours|days|weeks|months|years|nights)\b|\bcuanto (?:tiempo|tarda|tardan|dura|duran)\b|\bcombien de temps\b|\bwie lange?\b|\bquanto tempo\b|\bquanto (?:demora|dura)\b/;

const UNITS =
  'min|mins|minutes?|hours?|hrs?|days?|weeks?|months?|years?|nights?|minutos?|horas?|d[ií]as|semanas?|mes(?:es)?|a[ñn]os?|heures?|jours?|semaines?|mois|ans?|minuten|stunden?|tagen?|wochen?|monaten?|jahren?|dias';
const NUMBER = String.raw`(?:\d+(?:[.,]\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|thirty|forty|fifty|sixty|a few|several)`;
const STATES_DURATION = new RegExp(
  String.raw`\b${NUMBER}(?:\s?(?:–|-|to|or)\s?${NUMBER})?[\s-]?(?:working |business |full |calendar )?(?:${UNITS})\b`,
  'i',
);

export function asksForDuration(message: string): boolean {
  return ASKS_FOR_DURATION.test(foldForIntent(message));
}

export function statesDuration(text: string): boolean {
  return STATES_DURATION.test(text);
}
