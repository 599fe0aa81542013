// Leave-one-corpus-out choice of the ranking's weights and decline threshold: each question's
// candidates are fetched once through the service's own search function, then every setting of a
// grid is scored in memory; for each corpus, the setting best on the other corpora is scored on it.
import { LOCAL_EMBEDDER_RANKING, type RankingParams } from '@kbchat/shared/chat/ranking';
import { answerablePassages, type RankedPassage, siteSpecificity } from '@kbchat/shared/chat/retrieval';
import { searchedQuery } from '@kbchat/shared/chat/searched-query';
import type { Queryable } from '@kbchat/shared/db/pool';
import { type CandidateResult, searchCandidates } from '@kbchat/shared/db/retrieval';
import type { ChatTurn } from '@kbchat/shared/providers/chat/chat-provider';
import { composeAnswer, type ExtractiveAnswer } from '@kbchat/shared/providers/chat/extractive-answer';
import { followUpFocus, rewriteFollowUp } from '@kbchat/shared/providers/chat/follow-up';
import { embedLocal, LOCAL_EMBEDDING_MODEL } from '@kbchat/shared/providers/embeddings/local-embedder';
import { pageOf, type Question } from './corpora.ts';
import { type Answer, type CorpusScore, scoreCorpus, targetsMet } from './retrieval-score.ts';

export interface Case {
  question: Question;
  result: CandidateResult;
}

export interface CorpusCases {
  name: string;
  byId: Map<string, Question>;
  siteUrl: string;
  questions: Question[];
  cases: Case[];
  reference: { recallAt1: number; recallAt3: number };
}

/** A follow-up's history: its chain's earlier questions. */
function historyOf(q: Question, byId: Map<string, Question>): ChatTurn[] {
  const history: ChatTurn[] = [];
  for (let p = q.follows ? byId.get(q.follows) : undefined; p; p = p.follows ? byId.get(p.follows) : undefined)
    history.unshift({ role: 'user', content: p.question }, { role: 'assistant', content: '' });
  return history;
}

/** The query the service searches: a follow-up gets its chain's earlier questions as history. */
export function queryOf(q: Question, byId: Map<string, Question>): string {
  const history = historyOf(q, byId);
  return history.length > 0 ? rewriteFollowUp(q.question, history) : q.question;
}

/**
 * The words the answer is about, as the service takes them (chat-service.ts): the visitor's own, or of a
 * follow-up naming no topic the topic's; and whether they are a follow-up's own message (retrieve()'s ownFocus).
 */
function focusOf(q: Question, byId: Map<string, Question>): { focus: string; ownFocus: boolean } {
  const query = queryOf(q, byId);
  if (query === q.question) return { focus: q.question, ownFocus: false };
  const focus = followUpFocus(q.question, query, historyOf(q, byId));
  return { focus, ownFocus: query.trimEnd().endsWith(focus.trim()) };
}

/** Every question's candidates, as the service fetches them (local embedder, default list sizes). */
export async function collectCases(db: Queryable, clientId: string, questions: Question[]): Promise<Case[]> {
  const byId = new Map(questions.map((q) => [q.id, q]));
  const cases: Case[] = [];
  for (const q of questions) {
    const { focus } = focusOf(q, byId);
    const searched = searchedQuery(queryOf(q, byId), focus);
    const result = await searchCandidates(db, {
      latent: true,
      clientId,
      embeddingModel: LOCAL_EMBEDDING_MODEL,
      embedding: embedLocal(queryOf(q, byId)),
      query: searched.query,
      focus,
      k: 20,
      kText: 60,
      exactScanMaxDocs: 2000,
      efSearch: 100,
    });
    cases.push({ question: q, result });
  }
  return cases;
}

/**
 * The passages the extractive answer quotes. Many settings of the grid hand a question the same
 * passages: composing its answer once per distinct list keeps the leave-one-corpus-out run short.
 */
const quotedCache = new Map<string, ExtractiveAnswer>();
function quotedOf(question: Question, byId: Map<string, Question>, passages: RankedPassage[], result: CandidateResult): ExtractiveAnswer {
  const key = `${question.id}\n${question.question}\n${passages.map((p) => p.id).join(',')}`;
  let answer = quotedCache.get(key);
  if (!answer) {
    answer = composeAnswer(queryOf(question, byId), passages, siteSpecificity(result), focusOf(question, byId).focus, result.corpusDocs);
    quotedCache.set(key, answer);
  }
  return answer;
}

/** The sources' pages each question would get with these weights (as retrieve() decides them). */
export function evaluate(c: CorpusCases, params: RankingParams): CorpusScore & { answers: Map<string, Answer> } {
  const answers = new Map<string, Answer>();
  for (const { question, result } of c.cases) {
    const { focus, ownFocus } = focusOf(question, c.byId);
    const { passages } = answerablePassages(result, focus, { passages: 6, ranking: params }, undefined, undefined, ownFocus);
    // The sources are the pages the extractive answer quotes, as the service reports them.
    const answer = passages.length === 0 ? undefined : quotedOf(question, c.byId, passages, result);
    const quoted = (answer?.used ?? []).map((i) => passages[i]);
    const cited = passages.filter((p) => quoted.includes(p));
    answers.set(question.id, {
      pages: [...new Set((cited.length > 0 ? cited : passages.slice(0, 1)).map((p) => pageOf(p.url, c.siteUrl)))],
      text: answer?.text ?? '',
    });
  }
  return { ...scoreCorpus(c.questions, answers), answers };
}

