import { foldForIntent } from '../intent/classifier.ts';

/**
 * A question for a time or a date ("What time is breakfast?", "When does the diving exhibition
 * end?"): its answer states one ("from 8am to 9:30am", "Until 31 May."). Like a price or a duration
 * (price-question.ts, duration-question.ts), the kind of answer asked for means the same on every
 * site. "When I run mode2…" asks for no time: the visitor's own "when" clause is not the question.
 * English, Spanish, French, German and Portuguese (the lead classifier's languages), accents folded.
 */
const ASKS_FOR_TIME =
  /\bwhat time\b|\bwhen (?:is|are|does|do|can|will|did)\b(?! (?:i|my|we|our)\b)|\buntil when\b|\bhow late\b|\ba que horas?\b|\bcuando (?:es|abre|abren|cierra|cierran|empieza|termina)\b|\ba quelle heure\b|\bquand (?:est|ouvre|ouvrez|ferme|fermez|commence|finit)\b|\bum wie ?viel uhr\b|\bwann (?:ist|offnet|offnen|schliesst|schliessen|beginnt|endet)\b|\bquando (?:e|abre|fecha|comeca|termina)\b/;

const MONTHS =
  'jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?';
/** A clock time ("8am", "9:30", "6.30 pm", "noon") or a day of a month ("31 May", "June 14th"). */
const STATES_TIME = new RegExp(
  String.raw`\b\d{1,2}(?:[:.]\d{2})?\s?(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d{2}\b|\b(?:noon|midday|midnight)\b|\b\d{1,2}(?:st|nd|rd|th)?\s(?:${MONTHS})\b|\b(?:${MONTHS})\s\d{1,2}(?:st|nd|rd|th)?\b`,
  'i',
);

export function asksForTime(message: string): boolean {
  return ASKS_FOR_TIME.test(foldForIntent(message));
}

export function statesTime(text: string): boolean {
  return STATES_TIME.test(text);
}
