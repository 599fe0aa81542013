// Where a chat request's CPU goes (docs/performance.md, 1b), one step at a time on the chat bench's
// data (1,000 generated chunks of one client, term statistics refreshed, VACUUM ANALYZEd):
//   - Postgres: backend CPU (/proc of the one connection's backend) per statement: the floor's
//     query, the client row, the search function with each list on and off, storing the turns.
//   - Node: this process's CPU (process.cpuUsage) per step of the chat service, sequentially.
// Not part of `pnpm bench`; needs native Postgres (a backend pid to read) and Redis.
//
//   node bench/chat-costs.ts [--runs 600] [--documents 1000] [--json]
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createChatService, type PreparedChat } from '@kbchat/shared/chat/chat-service';
import { rankPassages } from '@kbchat/shared/chat/retrieval';
import { loadConfig } from '@kbchat/shared/config';
import { findClient, insertClient } from '@kbchat/shared/db/clients';
import { appendTurns } from '@kbchat/shared/db/messages';
import { migrate } from '@kbchat/shared/db/migrate';
import { createPool, toVector } from '@kbchat/shared/db/pool';
import { type CandidateResult, searchCandidates } from '@kbchat/shared/db/retrieval';
import { createLogger } from '@kbchat/shared/logger';
import { embedLocal } from '@kbchat/shared/providers/embeddings/local-embedder';
import { Redis } from 'ioredis';
import { benchEnv, cpuSeconds, createDatabase, log, round } from './lib/env.ts';
import { HOME_QUESTIONS, seedHomeServices } from './lib/home-services.ts';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '600' },
    documents: { type: 'string', default: '1000' },
    json: { type: 'boolean', default: false },
  },
});
const runs = Number(args.runs);
const env = benchEnv();
const db = await createDatabase(env.serverUrl, 'chatcosts');
const config = loadConfig({
  DATABASE_URL: db.url,
  REDIS_URL: env.redisUrl,
  REDIS_PREFIX: `kbbench-costs-${randomUUID().slice(0, 8)}`,
  EMBEDDING_PROVIDER: 'local',
  CHAT_PROVIDER: 'extractive',
});
await migrate(db.url);
const pool = await createPool({ connectionString: db.url, max: 1 });
const redis = new Redis(env.redisUrl);
const results: { postgres: Record<string, number>; node: Record<string, number> } = { postgres: {}, node: {} };
const question = (i: number) => HOME_QUESTIONS[i % HOME_QUESTIONS.length] as string;

/** CPU ms (user + system) of the backend, from /proc (clock ticks of 10 ms). */
function backendCpuMs(pid: number): number {
  const seconds = cpuSeconds(pid);
  if (seconds === undefined) throw new Error(`no /proc entry for backend ${pid}`);
  return seconds * 1000;
}

async function measure(kind: 'postgres' | 'node', name: string, step: (i: number) => Promise<unknown> | unknown, pid = 0) {
  for (let i = 0; i < 100; i++) await step(i);
  const before = kind === 'postgres' ? backendCpuMs(pid) : 0;
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < runs; i++) await step(i);
  const cpu = process.cpuUsage(cpu0);
  const ms = kind === 'postgres' ? (backendCpuMs(pid) - before) / runs : (cpu.user + cpu.system) / 1000 / runs;
  results[kind][name] = round(ms, 3);
  log(`  ${kind.padEnd(8)} ${name.padEnd(64)} ${ms.toFixed(3)} ms`);
}

try {
  const client = await insertClient(pool, { name: 'Bench Home Services' });
  await seedHomeServices(db.url, config, client.id, Number(args.documents));
  const service = createChatService({ config, log: createLogger({ level: 'warn' }), pool, redis });
  const model = service.embeddings.model;
  const vectors = HOME_QUESTIONS.map((q) => embedLocal(q));
  const pid = Number((await pool.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
  // The gateway's own call (searchCandidates); a list is left out by passing no vector / fullText false.
  const search = (i: number, vector = true, fullText = true) =>
    searchCandidates(pool, {
      clientId: client.id,
      embeddingModel: model,
      embedding: vector ? vectors[i % vectors.length] : undefined,
      query: question(i),
      k: config.RETRIEVAL_CANDIDATES,
      exactScanMaxDocs: config.RETRIEVAL_EXACT_SCAN_MAX_DOCS,
      efSearch: config.RETRIEVAL_HNSW_EF_SEARCH,
      fullText,
    });
  const turns = (i: number) =>
    appendTurns(pool, client.id, randomUUID(), [
      { role: 'user', content: question(i) },
      {
        role: 'assistant',
        content: 'A composed answer of a few sentences, as the extractive provider writes them. '.repeat(4),
        sources: [{ title: 'Boiler service', url: 'https://bench-home.example/boiler' }],
        leadCaptureIntent: false,
      },
    ]);

  log(`chat costs: ${runs} runs per step, one connection`);
  await measure(
    'postgres',
    'the floor: BEGIN, three SET LOCAL, the HNSW top-20, COMMIT',
    async (i) => {
      await pool.query('BEGIN');
      await pool.query('SET LOCAL hnsw.ef_search = 100; SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL enable_sort = off');
      await pool.query(
        `SELECT id, url, title, content, 1 - (embedding <=> $2::vector) AS similarity
           FROM documents WHERE client_id = $1 AND embedding IS NOT NULL
          ORDER BY embedding <=> $2::vector LIMIT 20`,
        [client.id, toVector(vectors[i % vectors.length] as number[])],
      );
      await pool.query('COMMIT');
    },
    pid,
  );
  await measure('postgres', 'the client row', () => findClient(pool, client.id), pid);
  await measure('postgres', 'search function, neither list', (i) => search(i, false, false), pid);
  await measure('postgres', 'search function, vector list only', (i) => search(i, true, false), pid);
  await measure('postgres', 'search function, full-text list only', (i) => search(i, false, true), pid);
  await measure('postgres', 'search function, both lists (a request)', (i) => search(i, true, true), pid);
  await measure('postgres', 'storing the session and both messages', turns, pid);
  await measure('postgres', 'SELECT 1', () => pool.query('SELECT 1'), pid);

  const candidates: CandidateResult[] = [];
  for (let i = 0; i < HOME_QUESTIONS.length; i++) candidates.push(await search(i));
  const prepared: PreparedChat[] = [];
  for (let i = 0; i < HOME_QUESTIONS.length; i++) prepared.push(await service.prepare({ client, message: question(i) }));
  await measure('node', 'answer(): retrieval, answer, storing the turns', (i) => service.answer({ client, message: question(i) }));
  await measure('node', 'the client row', () => findClient(pool, client.id));
  await measure('node', 'the search round trip', (i) => search(i));
  await measure('node', 'rankPassages (scoring, fusion, near-duplicates, pages)', (i) => {
    const c = candidates[i % candidates.length] as CandidateResult;
    return rankPassages(c.candidates, c, service.settings);
  });
  await measure('node', 'the extractive answer', (i) => service.chat.answer((prepared[i % prepared.length] as PreparedChat).input));
  await measure('node', 'storing the turns', turns);
  await measure('node', 'the local query embedding', (i) => embedLocal(question(i)));
  await measure('node', 'a Redis round trip (PING)', () => redis.ping());
  await measure('node', 'SELECT 1', () => pool.query('SELECT 1'));
  if (args.json) console.log(JSON.stringify(results, null, 2));
} finally {
  await pool.end();
  redis.disconnect();
  await db.drop();
}
