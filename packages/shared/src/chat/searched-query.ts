import { foldForIntent } from '../intent/classifier.ts';
import { otherForms, phrasalWords } from './clippings.ts';
import { asksForContact, contactSearchWords } from './contact-question.ts';
import { statedQuestion } from './stated-questions.ts';

/**
 * Days a visitor names and the word pages use for them together: "open on Saturday?" is answered by
 * "We are closed at weekends", "on a Monday" by what is said of weekdays — and the days a weekend or a
 * weekday is, for a page that lists them one by one. In the classifier's languages, accents folded
 * (Portuguese weekdays are ordinals, "segunda": left out), in single words: "fin de semana" searched
 * "semana", a week, and a salon's "una semana antes" came along.
 */
const DAY_GROUPS: [RegExp, string][] = [
  [/\b(?:saturdays?|sundays?|sabados?|domingos?|samedis?|dimanches?|samstags?|sonntags?)\b/, 'weekend weekends wochenende'],
  [
    /\b(?:mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|lunes|martes|miercoles|jueves|viernes|lundis?|mardis?|mercredis?|jeudis?|vendredis?|montags?|dienstags?|mittwochs?|donnerstags?|freitags?)\b/,
    'weekday weekdays laborables semaine werktags wochentags',
  ],
  // …and the other way: "open at weekends?" of a page that lists "Saturday: 8am–4pm".
  [
    /\b(?:weekends?|fin de semana|week-?ends?|wochenende|fim de semana)\b/,
    'saturday sunday sabado domingo samedi dimanche samstag sonntag',
  ],
  [
    /\b(?:weekdays?|entre semana|en semaine|werktags|wochentags|dias uteis)\b/,
    'monday tuesday wednesday thursday friday lunes viernes lundi vendredi montag freitag',
  ],
];

/**
 * "How long", "how often", "how far"… ask for a measure: the adjective is the question, not its
 * topic. Left in, "long" is a word a small site may never use, and "How long is the warranty?" was
 * declined as asking about something the site lacks.
 */
const HOW_MEASURE = /\bhow\s+(long|often|far|soon|old|big|large|fast|late|early)\b/gi;
/**
 * And the verb a duration is asked with: "How long does delivery *take*?", "how long will the battery
 * *last*?" ask about delivery and the battery; a returns page's "you can *take* it back" is not about
 * either.
 */
const HOW_LONG_VERB = /\s*\b(?:take|takes|took|taking|last|lasts)\b/gi;
export function withoutMeasureWords(text: string): string {
  const out = text.replace(HOW_MEASURE, 'how').replace(HOLIDAY_NAME, '$1');
  return /\bhow\s+long\b/i.test(text) ? out.replace(HOW_LONG_VERB, '') : out;
}

/**
 * A holiday named by its kind ("*bank* holiday", "*public* holidays"): the kind is no thing asked about.
 * Left in, "Are you open on bank holidays?" was answered by a software company's "pay by bank transfer".
 * (The holiday is a day the visitor names, as "Saturday": ranking.ts WHEN_STEMS.)
 */
const HOLIDAY_NAME = /\b(?:bank|public|national|federal)\s+(holidays?)\b/gi;

/**
 * What is searched for a question (and weighed in the quote): the visitor's words without a measure's
 * adjective, and as context words (half weight, never absent; the visitor's own words stay the focus)
 * the words pages use for what some questions ask in other words — a contact page's words for a question
 * for the business's contact details ("where are you located"), a delivery page's for one whether it
 * delivers (stated-questions.ts), "weekend" for a Saturday, "photograph" for "photo" (clippings.ts).
 */
export function searchedQuery(query: string, focus?: string): { query: string; focus?: string } {
  const own = focus ?? query;
  const folded = foldForIntent(own);
  const contact = asksForContact(own);
  const context = [
    ...(contact ? [contactSearchWords(contact)] : []),
    ...(statedQuestion(own)?.searchWords ?? []),
    ...DAY_GROUPS.filter(([day]) => day.test(folded)).map(([, words]) => words),
    ...otherForms(folded),
    ...phrasalWords(folded),
  ];
  query = withoutMeasureWords(query);
  if (context.length === 0) return focus === undefined ? { query } : { query, focus: withoutMeasureWords(focus) };
  return { query: `${context.join(' ')} ${query}`, focus: withoutMeasureWords(own) };
}