/**
 * What a setting scores on one corpus: the targets it meets there (each worth more than any
 * margin can add up to), then its margins over them, declines weighed as the targets do. Margins alone
 * chose between settings a question apart on a corpus of twelve, and the choice moved with every
 * re-chunking; a target met is what the issue judges.
 */
export function objective(s: CorpusScore, ref: { recallAt1: number; recallAt3: number }): number {
  return TARGET_WORTH * Object.values(targetsMet(s, ref)).filter(Boolean).length + margins(s, ref);
}

/** More than the margins of a setting can differ by on one corpus. */
const TARGET_WORTH = 10;

function margins(s: CorpusScore, ref: { recallAt1: number; recallAt3: number }): number {
  return (
    s.recallAt1 -
    ref.recallAt1 +
    (s.sourceRecall - ref.recallAt3) +
    2 * Math.min(0, s.unanswerableDeclined - 0.8) +
    4 * Math.min(0, 0.1 - s.answerableDeclined) +
    0.25 * s.unanswerableDeclined -
    0.5 * s.answerableDeclined -
    0.1 * Math.max(0, s.meanSources - 3)
  );
}

/** The grid: the weights a site could plausibly want, around the textbook BM25 values (one list, made once). */
let gridSettings: RankingParams[] | undefined;
export function grid(): RankingParams[] {
  gridSettings ??= makeGrid();
  return gridSettings;
}

function makeGrid(): RankingParams[] {
  const out: RankingParams[] = [];
  // The weights that score chunks outermost: the settings of one scoring are neighbours, and the
  // near-duplicate walk of a question's head (retrieval.ts dropNearDuplicates) is replayed between them.
  for (const titleWeight of [0, 1])
    for (const vectorWeight of [0, 0.5, 1])
      for (const lsaWeight of [0, 0.5, 1])
        for (const proximityWeight of [0, 0.5, 1, 2])
          for (const secondChunkWeight of [0, 0.3])
            for (const relatedPageRatio of [0.5, 0.7, 0.8])
              for (const maxAbsentShare of [0.3, 0.4, 0.5])
                for (const linkedPageRatio of [0, 0.8])
                  for (const coverageMargin of [0, 1.25, 1.5, 2])
                    out.push({
                      ...LOCAL_EMBEDDER_RANKING,
                      titleWeight,
                      vectorWeight,
                      lsaWeight,
                      secondChunkWeight,
                      relatedPageRatio,
                      maxAbsentShare,
                      proximityWeight,
                      linkedPageRatio,
                      coverageMargin,
                    });
  return out;
}

export interface HeldOut {
  corpus: string;
  params: RankingParams;
  score: CorpusScore;
}

/**
 * Every setting's objective on every corpus (settings × corpora): computed once for a list of corpora
 * and of settings, and shared by the leave-one-corpus-out choice and the choice on all.
 */
const tables = new WeakMap<CorpusCases[], WeakMap<RankingParams[], number[][]>>();
function objectiveTable(corpora: CorpusCases[], settings: RankingParams[]): number[][] {
  const bySettings = tables.get(corpora) ?? new WeakMap<RankingParams[], number[][]>();
  tables.set(corpora, bySettings);
  let table = bySettings.get(settings);
  if (!table) {
    table = settings.map((p) => corpora.map((c) => objective(evaluate(c, p), c.reference)));
    bySettings.set(settings, table);
  }
  return table;
}

/** For each corpus: the grid setting with the best summed objective (targets met, then margins) on the others, scored on it. */
export function leaveOneCorpusOut(corpora: CorpusCases[], settings = grid()): HeldOut[] {
  const table = objectiveTable(corpora, settings);
  return corpora.map((held, i) => {
    let best = 0;
    let bestValue = Number.NEGATIVE_INFINITY;
    table.forEach((row, g) => {
      const v = row.reduce((a, x, j) => (j === i ? a : a + x), 0);
      if (v > bestValue) {
        bestValue = v;
        best = g;
      }
    });
    const params = settings[best] as RankingParams;
    return { corpus: held.name, params, score: evaluate(held, params) };
  });
}

/** The grid setting with the best summed objective (targets met, then margins) over every corpus: what the service should ship. */
export function bestOnAll(corpora: CorpusCases[], settings = grid()): RankingParams {
  const table = objectiveTable(corpora, settings);
  let best = 0;
  let bestValue = Number.NEGATIVE_INFINITY;
  table.forEach((row, g) => {
    const v = row.reduce((a, x) => a + x, 0);
    if (v > bestValue) {
      bestValue = v;
      best = g;
    }
  });
  return settings[best] as RankingParams;
}

/** The weights that differ from the shipped ones (LOCAL_EMBEDDER_RANKING), for the report. */
export function describeParams(p: RankingParams): string {
  return (
    (Object.keys(p) as (keyof RankingParams)[])
      .filter((k) => p[k] !== LOCAL_EMBEDDER_RANKING[k])
      .map((k) => `${k} ${p[k]}`)
      .join(', ') || 'the defaults'
  );
}
