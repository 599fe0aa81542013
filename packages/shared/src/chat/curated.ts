import { analyze } from '../providers/text/text-analysis.ts';

/**
 * Which curated answer, if any, a visitor's question asks for (docs/operators.md "Curated answers").
 *
 * Matching is by meaning as far as words carry it, never by string equality: both questions go
 * through the retrieval's analyser (words, stop words, Porter stems), a few families of words that
 * visitors and shops use for the same intent count as one ("carry", "stock", "buy" are "sell"), and
 * two coverages decide:
 *
 * - asked: how much of the curated question the visitor's question holds (weighted, ≥ ASKED);
 * - covered: how much of the visitor's question the curated question and answer hold (≥ COVERED).
 *   A near-miss adds a thing the curated answer says nothing about ("skateboard *wheels*",
 *   "*repair* skateboards"): covered drops and the question goes to retrieval like any other.
 *
 * Words of intent ("sell", "price", "open") weigh half a topic word: they say what is asked about a
 * thing, the thing says which answer. The thresholds are set from the definition (at least half of
 * the curated question asked; at most a quarter of the visitor's words unanswered), not fitted;
 * test/chat/curated-answers.test.ts holds paraphrases and near-misses, figures in the note.
 */

export const ASKED = 0.5;
export const COVERED = 0.75;
const INTENT_WEIGHT = 0.5;

/** Families of words that ask the same thing (stems). The first is the family's name. */
const FAMILIES: string[][] = [
  ['sell', 'carri', 'stock', 'offer', 'bui', 'purchas', 'have', 'provid', 'suppli', 'avail'],
  ['price', 'cost', 'charg', 'fee', 'pai', 'pay', 'expens', 'cheap', 'much'],
  ['deliv', 'deliveri', 'ship', 'post', 'send', 'dispatch'],
  ['refund', 'return', 'monei', 'back', 'reimburs', 'exchang'],
  ['open', 'hour', 'close', 'time'],
  ['book', 'reserv', 'appoint', 'schedul'],
  ['contact', 'call', 'phone', 'email', 'reach'],
  ['locat', 'address', 'where', 'find'],
  ['accept', 'take', 'support'],
];
const FAMILY_OF = new Map<string, string>();
for (const family of FAMILIES) for (const stem of family) FAMILY_OF.set(stem, family[0] as string);

/** Talk rather than topic (stems), beside the analyser's stop words. */
const CONVERSATIONAL = new Set(
  'pleas thank thanks hi hello hei hey u ur someth anyth thing stuff know tell would could can like want need realli actual also just ok okai possibl near'.split(
    ' ',
  ),
);

export interface CuratedCandidate {
  id: string;
  question: string;
  answer: string;
}

/** The question's topic words: each with its family-folded stem (the key), its weight and its surface. */
function* topicTerms(text: string): Generator<{ key: string; weight: number; surface: string }> {
  for (const t of analyze(text)) {
    if (t.stop || t.part || t.stem.length < 2 || CONVERSATIONAL.has(t.stem)) continue;
    const family = FAMILY_OF.get(t.stem);
    yield { key: family ?? t.stem, weight: family ? INTENT_WEIGHT : 1, surface: t.surface };
  }
}

/** The question's words as the matcher sees them: family-folded stems with their weights. */
export function matchTerms(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of topicTerms(text)) out.set(t.key, t.weight);
  return out;
}

function weight(terms: Map<string, number>, keep: (term: string) => boolean = () => true): number {
  let sum = 0;
  for (const [term, w] of terms) if (keep(term)) sum += w;
  return sum;
}

/**
 * How a question and a curated answer meet: asked = the share of the curated question the visitor
 * asks for; covered = the share of the visitor's question the curated question and answer hold;
 * known = the curated question's and answer's words.
 */
function fitOf(visitor: Map<string, number>, answer: CuratedCandidate): { asked: number; covered: number; known: Set<string> } {
  const curated = matchTerms(answer.question);
  const curatedWeight = weight(curated);
  const visitorWeight = weight(visitor);
  const known = new Set([...curated.keys(), ...matchTerms(answer.answer).keys()]);
  return {
    asked: curatedWeight > 0 ? weight(curated, (t) => visitor.has(t)) / curatedWeight : 0,
    covered: visitorWeight > 0 ? weight(visitor, (t) => known.has(t)) / visitorWeight : 0,
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
  const visitor = matchTerms(question);
  if (visitor.size === 0) return undefined;
  let best: CuratedMatch<C> | undefined;
  for (const answer of candidates) {
    const { asked, covered } = fitOf(visitor, answer);
    if (asked < ASKED || covered < COVERED) continue;
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
  const { asked, known } = fitOf(matchTerms(question), answer);
  const unexplained = new Set<string>();
  for (const t of topicTerms(question)) if (!known.has(t.key)) unexplained.add(t.surface);
  return { asked: asked >= ASKED, unexplained: [...unexplained] };
}

/** A gap's key: its topic words, sorted — near-duplicate questions share it ("do u sell skateboards"). */
export function questionKey(question: string): string {
  return [...matchTerms(question).keys()].sort().join(' ');
}
