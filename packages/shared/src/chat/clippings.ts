import { analyze } from '../providers/text/text-analysis.ts';

/**
 * Words people clip and pages write whole, or the other way round: "can I take *photos*?" of a page
 * that says "photographs", "*info*" of "information", "*bike*" of "bicycle", "*xmas*" of "Christmas".
 * English only, as the stemmer is; a clipping with a common other meaning ("sat", "temp", "ad", "hr")
 * is left out, and so are the clippings of technical writing ("app", "db", "repo", "config"): a
 * documentation site uses both forms, often for two things (Django's "app" and "application"). Each
 * form is searched for the other as a context word (half weight: searched-query.ts), and a clipped
 * word the site lacks is not absent when the other form is on its pages (ranking.ts absentShare).
 */
const PAIRS: [string, string][] = [
  ['photo', 'photograph'],
  ['pic', 'picture'],
  ['info', 'information'],
  ['exam', 'examination'],
  ['lab', 'laboratory'],
  ['vet', 'veterinary'],
  ['fridge', 'refrigerator'],
  ['phone', 'telephone'],
  ['bike', 'bicycle'],
  ['uni', 'university'],
  ['demo', 'demonstration'],
  ['maths', 'mathematics'],
  ['gym', 'gymnasium'],
  ['tv', 'television'],
  ['xmas', 'christmas'],
];

/** Abbreviations typed in a hurry, which pages write in full: searched one way only. */
const ABBREVIATIONS: [string, string][] = [
  ['appt', 'appointment'],
  ['dept', 'department'],
  ['approx', 'approximately'],
  ['mins', 'minutes'],
  ['wk', 'week'],
  ['yr', 'year'],
];

/** Each word (and its plural) → the other form's words. */
const OTHER = new Map<string, string>();
for (const [word, other] of [...PAIRS, ...PAIRS.map(([short, long]): [string, string] => [long, short]), ...ABBREVIATIONS]) {
  OTHER.set(word, other);
  if (!word.endsWith('s')) OTHER.set(`${word}s`, other);
}
const WORD = new RegExp(`\\b(?:${[...OTHER.keys()].sort((a, b) => b.length - a.length).join('|')})\\b`, 'g');

/** The other forms of the clipped or whole words in the text (lower-cased, accents folded), as words to search. */
export function otherForms(folded: string): string[] {
  return [...new Set((folded.match(WORD) ?? []).map((w) => OTHER.get(w) as string))];
}

/** Stem → the stems of its other form ("photo" → ["photograph"]), for the absent-words rule. */
const OTHER_STEMS = new Map<string, string[]>();
for (const [word, other] of OTHER) {
  const stem = analyze(word)[0]?.stem;
  if (stem === undefined) continue;
  OTHER_STEMS.set(stem, [...new Set([...(OTHER_STEMS.get(stem) ?? []), ...analyze(other).map((t) => t.stem)])]);
}

export function otherFormStems(stem: string): readonly string[] {
  return OTHER_STEMS.get(stem) ?? [];
}

/**
 * Phrasal verbs whose noun pages write as one word: "how do I *back up* my database" of a page titled
 * "Backup and Restore", "*set up*" of "setup", "*log in*" of "login", "*roll back*" of "rollback". The
 * verb in any form ("backing up", "logged in"); the one word is searched as a context word.
 */
const PHRASAL: [string, string, string][] = [
  ['back', 'up', 'backup'],
  ['set', 'up', 'setup'],
  ['log', 'in', 'login'],
  ['log', 'out', 'logout'],
  ['sign', 'up', 'signup'],
  ['shut', 'down', 'shutdown'],
  ['start', 'up', 'startup'],
  ['clean', 'up', 'cleanup'],
  ['look', 'up', 'lookup'],
  ['roll', 'back', 'rollback'],
  ['check', 'out', 'checkout'],
  ['plug', 'in', 'plugin'],
  ['work', 'around', 'workaround'],
  ['pick', 'up', 'pickup'],
  ['fall', 'back', 'fallback'],
];
const PHRASAL_RE = PHRASAL.map(([verb, particle, noun]): [RegExp, string] => [
  new RegExp(`\\b${verb}(?:s|ed|ing|${verb.at(-1)}ed|${verb.at(-1)}ing)?\\s+${particle}\\b`),
  noun,
]);

/** The one-word nouns of the phrasal verbs in the text (lower-cased, accents folded). */
export function phrasalNouns(folded: string): string[] {
  return PHRASAL_RE.filter(([re]) => re.test(folded)).map(([, noun]) => noun);
}
