// 1c. Retrieval quality: the Node.js 18 API docs (../shared/eval) crawled by the service, then the
// eval's questions asked through POST /api/chat (extractive + local embedder), scored by the pages
// of the answer's `sources`: recall@1, recall@5, MRR over the answerable questions, and the share
// of unanswerable ones declined (no sources). Follow-ups are asked in their question's session.
// all.html repeats every page: it is never a hit and is left out of the ranking.
//
// RETRIEVAL_MODE picks the candidate lists (hybrid, vector, fulltext). Each mode runs with the
// service's relevance floor (what a visitor gets) and with the floor off (RETRIEVAL_MIN_SIMILARITY
// and RETRIEVAL_MIN_TERM_COVERAGE at 0: the ranking alone). On native Postgres and on the embedded
// PGlite (served by this process over the wire protocol, as the embedded default does).
import { readFileSync } from 'node:fs';
import { startEmbeddedPostgres } from '@kbchat/shared/db/embedded-postgres';
import { serveDirectory } from '../test/support/fixture-site.ts';
import {
  api,
  type BenchEnv,
  crawlSite,
  createClient,
  createDatabase,
  ensureCorpora,
  log,
  NODE_DOCS,
  NODE_QUESTIONS,
  round,
  startKbchatProcess,
} from './lib/env.ts';
import type { PartResult, Row } from './lib/report.ts';

/** The eval README's reference: plain BM25 over ~1000-character chunks, follow-ups without context. */
export const BM25_REFERENCE = { recallAt1: 0.556, recallAt5: 0.75, mrr: 0.661 };

export interface Question {
  id: string;
  question: string;
  expected: string[];
  follows: string | null;
  kind: string;
}

export interface Score {
  recallAt1: number;
  recallAt5: number;
  mrr: number;
  answerable: number;
  /** Answerable questions answered with no sources. */
  answerableDeclined: number;
  unanswerable: number;
  unanswerableDeclined: number;
  declinedShare: number;
  misses: string[];
}

export type Mode = 'hybrid' | 'vector' | 'fulltext';
export interface Variant {
  mode: Mode;
  floor: boolean;
}

export const VARIANTS: Variant[] = [
  { mode: 'hybrid', floor: true },
  { mode: 'hybrid', floor: false },
  { mode: 'vector', floor: true },
  { mode: 'vector', floor: false },
  { mode: 'fulltext', floor: true },
  { mode: 'fulltext', floor: false },
];

export function loadQuestions(file = NODE_QUESTIONS): Question[] {
  return (JSON.parse(readFileSync(file, 'utf8')) as { questions: Question[] }).questions;
}

/** The page a source points at ("fs.html"); a directory URL is its index.html. */
export function pageOf(url: string): string {
  const p = new URL(url).pathname;
  return p.endsWith('/') ? 'index.html' : (p.split('/').at(-1) ?? '');
}

/** The distinct pages in order, all.html (a copy of every page, never a hit) left out. */
export function distinctPages(pages: string[]): string[] {
  return [...new Set(pages)].filter((p) => p !== 'all.html');
}

export function score(questions: Question[], answers: Map<string, string[]>): Score {
  let r1 = 0;
  let r5 = 0;
  let mrr = 0;
  let answerable = 0;
  let answerableDeclined = 0;
  let unanswerable = 0;
  let declined = 0;
  const misses: string[] = [];
  for (const q of questions) {
    const raw = answers.get(q.id) ?? [];
    const pages = distinctPages(raw);
    if (q.expected.length === 0) {
      unanswerable++;
      if (raw.length === 0) declined++;
      else misses.push(`${q.id}:answered(${pages.slice(0, 2).join(',')})`);
      continue;
    }
    answerable++;
    if (raw.length === 0) answerableDeclined++;
    const first = pages.findIndex((p) => q.expected.includes(p));
    if (first === 0) r1++;
    if (first >= 0 && first < 5) r5++;
    else misses.push(`${q.id}(${pages.slice(0, 3).join(',') || 'declined'})`);
    if (first >= 0) mrr += 1 / (first + 1);
  }
  return {
    recallAt1: round(r1 / answerable, 3),
    recallAt5: round(r5 / answerable, 3),
    mrr: round(mrr / answerable, 3),
    answerable,
    answerableDeclined,
    unanswerable,
    unanswerableDeclined: declined,
    declinedShare: round(declined / Math.max(1, unanswerable), 3),
    misses,
  };
}

