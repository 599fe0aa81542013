import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { boundedMemo } from '../memo.ts';
import { analyze, missesOneLetter } from '../providers/text/text-analysis.ts';

/**
 * Which curated answer, if any, a visitor's question asks for (docs/operators.md "Curated answers").
 *
 * Matching is by meaning as far as words carry it, never by string equality: both questions go
 * through the retrieval's analyser (words, stop words, Porter stems), and a word meets another when
 * they are one, when WordNet relates them (synonyms, a hypernym, derived forms of each word's
 * commonest senses: "rate" is a "price", "reservation" a "booking", "call off" is "cancel"), when a
 * few families of intent words say they ask the same ("carry" is "sell"), or when the visitor's word
 * is a curated one typed with a letter left out ("brekfast"). Two coverages decide:
 *
 * - asked: how much of the curated question the visitor's question holds (weighted, ≥ ASKED);
 * - covered: how much of the visitor's question the curated question and answer hold (≥ COVERED).
 *   A near-miss adds a thing the curated answer says nothing about ("skateboard *wheels*",
 *   "*repair* skateboards"): covered drops and the question goes to retrieval like any other.
 * - Or stated: a question of at least two things (topic words; an intent word is half of one) that
 *   the curated answer holds every one of, as the visitor puts them ("is there *internet* in the
 *   *rooms*" of "Free wireless internet in all rooms"), asks for it however its question is worded.
 *   One thing alone may be anywhere in an answer, and one of them must be what the answer is about
 *   (a word of its question or of its first words); the answer's words count only as they are.
 *
 * Words of intent ("sell", "open") weigh half a topic word: they say what is asked about a thing,
 * the thing says which answer. The thresholds are set from the definition (at least half of the
 * curated question asked; at most a quarter of the visitor's words unanswered; two things), not fitted;
 * test/chat/curated-answers.test.ts and curated.test.ts hold paraphrases and near-misses,
 * bench/curated-eval.ts scores them.
 */

export const ASKED = 0.5;
export const COVERED = 0.75;
const INTENT_WEIGHT = 0.5;
/** How many things (topic words' weight) a question names for the answer alone to match it. */
const STATED_THINGS = 2;
/** The answer's first topic words, what it is about: one of the question's things must be among them or in its question. */
const LEAD_WORDS = 3;

/**
 * Families of words that ask the same thing (stems), where WordNet's commonest senses do not relate
 * them: a shop "carries" what it sells, "close" and "time" ask for the hours, "money back" is a
 * refund. The first is the family's name; its words are intent words.
 */
const FAMILIES: string[][] = [
  ['sell', 'carri', 'stock', 'offer', 'bui', 'purchas', 'have', 'provid', 'suppli', 'avail'],
  ['refund', 'return', 'monei', 'back', 'reimburs', 'exchang'],
  ['open', 'hour', 'close', 'time'],
  // What a thing costs: "what do you charge", "membership fees?", "price of…" ask the same of it.
  ['price', 'cost', 'charg', 'fee'],
  // "Do you take cards?" is "which payment methods do you accept?".
  ['accept', 'take'],
  // What is done to a thing brought in: "can you fix my boiler" asks "do you service boilers?" — the
  // service asked for, a topic word (TOPIC_FAMILIES), not an intent word.
  ['repair', 'fix', 'servic', 'mend'],
  // "Are dogs allowed?", "is my puppy welcome?", "are fires permitted?" ask the same of them.
  ['allow', 'permit', 'welcom'],
];
/**
 * Families that say what is done with a thing: a question doing one with it is not the curated
 * question doing another ("Do you *sell* electric bikes?" of "Do you *repair* electric bikes?").
 */
