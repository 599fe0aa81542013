// Where the retrieval bench's recall goes (docs/performance.md, 1c): the Node.js docs crawled as in
// `pnpm bench retrieval`, then every question asked through the chat service in-process (follow-ups
// in their session, the service's configuration from the environment), and for each answerable
// question the rank of its first expected page at each stage:
//   - the vector list and the full-text list (RETRIEVAL_CANDIDATES chunks each, the rewritten query),
//   - the passages handed to the answerer (after the floor, fusion, near-duplicates, the cut),
//   - the answer's sources (the passages the answer used), which is what the bench scores;
// and, for comparison with the full-text list, plain BM25 (term frequencies, k1 1.2, b 0.75) over the
// same chunks' tsvectors for the same query: the ranking the eval README's reference uses.
// Ranks are 1-based among distinct pages ("-": absent). Not part of `pnpm bench`; needs native
// Postgres and Redis.
//
//   node bench/retrieval-stages.ts [--json]
//   RETRIEVAL_MIN_SIMILARITY=0 RETRIEVAL_MIN_TERM_COVERAGE=0 node bench/retrieval-stages.ts   # no floor
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createChatService } from '@kbchat/shared/chat/chat-service';
import { loadConfig } from '@kbchat/shared/config';
import { findClient } from '@kbchat/shared/db/clients';
import { createPool, type Pool } from '@kbchat/shared/db/pool';
import { searchCandidates } from '@kbchat/shared/db/retrieval';
import { createLogger } from '@kbchat/shared/logger';
import { Redis } from 'ioredis';
import { serveDirectory } from '../test/support/fixture-site.ts';
import { benchEnv, createDatabase, ensureCorpora, log, NODE_DOCS } from './lib/env.ts';
import { crawlNodeDocs, distinctPages, loadQuestions, pageOf } from './retrieval.ts';

const { values: args } = parseArgs({ options: { json: { type: 'boolean', default: false } } });
const env = benchEnv();
ensureCorpora();
const db = await createDatabase(env.serverUrl, 'stages');
const site = await serveDirectory(NODE_DOCS);
const redis = new Redis(env.redisUrl);
const STAGES = ['vector', 'fullText', 'plainBm25', 'passages', 'sources'] as const;
type Stage = (typeof STAGES)[number];

/**
 * Plain BM25 over the client's chunks: each chunk's lexemes with their frequencies (positions in its
 * tsvector, title and heading included), document frequencies over all of them. Returns a ranker of
 * chunk URLs for a query, best first.
 */
async function plainBm25(pool: Pool, clientId: string): Promise<(query: string) => Promise<string[]>> {
  const { rows } = await pool.query<{ url: string; terms: Record<string, number> }>(
    `SELECT d.url, jsonb_object_agg(w.lexeme, coalesce(array_length(w.positions, 1), 1)) AS terms
       FROM documents d, unnest(d.fts) w WHERE d.client_id = $1 GROUP BY d.id, d.url`,
    [clientId],
  );
  const df = new Map<string, number>();
  let totalLength = 0;
  const chunks = rows.map((r) => {
    const terms = new Map(Object.entries(r.terms));
    let length = 0;
    for (const [t, tf] of terms) {
      df.set(t, (df.get(t) ?? 0) + 1);
      length += tf;
    }
    totalLength += length;
    return { url: r.url, terms, length };
  });
  const n = chunks.length;
  const avgLength = totalLength / Math.max(1, n);
  return async (query) => {
    const { rows: q } = await pool.query<{ lexeme: string }>("SELECT lexeme FROM unnest(to_tsvector('english', $1))", [query]);
    const scored: { url: string; score: number }[] = [];
    for (const c of chunks) {
      let score = 0;
      for (const { lexeme } of q) {
        const tf = c.terms.get(lexeme);
        if (!tf) continue;
        const d = df.get(lexeme) ?? 0;
        const idf = Math.log(1 + (n - d + 0.5) / (d + 0.5));
        score += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * c.length) / avgLength));
      }
      if (score > 0) scored.push({ url: c.url, score });
    }
    return scored.sort((a, b) => b.score - a.score).map((c) => c.url);
  };
}

/** 1-based rank of the first expected page among the distinct pages, 0 when absent. */
function rankOf(urls: string[], expected: string[]): number {
  return distinctPages(urls.map(pageOf)).findIndex((p) => expected.includes(p)) + 1;
}