/** Every question through POST /api/chat; a follow-up reuses the session of the question it follows. */
export async function ask(baseUrl: string, clientId: string, questions: Question[]): Promise<Map<string, string[]>> {
  const sessions = new Map<string, string>();
  const answers = new Map<string, string[]>();
  for (const q of questions) {
    const sessionId = q.follows ? sessions.get(q.follows) : undefined;
    const res = await api<{ sources: { url: string }[]; sessionId: string }>(baseUrl, 'POST', '/api/chat', {
      clientId,
      message: q.question,
      ...(sessionId ? { sessionId } : {}),
    });
    sessions.set(q.id, res.sessionId);
    answers.set(
      q.id,
      res.sources.map((s) => pageOf(s.url)),
    );
  }
  return answers;
}

export function variantEnv(v: Variant): Record<string, string> {
  return {
    RETRIEVAL_MODE: v.mode,
    ...(v.floor ? {} : { RETRIEVAL_MIN_SIMILARITY: '0', RETRIEVAL_MIN_TERM_COVERAGE: '0' }),
  };
}

const label = (v: Variant) => `${v.mode}${v.floor ? '' : ', no floor'}`;

const common = { EMBEDDING_PROVIDER: 'local', CHAT_PROVIDER: 'extractive', CHAT_RATE_LIMIT_PER_MINUTE: '100000' };

/** Crawls the Node.js docs served at siteUrl into databaseUrl as a new client, embedded locally. */
export async function crawlNodeDocs(
  env: BenchEnv,
  databaseUrl: string,
  siteUrl: string,
): Promise<{ clientId: string; crawl: Record<string, unknown> }> {
  const kb = await startKbchatProcess({ databaseUrl, redisUrl: env.redisUrl, env: { ...common, CRAWL_PER_HOST_CONCURRENCY: '8' } });
  try {
    const clientId = await createClient(kb.baseUrl, 'Node.js docs');
    const { job, seconds } = await crawlSite(kb.baseUrl, clientId, `${siteUrl}/index.html`, 1000);
    if (job.status !== 'completed') throw new Error(`the docs crawl ended ${job.status}: ${job.error}`);
    log(`  crawled ${job.progress.pagesIndexed} pages, ${job.progress.documentsCreated} chunks in ${round(seconds)} s`);
    return {
      clientId,
      crawl: {
        seconds: round(seconds),
        pagesIndexed: job.progress.pagesIndexed,
        documents: job.progress.documentsCreated,
        skipped: job.progress.skipReasons,
      },
    };
  } finally {
    await kb.stop();
    await kb.cleanRedis();
  }
}

/** Crawls the docs into databaseUrl and scores every variant. */
async function runOn(
  env: BenchEnv,
  databaseUrl: string,
  siteUrl: string,
  questions: Question[],
  variants: Variant[],
): Promise<{ scores: Record<string, Score>; crawl: Record<string, unknown> }> {
  const { clientId, crawl } = await crawlNodeDocs(env, databaseUrl, siteUrl);
  const scores: Record<string, Score> = {};
  for (const v of variants) {
    const gw = await startKbchatProcess({ databaseUrl, redisUrl: env.redisUrl, env: { ...common, RUN: 'gateway', ...variantEnv(v) } });
    try {
      scores[label(v)] = score(questions, await ask(gw.baseUrl, clientId, questions));
      const s = scores[label(v)] as Score;
      log(`  ${label(v)}: r@1 ${s.recallAt1} r@5 ${s.recallAt5} MRR ${s.mrr} declined ${s.unanswerableDeclined}/${s.unanswerable}`);
    } finally {
      await gw.stop();
      await gw.cleanRedis();
    }
  }
  return { scores, crawl };
}

