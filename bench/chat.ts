// 1b. Chat: POST /api/chat (extractive answers + local embedder, the gateway in its own process)
// against the floor — a bare Fastify route that embeds the message the same way and runs one
// pgvector query on the same data (bench/lib/floor-server.ts) — at concurrency 1, 16 and 64 with
// autocannon, native Postgres.
//
// Ours does everything a visitor's request costs in production: validation, client lookup, the
// Redis rate limit (raised so it never rejects, still evaluated), a new session per request,
// the vector and full-text lists, ranking, the extractive answer, storing the turn.

import { loadConfig } from '@kbchat/shared/config';
import { freePort } from '@kbchat/shared/redis';
import autocannon from 'autocannon';
import {
  type BenchEnv,
  cpuSeconds,
  createClient,
  createDatabase,
  log,
  postgresCpuSampler,
  round,
  spawnNode,
  startKbchatProcess,
  waitForHttp,
} from './lib/env.ts';
import { HOME_QUESTIONS, seedHomeServices } from './lib/home-services.ts';
import type { LevelFigures } from './lib/open-loop.ts';
import { type PartResult, type Row, ratio } from './lib/report.ts';

export interface ChatOptions {
  documents: number;
  concurrency: number[];
  /** Seconds per measurement (each side, each concurrency). */
  seconds: number;
  /**
   * Floor-then-ours pairs per concurrency. Each pair is measured seconds apart, so its ratio sees
   * one state of a shared machine; the pair with the median ratio is reported (throughput of the
   * same configuration moved by ±20 % between single 10 s runs).
   */
  rounds: number;
}

interface Load extends LevelFigures {
  concurrency: number;
  /** CPU ms per request: the server process, and the Postgres backends of the run's database. */
  serverCpuMs?: number;
  postgresCpuMs?: number;
  requests: number;
  rps: number;
}

