// Scoring an answer set the way the eval README says: by the pages of the answer's sources.
import { isIndexPage, type Question } from './corpora.ts';

export interface Answer {
  /** Pages of the sources, in order (relative to the corpus root). */
  pages: string[];
  text?: string;
}

export interface CorpusScore {
  answerable: number;
  unanswerable: number;
  recallAt1: number;
  /** An expected page among the sources. */
  sourceRecall: number;
  /** Mean sources per answered question. */
  meanSources: number;
  unanswerableDeclined: number;
  answerableDeclined: number;
  /** Share of answerable questions with an `answer` phrase whose answer text contains one. */
  answerContains: number | null;
  misses: string[];
}

/** Index pages and all-in-one pages repeat every page: never a hit, left out. */
export function citedPages(pages: string[]): string[] {
  return [...new Set(pages)].filter((p) => !isIndexPage(p));
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

export function scoreCorpus(questions: Question[], answers: Map<string, Answer>): CorpusScore {
  let answerable = 0;
  let unanswerable = 0;
  let r1 = 0;
  let recall = 0;
  let sources = 0;
  let answered = 0;
  let declinedU = 0;
  let declinedA = 0;
  let withPhrase = 0;
  let contains = 0;
  const misses: string[] = [];
  for (const q of questions) {
    const a = answers.get(q.id) ?? { pages: [] };
    const pages = citedPages(a.pages);
    const declined = a.pages.length === 0;
    if (!declined) {
      answered++;
      sources += a.pages.length;
    }
    if (q.expected.length === 0) {
      unanswerable++;
      if (declined) declinedU++;
      else misses.push(`${q.id}:answered(${pages.slice(0, 2).join(',')})`);
      continue;
    }
    answerable++;
    if (declined) declinedA++;
    if (pages[0] !== undefined && q.expected.includes(pages[0])) r1++;
    if (pages.some((p) => q.expected.includes(p))) recall++;
    else misses.push(`${q.id}(${pages.slice(0, 3).join(',') || 'declined'})`);
    if (q.answer && q.answer.length > 0 && a.text !== undefined) {
      withPhrase++;
      const text = a.text.toLowerCase();
      if (q.answer.some((p) => text.includes(p.toLowerCase()))) contains++;
    }
  }
  return {
    answerable,
    unanswerable,
    recallAt1: r3(r1 / Math.max(1, answerable)),
    sourceRecall: r3(recall / Math.max(1, answerable)),
    meanSources: r3(sources / Math.max(1, answered)),
    unanswerableDeclined: r3(declinedU / Math.max(1, unanswerable)),
    answerableDeclined: r3(declinedA / Math.max(1, answerable)),
    answerContains: withPhrase > 0 ? r3(contains / withPhrase) : null,
    misses,
  };
}

/** BM25's recall@1 and recall@3 over the answerable questions (follow-ups without context). */
export function scoreReference(questions: Question[], rank: (q: string) => string[]): { recallAt1: number; recallAt3: number } {
  let r1 = 0;
  let r3n = 0;
  let n = 0;
  for (const q of questions) {
    if (q.expected.length === 0) continue;
    n++;
    const pages = citedPages(rank(q.question));
    if (pages[0] !== undefined && q.expected.includes(pages[0])) r1++;
    if (pages.slice(0, 3).some((p) => q.expected.includes(p))) r3n++;
  }
  return { recallAt1: r3(r1 / Math.max(1, n)), recallAt3: r3(r3n / Math.max(1, n)) };
}

/** The targets for one corpus against its BM25 reference. */
export function targetsMet(s: CorpusScore, ref: { recallAt1: number; recallAt3: number }) {
  return {
    recallAt1: s.recallAt1 >= ref.recallAt1 + 0.1 - 1e-9,
    sourceRecall: s.sourceRecall >= ref.recallAt3 + 0.1 - 1e-9 && s.meanSources <= 3,
    declined: s.unanswerableDeclined >= 0.8,
    falselyDeclined: s.answerableDeclined <= 0.1,
    answerContains: s.answerContains === null || s.answerContains >= 0.6,
  };
}