const DEALINGS = new Set(['sell', 'repair']);
/** Families whose words weigh as topic words. */
const TOPIC_FAMILIES = new Set(['repair']);
const weightOf = (stem: string) => {
  const family = FAMILY_OF.get(stem);
  return family === undefined || TOPIC_FAMILIES.has(family) ? (DAY_GROUP.has(stem) ? DAY_WEIGHT : 1) : INTENT_WEIGHT;
};
const FAMILY_OF = new Map<string, string>();
const FAMILY_NAMES = new Set(FAMILIES.map((family) => family[0] as string));
for (const family of FAMILIES) for (const stem of family) FAMILY_OF.set(stem, family[0] as string);

/**
 * Talk rather than topic (stems), beside the analyser's stop words — and the light verbs, which say
 * little of what is asked without their object ("what warranty do you *give*", "can someone *come*
 * now", "should I *bring* my own towel"); "take" is an intent word (it accepts).
 */
const CONVERSATIONAL = new Set(
  'pleas thank thanks hi hello hei hey someth anyth thing stuff know tell would could can like want need realli actual also just ok okai possibl near get got make made give gave come came go went bring brought put let keep kept someon somebodi'.split(
    ' ',
  ),
);

/** Nouns whose plural the stemmer leaves as it is ("children", "teeth"): read as their singular. */
const IRREGULAR_PLURALS: Record<string, string> = {
  children: 'child',
  teeth: 'tooth',
  feet: 'foot',
  men: 'man',
  women: 'woman',
  mice: 'mouse',
  geese: 'goose',
};
const IRREGULAR_PLURAL = new RegExp(`\\b(?:${Object.keys(IRREGULAR_PLURALS).join('|')})\\b`, 'giu');

/**
 * The visitor's particulars: how many ("a table for *four*", "*2* nights") weighs nothing — it says
 * which booking, not which answer; a day ("on *Friday*") half a word, as an intent word does.
 */
const NUMBER = /^(?:\d+(?:[.,:]\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|hundred)$/i;
const DAY_WEIGHT = 0.5;

/** Days and what pages call them together: "open on Sundays?" of "8am to 8pm at weekends". */
const DAY_GROUP = new Map<string, string[]>([
  ...['saturdai', 'sundai'].map((day): [string, string[]] => [day, ['weekend']]),
  ...['mondai', 'tuesdai', 'wednesdai', 'thursdai', 'fridai'].map((day): [string, string[]] => [day, ['weekdai']]),
  ['weekend', ['saturdai', 'sundai']],
  ['weekdai', ['mondai', 'tuesdai', 'wednesdai', 'thursdai', 'fridai']],
]);

export interface CuratedCandidate {
  id: string;
  question: string;
  /** Other wordings of the question the operator added (a knowledge gap's): each is asked like it. */
  alternates?: readonly string[];
  answer: string;
}

interface TopicTerm {
  key: string;
  weight: number;
  surface: string;
}

/**
 * The question's topic words: each with its family-folded stem (the key), its weight and its surface.
 * With `compounds`, two words that WordNet knows as one ("call off", "check-in") are one term, keyed
 * "call_off", weighing as much as its heavier word (none when both are talk: "thank you").
 */
function* topicTerms(text: string, compounds = false): Generator<TopicTerm> {
  // A hyphenated word is read as its words: WordNet knows "check-in" as the lemma "check in" (compounds above), not "checkin".
  const words = text
    .replace(/(?<=[\p{L}\p{N}])-(?=[\p{L}\p{N}])/gu, ' ')
    .replace(IRREGULAR_PLURAL, (word) => IRREGULAR_PLURALS[word.toLowerCase()] ?? word);
  const terms = analyze(words).filter((t) => !t.part);
  for (let i = 0; i < terms.length; i++) {
    const t = terms[i]!;
    const next = terms[i + 1];
    if (compounds && next) {
      const compound = compoundOf(t.surface, next.surface);
      if (compound) {
        const weight = Math.max(...[t, next].map((p) => (p.stop || CONVERSATIONAL.has(p.stem) ? 0 : weightOf(p.stem))));
        if (weight > 0) yield { key: compound, weight, surface: `${t.surface} ${next.surface}` };
        i++;
        continue;
      }
    }
    if (t.stop || t.stem.length < 2 || CONVERSATIONAL.has(t.stem) || NUMBER.test(t.surface)) continue;
    const stem = baseOfComparative(t.stem);
    yield { key: FAMILY_OF.get(stem) ?? stem, weight: weightOf(stem), surface: t.surface };
  }
}

/**
 * A comparative or superlative the stemmer keeps whole ("whiter", "cheapest") as the adjective it
 * compares, when WordNet knows that and not the word itself: "whiter" teeth are "whitened" ones.
 */
function baseOfComparative(stem: string): string {
  const ending = /(?:i?e[rs]t?|r|st)$/.exec(stem);
  if (!ending || relatedStems(stem).length > 0) return stem;
  const root = stem.slice(0, ending.index);
  const candidates = [
    stem.replace(/(?:r|st)$/, ''), // whiter → white
    stem.replace(/(?:er|est)$/, ''), // cheaper → cheap
    stem.replace(/(?:ier|iest)$/, 'i'), // easier → easi
    root.length > 2 && root.at(-1) === root.at(-2) ? root.slice(0, -1) : root, // bigger → big
  ];
  return candidates.find((base) => base !== stem && base.length > 2 && relatedStems(base).length > 0) ?? stem;
}

/** The WordNet key of two words WordNet has as one lemma ("call off" → "call_off"). */
function compoundOf(a: string, b: string): string | undefined {
  const key = [...analyze(a), ...analyze(b)].map((t) => t.stem).join('_');
  return relatedStems(key).length > 0 ? key : undefined;
}

/** The question's words as the matcher sees them: family-folded stems with their weights. */
export function matchTerms(text: string, compounds = false): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of topicTerms(text, compounds)) out.set(t.key, t.weight);
  return out;
}