export interface RetrievalOptions {
  databases: ('native' | 'embedded')[];
}

export async function retrievalBench(env: BenchEnv, options: RetrievalOptions): Promise<PartResult> {
  ensureCorpora();
  const questions = loadQuestions();
  const site = await serveDirectory(NODE_DOCS);
  const results: Record<string, { scores: Record<string, Score>; crawl: Record<string, unknown> }> = {};
  try {
    for (const database of options.databases) {
      log(`retrieval on ${database} Postgres`);
      if (database === 'native') {
        const db = await createDatabase(env.serverUrl, 'retrieval');
        try {
          results[database] = await runOn(env, db.url, site.url, questions, VARIANTS);
        } finally {
          await db.drop();
        }
      } else {
        const pglite = await startEmbeddedPostgres();
        try {
          results[database] = await runOn(env, pglite.url, site.url, questions, VARIANTS);
        } finally {
          await pglite.stop();
        }
      }
    }
  } finally {
    await site.close();
  }

  const rows: Row[] = [];
  for (const [database, r] of Object.entries(results)) {
    const hybrid = r.scores.hybrid as Score;
    const hybridRanking = r.scores['hybrid, no floor'] as Score;
    const ftRanking = r.scores['fulltext, no floor'] as Score;
    const ftBest = [r.scores.fulltext, ftRanking]
      .filter(Boolean)
      .reduce((a, b) => ((b as Score).recallAt5 > (a as Score).recallAt5 ? b : a)) as Score;
    for (const [name, s] of Object.entries(r.scores)) {
      rows.push({
        metric: `${database}: ${name} — r@1 / r@5 / MRR, unanswerable declined`,
        ours: `${s.recallAt1} / ${s.recallAt5} / ${s.mrr}, ${s.unanswerableDeclined}/${s.unanswerable}`,
        baseline: `${BM25_REFERENCE.recallAt1} / ${BM25_REFERENCE.recallAt5} / ${BM25_REFERENCE.mrr}`,
      });
    }
    rows.push({
      metric: `${database}: recall@5, hybrid − full-text-only, both without the floor (the rankings alike)`,
      ours: round(hybridRanking.recallAt5 - ftRanking.recallAt5, 3),
      baseline: `${hybridRanking.recallAt5} vs ${ftRanking.recallAt5}`,
      target: '≥ +0.10',
      pass: hybridRanking.recallAt5 - ftRanking.recallAt5 >= 0.1 - 1e-9,
    });
    rows.push({
      metric: `${database}: recall@5, hybrid as shipped (floor on) − the better full-text-only run`,
      ours: round(hybrid.recallAt5 - ftBest.recallAt5, 3),
      baseline: `${hybrid.recallAt5} vs ${ftBest.recallAt5}`,
      target: '≥ +0.10',
      pass: hybrid.recallAt5 - ftBest.recallAt5 >= 0.1 - 1e-9,
    });
    rows.push({
      metric: `${database}: hybrid, unanswerable declined`,
      ours: hybrid.declinedShare,
      target: '≥ 0.8',
      pass: hybrid.declinedShare >= 0.8,
    });
  }
  return {
    part: 'retrieval',
    title: '1c. Retrieval: Node.js 18 API docs, 40 questions, answers’ sources',
    oursLabel: 'POST /api/chat (extractive + local embedder) per RETRIEVAL_MODE, with and without the relevance floor',
    baselineLabel: 'plain BM25 over ~1000-character chunks (the eval README’s reference, follow-ups without context)',
    rows,
    notes: [
      '“hybrid” is the service as shipped (vector + full text, relevance floor); “no floor” sets RETRIEVAL_MIN_SIMILARITY and RETRIEVAL_MIN_TERM_COVERAGE to 0 (the ranking alone).',
      'The +10 points target is shown twice: like for like (both rankings without the floor), and the shipped hybrid (floor on) against the better full-text-only run (the floor rests on similarity, which full text alone does not have, so full text is taken at its best).',
    ],
    details: Object.fromEntries(Object.entries(results).map(([db, r]) => [db, r])),
  };
}
