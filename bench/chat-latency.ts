// Latency of POST /api/chat (extractive answers + local embedder) for a client with 1,000
// documents, at concurrency 1 and 16, on native Postgres + pgvector. Not part of `pnpm test`.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379 \
//     node bench/chat-latency.ts [--docs 1000] [--requests 1500] [--concurrency 1,16] [--json]
//
// The gateway runs as its own process (as in production), on a database created for the run and
// dropped after. The rate limit is raised so it never rejects, but it still runs (one Redis
// round trip per request, as in production). Every request starts a new session, so each one also
// stores a session and two messages.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { loadConfig } from '@kbchat/shared/config';
import { deleteKeys, freePort, Redis } from '@kbchat/shared/redis';
import pg from 'pg';
import { spawnNode, waitForHttp } from '../test/support/kbchat.ts';
import { createSeeder } from '../test/support/seed-documents.ts';
import { percentile } from './lib/env.ts';
import { homeServicesCorpus as corpus, HOME_QUESTIONS as QUESTIONS } from './lib/home-services.ts';

const { values: args } = parseArgs({
  options: {
    docs: { type: 'string', default: '1000' },
    requests: { type: 'string', default: '1500' },
    warmup: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '1,16' },
    json: { type: 'boolean', default: false },
  },
});

const serverUrl = process.env.DATABASE_URL;
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
if (!serverUrl) {
  process.stderr.write('Set DATABASE_URL to a Postgres server with pgvector (the benchmark is about native Postgres).\n');
  process.exit(1);
}

async function run(baseUrl: string, clientId: string, total: number, concurrency: number) {
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const t0 = performance.now();
        const res = await fetch(`${baseUrl}/api/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ clientId, message: QUESTIONS[i % QUESTIONS.length] }),
        });
        await res.arrayBuffer();
        latencies.push(performance.now() - t0);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    concurrency,
    requests: total,
    statuses: Object.fromEntries(statuses),
    throughput: +(total / seconds).toFixed(1),
    p50: +percentile(latencies, 50).toFixed(2),
    p95: +percentile(latencies, 95).toFixed(2),
    p99: +percentile(latencies, 99).toFixed(2),
    max: +(latencies.at(-1) ?? 0).toFixed(2),
  };
}

const dbName = `kbchat_bench_${Date.now().toString(36)}`;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
await admin.query(`CREATE DATABASE "${dbName}"`);
const dbUrl = new URL(serverUrl);
dbUrl.pathname = `/${dbName}`;

const port = await freePort();
const env: Record<string, string> = {
  DATABASE_URL: dbUrl.toString(),
  REDIS_URL: redisUrl,
  REDIS_PREFIX: `kbbench-${randomUUID().slice(0, 8)}`,
  HOST: '127.0.0.1',
  PORT: String(port),
  LOG_LEVEL: 'warn',
  NODE_ENV: 'production',
  CHAT_RATE_LIMIT_PER_MINUTE: '1000000',
  CHAT_VISITOR_RATE_LIMIT_PER_MINUTE: '1000000',
};
const gateway = spawnNode('services/gateway/src/main.ts', env);
const baseUrl = `http://127.0.0.1:${port}`;
try {
  await waitForHttp(`${baseUrl}/healthz`);
  const created = await fetch(`${baseUrl}/api/admin/clients`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bench Home Services' }),
  });
  const { clientId } = (await created.json()) as { clientId: string };
  const seeder = createSeeder(dbUrl.toString(), loadConfig(env));
  const docs = Number(args.docs);
  await seeder.seed(clientId, corpus('https://bench-home.example', docs));
  await seeder.pool.query('ANALYZE documents');
  const stored = (await seeder.pool.query('SELECT count(*)::int AS n FROM documents WHERE client_id = $1', [clientId])).rows[0].n;
  await seeder.close();

  await run(baseUrl, clientId, Number(args.warmup), 4);
  const results = [];
  for (const c of String(args.concurrency).split(',').map(Number)) results.push(await run(baseUrl, clientId, Number(args.requests), c));

  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`;
  if (args.json) process.stdout.write(`${JSON.stringify({ documents: stored, machine, results }, null, 2)}\n`);
  else {
    process.stdout.write(`POST /api/chat, extractive + local embedder, ${stored} documents, native Postgres (${machine})\n\n`);
    process.stdout.write(
      '| concurrency | requests | req/s | p50 ms | p95 ms | p99 ms | max ms | statuses |\n|---|---|---|---|---|---|---|---|\n',
    );
    for (const r of results) {
      process.stdout.write(
        `| ${r.concurrency} | ${r.requests} | ${r.throughput} | ${r.p50} | ${r.p95} | ${r.p99} | ${r.max} | ${JSON.stringify(r.statuses)} |\n`,
      );
    }
  }
} finally {
  gateway.kill('SIGTERM');
  await gateway.exited;
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  // The gateway's keys, and its queues' meta keys ({prefix}:…).
  await deleteKeys(redis, `*${env.REDIS_PREFIX}*`).finally(() => redis.disconnect());
  await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  await admin.end();
}