async function load(url: string, clientId: string, connections: number, seconds: number): Promise<Load> {
  let i = Math.floor(Math.random() * HOME_QUESTIONS.length);
  const result = await autocannon({
    url: `${url}/api/chat`,
    connections,
    duration: seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (req) => {
          i = (i + 1) % HOME_QUESTIONS.length;
          return { ...req, body: JSON.stringify({ clientId, message: HOME_QUESTIONS[i] }) };
        },
      },
    ],
  });
  return {
    concurrency: connections,
    requests: result.requests.total,
    rps: round(result.requests.total / result.duration, 1),
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

export async function chatBench(env: BenchEnv, options: ChatOptions): Promise<PartResult> {
  const db = await createDatabase(env.serverUrl, 'chat');
  const kb = await startKbchatProcess({
    databaseUrl: db.url,
    redisUrl: env.redisUrl,
    env: {
      RUN: 'gateway',
      EMBEDDING_PROVIDER: 'local',
      CHAT_PROVIDER: 'extractive',
      CHAT_RATE_LIMIT_PER_MINUTE: '1000000',
      CHAT_VISITOR_RATE_LIMIT_PER_MINUTE: '1000000',
    },
  });
  const floorPort = await freePort();
  const floor = spawnNode('bench/lib/floor-server.ts', { DATABASE_URL: db.url, PORT: String(floorPort) });
  const floorUrl = `http://127.0.0.1:${floorPort}`;
  const ours: Load[] = [];
  const base: Load[] = [];
  const rounds: { concurrency: number; pairs: { ours: Load; floor: Load }[] }[] = [];
  let documents = 0;
  try {
    await waitForHttp(`${floorUrl}/healthz`, 60_000, floor);
    const clientId = await createClient(kb.baseUrl, 'Bench Home Services');
    documents = await seedHomeServices(db.url, loadConfig({ ...kb.env }), clientId, options.documents);

    log(`chat: ${documents} documents seeded; warming up`);
    await load(kb.baseUrl, clientId, 4, 2);
    await load(floorUrl, clientId, 4, 2);
    // CPU per request of the server process and of Postgres, to see where the time goes.
    const measured = async (url: string, pid: number | undefined, c: number): Promise<Load> => {
      const cpu0 = cpuSeconds(pid) ?? 0;
      const pgCpu = postgresCpuSampler(env.serverUrl, db.name);
      const r = await load(url, clientId, c, options.seconds);
      const pgSeconds = await pgCpu.stop();
      const total = Math.max(1, r.requests);
      return {
        ...r,
        serverCpuMs: round((((cpuSeconds(pid) ?? 0) - cpu0) * 1000) / total, 2),
        postgresCpuMs: round((pgSeconds * 1000) / total, 2),
      };
    };
    for (const c of options.concurrency) {
      const pairs: { ours: Load; floor: Load }[] = [];
      for (let r = 0; r < options.rounds; r++) {
        // Floor first, then ours: both see the same machine within seconds.
        const b = await measured(floorUrl, floor.child.pid, c);
        const o = await measured(kb.baseUrl, kb.child.pid, c);
        pairs.push({ ours: o, floor: b });
        log(
          `  concurrency ${c}, round ${r + 1}/${options.rounds}: ours ${o.rps} req/s p50 ${o.p50} p99 ${o.p99} ms, CPU/request ${o.serverCpuMs} ms node + ${o.postgresCpuMs} ms pg; ` +
            `floor ${b.rps} req/s p50 ${b.p50} p99 ${b.p99} ms, ${b.serverCpuMs} + ${b.postgresCpuMs} ms`,
        );
      }
      const byRatio = [...pairs].sort((x, y) => x.ours.rps / x.floor.rps - y.ours.rps / y.floor.rps);
      const median = byRatio[Math.floor((byRatio.length - 1) / 2)] as { ours: Load; floor: Load };
      ours.push(median.ours);
      base.push(median.floor);
      rounds.push({ concurrency: c, pairs });
    }
  } finally {
    await floor.stop();
    await kb.stop();
    await kb.cleanRedis();
    await db.drop();
  }

  const rows: Row[] = [];
  for (const [i, o] of ours.entries()) {
    const b = base[i] as Load;
    const clean = o.errors === 0 && o.non2xx === 0;
    rows.push({
      metric: `req/s at ${o.concurrency}`,
      ours: o.rps,
      baseline: b.rps,
      ratio: ratio(o.rps, b.rps),
      target: '≥ 0.5×',
      pass: clean && o.rps >= 0.5 * b.rps,
    });
    rows.push({ metric: `p50 ms at ${o.concurrency}`, ours: o.p50, baseline: b.p50, ratio: ratio(o.p50, b.p50) });
    rows.push({
      metric: `p99 ms at ${o.concurrency}`,
      ours: o.p99,
      baseline: b.p99,
      ratio: ratio(o.p99, b.p99),
      ...(o.concurrency === 16 ? { target: '< 50 ms', pass: clean && o.p99 < 50 } : {}),
    });
    // CPU per request moves less between runs than req/s: the ratio floor/ours reads like the req/s one.
    rows.push({
      metric: `CPU ms per request at ${o.concurrency} (server + Postgres; ratio floor/ours)`,
      ours: `${o.serverCpuMs} + ${o.postgresCpuMs}`,
      baseline: `${b.serverCpuMs} + ${b.postgresCpuMs}`,
      ratio: cpuRatio({ ours: o, floor: b }),
    });
    if (!clean)
      rows.push({
        metric: `errors / non-2xx at ${o.concurrency}`,
        ours: `${o.errors} / ${o.non2xx}`,
        baseline: `${b.errors} / ${b.non2xx}`,
      });
  }
  return {
    part: 'chat',
    title: '1b. Chat: POST /api/chat vs the bare pgvector floor',
    oursLabel: `POST /api/chat, extractive + local embedder, gateway process, ${documents} documents of one client, a new session per request`,
    baselineLabel: 'bare Fastify route: local embedding + one pgvector top-20 query, same data',
    rows,
    notes: [
      `autocannon, ${options.seconds} s per level and side, native Postgres; ${options.rounds} floor-then-ours pair(s) per level, the pair with the median req/s ratio reported; the p50/p99 ratio is ours/floor (lower is better).`,
      ...rounds.map(
        (l) =>
          `At ${l.concurrency}, every pair: req/s ratio ${l.pairs.map((p) => ratio(p.ours.rps, p.floor.rps)).join(' / ')}; CPU ratio (floor/ours) ${l.pairs.map(cpuRatio).join(' / ')}; ours p99 ${l.pairs.map((p) => p.ours.p99).join(' / ')} ms, floor p99 ${l.pairs.map((p) => p.floor.p99).join(' / ')} ms.`,
      ),
    ],
    details: { documents, ours, floor: base, rounds },
  };
}

/** The floor's CPU per request (server + Postgres) over ours: what the req/s ratio would be if CPU were all that limits both. */
function cpuRatio(pair: { ours: Load; floor: Load }): number | undefined {
  const total = (l: Load) => (l.serverCpuMs ?? 0) + (l.postgresCpuMs ?? 0);
  return total(pair.ours) > 0 ? ratio(total(pair.floor), total(pair.ours)) : undefined;
}