try {
  const { clientId } = await crawlNodeDocs(env, db.url, site.url);
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: db.url,
    REDIS_URL: env.redisUrl,
    REDIS_PREFIX: `kbbench-stages-${randomUUID().slice(0, 8)}`,
    EMBEDDING_PROVIDER: 'local',
    CHAT_PROVIDER: 'extractive',
  });
  const pool = await createPool({ connectionString: db.url, max: 2 });
  try {
    const client = await findClient(pool, clientId);
    if (!client) throw new Error('the crawled client is gone');
    const service = createChatService({ config, log: createLogger({ level: 'warn' }), pool, redis });
    const bm25 = await plainBm25(pool, clientId);
    const sessions = new Map<string, string>();
    const rows: ({ id: string; declined: boolean } & Record<Stage, number>)[] = [];
    /** Distinct pages among the passages and among the sources, summed over answered questions. */
    const pages = { passages: 0, sources: 0, answered: 0 };
    let unanswerable = 0;
    let unanswerableDeclined = 0;
    for (const q of loadQuestions()) {
      const sessionId = q.follows ? sessions.get(q.follows) : undefined;
      const prepared = await service.prepare({ client, message: q.question, ...(sessionId ? { sessionId } : {}) });
      const response = await service.finish(prepared, await service.chat.answer(prepared.input));
      sessions.set(q.id, response.sessionId);
      if (q.expected.length === 0) {
        unanswerable++;
        if (response.sources.length === 0) unanswerableDeclined++;
        continue;
      }
      if (prepared.passages.length > 0) {
        pages.answered++;
        pages.passages += new Set(prepared.passages.map((p) => p.url)).size;
        pages.sources += response.sources.length;
      }
      // The two lists as the service fetched them for this question (same query, same settings).
      const { vectors } = await service.embeddings.embed([prepared.input.query]);
      const { candidates } = await searchCandidates(pool, {
        clientId,
        embeddingModel: service.embeddings.model,
        embedding: vectors[0],
        query: prepared.input.query,
        k: service.settings.candidates,
        exactScanMaxDocs: service.settings.exactScanMaxDocs,
        efSearch: service.settings.efSearch,
      });
      const list = (rank: 'vectorRank' | 'ftsRank') =>
        candidates
          .filter((c) => c[rank] !== null)
          .sort((a, b) => (a[rank] as number) - (b[rank] as number))
          .map((c) => c.url);
      rows.push({
        id: q.id,
        declined: prepared.passages.length === 0,
        vector: rankOf(list('vectorRank'), q.expected),
        fullText: rankOf(list('ftsRank'), q.expected),
        plainBm25: rankOf(await bm25(prepared.input.query), q.expected),
        passages: rankOf(
          prepared.passages.map((p) => p.url),
          q.expected,
        ),
        sources: rankOf(
          response.sources.map((s) => s.url),
          q.expected,
        ),
      });
    }
    const within5 = (r: number) => r > 0 && r <= 5;
    const summary = {
      answerable: rows.length,
      inEitherList: rows.filter((r) => r.vector > 0 || r.fullText > 0).length,
      inEitherListTop5: rows.filter((r) => within5(r.vector) || within5(r.fullText)).length,
      ...Object.fromEntries(STAGES.map((s) => [`${s}Top5`, rows.filter((r) => within5(r[s])).length])),
      declined: rows.filter((r) => r.declined).length,
      meanPagesInPassages: Math.round((pages.passages / Math.max(1, pages.answered)) * 100) / 100,
      meanPagesInSources: Math.round((pages.sources / Math.max(1, pages.answered)) * 100) / 100,
      unanswerableDeclined: `${unanswerableDeclined}/${unanswerable}`,
    };
    if (args.json) console.log(JSON.stringify({ summary, rows }, null, 2));
    else {
      const show = (r: number) => (r > 0 ? String(r) : '-').padStart(3);
      for (const r of rows) {
        const lost = within5(r.sources) ? '' : r.declined ? '  declined (relevance floor or off-topic gate)' : '  not in the top 5 sources';
        log(
          `${r.id.padEnd(4)} vector ${show(r.vector)}  full text ${show(r.fullText)}  plain BM25 ${show(r.plainBm25)}  passages ${show(r.passages)}  sources ${show(r.sources)}${lost}`,
        );
      }
      log(JSON.stringify(summary));
    }
  } finally {
    await pool.end();
  }
} finally {
  redis.disconnect();
  await site.close();
  await db.drop();
}