function weight(terms: Map<string, number>, keep: (term: string) => boolean = () => true): number {
  let sum = 0;
  for (const [term, w] of terms) if (keep(term)) sum += w;
  return sum;
}

/**
 * WordNet's stem → related-stems map (wordnet-related.txt.gz beside this file, made by
 * packages/shared/scripts/wordnet-related.ts from WordNet 3.1): one line per stem, sorted, "stem rel
 * rel …". Read the first time a question is matched against curated answers, and kept as the
 * unpacked bytes and where their lines start: a lookup is a binary search, nothing is split up front.
 */
const RELATED_FILE = new URL('./wordnet-related.txt.gz', import.meta.url);
let related: { bytes: Buffer; starts: Int32Array } | undefined;

function loadRelated(): { bytes: Buffer; starts: Int32Array } {
  if (!related) {
    const packed = readFileSync(RELATED_FILE);
    // Unpacked in one piece of the size gzip records at its end, not in chunks joined after.
    const bytes = gunzipSync(packed, { chunkSize: Math.max(64, packed.readUInt32LE(packed.length - 4)) });
    let lines = 0;
    for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) lines++;
    const starts = new Int32Array(lines);
    for (let k = 1, i = bytes.indexOf(10); k < lines; k++, i = bytes.indexOf(10, i + 1)) starts[k] = i + 1;
    related = { bytes, starts };
  }
  return related;
}

// A question meets every curated answer's words: remember the lookups of the last questions.
const RELATED_CACHE_MAX = 10_000;

/** The stems WordNet relates to this one (its commonest senses' synonyms, derived forms, hypernyms). */
export const relatedStems: (stem: string) => string[] = boundedMemo(RELATED_CACHE_MAX, (stem: string) => lookUpRelated(stem));

function lookUpRelated(stem: string): string[] {
  const { bytes, starts } = loadRelated();
  const key = Buffer.from(stem, 'latin1');
  let lo = 0;
  let hi = starts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const start = starts[mid] as number;
    const end = bytes.indexOf(32, start);
    const order = bytes.compare(key, 0, key.length, start, end);
    if (order === 0) return bytes.toString('latin1', end + 1, bytes.indexOf(10, end)).split(' ');
    if (order < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return [];
}

/**
 * A term's key, the keys of the stems related to it and, for a compound, its words' keys. A related
 * stem that is an intent word stands for its family only when the term is one too: "motor" is
 * related to "carry", but a visitor asking about motors does not ask whether something is sold.
 */
const meaningsOf = boundedMemo(RELATED_CACHE_MAX, (key: string): Set<string> => {
  const parts = key.includes('_') ? key.split('_').map((stem) => FAMILY_OF.get(stem) ?? stem) : [];
  const intent = FAMILY_NAMES.has(key);
  const related = relatedStems(key).flatMap((stem) => {
    const family = FAMILY_OF.get(stem);
    return family === undefined ? [stem] : intent ? [family] : [];
  });
  return new Set([key, ...parts, ...related, ...(DAY_GROUP.get(key) ?? [])]);
});

/**
 * Whether a term meets any of the others: the same key, one WordNet relates to it, or (typed by the
 * visitor) a word WordNet does not know that is one of them with a letter left out ("brekfast").
 */
function meets(key: string, others: { has(key: string): boolean; keys(): Iterable<string> }, typed: 'self' | 'others'): boolean {
  for (const k of meaningsOf(key)) if (others.has(k)) return true;
  for (const other of others.keys()) {
    if (meaningsOf(other).has(key)) return true;
    const [mistyped, word] = typed === 'self' ? [key, other] : [other, key];
    if (missesOneLetter(mistyped, word) && relatedStems(mistyped).length === 0) return true;
  }
  return false;
}

interface CuratedTerms {
  /** The words of the curated question and of each wording the operator added. */
  questions: Map<string, number>[];
  /** The answer's own words. */
  answer: Set<string>;
  /** The answer's first topic words: what it is about ("Free wireless internet…", "Dogs are welcome…"). */
  lead: Set<string>;
  /** Every word of the questions and the answer. */
  known: Set<string>;
}

// Every question meets the client's curated answers anew: remember their words.
const curatedTermsOf = boundedMemo(1000, (text: string): CuratedTerms => {
  const [answerText = '', ...asked] = text.split('\u0000');
  const questions = asked.map((q) => matchTerms(q, true));
  const answerTerms = matchTerms(answerText, true);
  const answer = new Set(answerTerms.keys());
  const lead = new Set(
    [...answerTerms]
      .filter(([, w]) => w === 1)
      .slice(0, LEAD_WORDS)
      .map(([k]) => k),
  );
  return { questions, answer, lead, known: new Set([...questions.flatMap((q) => [...q.keys()]), ...answer]) };
});

function curatedTerms(answer: CuratedCandidate): CuratedTerms {
  return curatedTermsOf([answer.answer, answer.question, ...(answer.alternates ?? [])].join('\u0000'));
}

interface Fit {
  asked: number;
  covered: number;
  /**
   * The share of the visitor's question the curated answer states as the visitor puts it: its words
   * met by the curated questions as `covered` meets them, or by the answer's own words as they are —
   * not through WordNet, whose loose senses reach an answer's every word ("minibar" is a "buffet").
   */
  stated: number;
  /** Whether a thing the visitor names is what the curated question or the answer's first words are about. */
  onTopic: boolean;
  /** Whether the visitor does one thing with it (DEALINGS) and the curated questions another. */
  otherDealing: boolean;
  known: Set<string>;
}

/**
 * How a question and a curated answer meet: asked = the share of the curated question the visitor
 * asks for (of the wording of it the visitor's comes closest to: the question or one the operator
 * added); covered = the share of the visitor's question the curated questions and answer hold;
 * known = the curated questions' and answer's words.
 */
function fitOf(visitor: Map<string, number>, answer: CuratedCandidate): Fit {
  const { questions, answer: answerTerms, lead, known } = curatedTerms(answer);
  const visitorWeight = weight(visitor);
  let asked = 0;
  for (const curated of questions) {
    const curatedWeight = weight(curated);
    if (curatedWeight > 0) asked = Math.max(asked, weight(curated, (t) => meets(t, visitor, 'others')) / curatedWeight);
  }
  const share = (keep: (term: string) => boolean) => (visitorWeight > 0 ? weight(visitor, keep) / visitorWeight : 0);
  return {
    asked,
    covered: share((t) => meets(t, known, 'self')),
    stated: share((t) => answerTerms.has(t) || questions.some((q) => meets(t, q, 'self'))),
    onTopic: [...visitor].some(([t, w]) => w === 1 && (lead.has(t) || questions.some((q) => meets(t, q, 'self')))),
    otherDealing:
      questions.some((q) => [...q.keys()].some((t) => DEALINGS.has(t))) &&
      [...visitor.keys()].some((t) => DEALINGS.has(t) && !answerTerms.has(t) && !questions.some((q) => q.has(t))),
    known,
  };
}

export interface CuratedMatch<C extends CuratedCandidate> {
  answer: C;
  asked: number;
  covered: number;
}

/** The best curated answer for the question, or undefined when none is asked for. */
export function matchCurated<C extends CuratedCandidate>(question: string, candidates: readonly C[]): CuratedMatch<C> | undefined {
  return bestFit(
    question,
    candidates,
    (fit, visitor) =>
      !fit.otherDealing &&
      ((fit.asked >= ASKED && fit.covered >= COVERED) || (fit.stated === 1 && fit.onTopic && weight(visitor) >= STATED_THINGS)),
  );
}

/**
 * The curated answer whose questions and answer meet the most of the question's words, matched or
 * not: the one a knowledge gap's wording most likely belongs to. Undefined when no answer meets one
 * of its topic words (an intent word alone — "sell", "open" — says nothing about which answer).
 */
export function closestCurated<C extends CuratedCandidate>(question: string, candidates: readonly C[]): CuratedMatch<C> | undefined {
  return bestFit(question, candidates, (fit, visitor) => [...visitor].some(([term, w]) => w === 1 && meets(term, fit.known, 'self')));
}

function bestFit<C extends CuratedCandidate>(
  question: string,
  candidates: readonly C[],
  accept: (fit: Fit, visitor: Map<string, number>) => boolean,
): CuratedMatch<C> | undefined {
  if (candidates.length === 0) return undefined;
  const visitor = matchTerms(question, true);
  if (visitor.size === 0) return undefined;
  let best: CuratedMatch<C> | undefined;
  for (const answer of candidates) {
    const fit = fitOf(visitor, answer);
    if (!accept(fit, visitor)) continue;
    const { asked, covered } = fit;
    if (!best || asked + covered > best.asked + best.covered) best = { answer, asked, covered };
  }
  return best;
}

/**
 * For a curated answer the retrieval ranked first though the words alone did not match: whether
 * the visitor asks for enough of its question, and the visitor's words (as typed) it says nothing
 * about — the caller accepts it only when none of those occurs in the client's other pages (a word
 * the site knows elsewhere is another topic: "*repair* skateboards"; one it never uses is the
 * visitor's own way of saying it: "something you *carry*").
 */
export function retrievedCuratedFit(question: string, answer: CuratedCandidate): { asked: boolean; unexplained: string[] } {
  const { asked, known } = fitOf(matchTerms(question, true), answer);
  const unexplained = new Set<string>();
  for (const t of topicTerms(question, true)) if (!meets(t.key, known, 'self')) unexplained.add(t.surface);
  return { asked: asked >= ASKED, unexplained: [...unexplained] };
}

/** A gap's key: its topic words, sorted — near-duplicate questions share it ("do u sell skateboards"). */
export function questionKey(question: string): string {
  return [...matchTerms(question).keys()].sort().join(' ');
}
