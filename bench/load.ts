// Issue 22 item 4. Chat at an offered load: an open-loop generator (bench/lib/open-loop.ts) sends
// POST /api/chat at a constant arrival rate — 100 and 300 requests/s — round-robin over 50 clients
// and the bench questions, each request a new session, and measures each request from its scheduled
// send time to the end of its response. The gateway runs in its own process (extractive answers +
// local embedder, rate limits raised so they never reject). Baseline, in the same run at the same
// rates: the same generator against a bare Fastify route in its own process (bench/lib/bare-server.ts).
// Then the OpenAI path — CHAT_PROVIDER=openai against the fake model server in a process of its own
// (bench/lib/fake-openai-server.ts), local embeddings — where the figure is the time the service
// adds before the model is called: scheduled send → the fake has the chat-completion request.

import { loadConfig } from '@kbchat/shared/config';
import { refreshTermStats } from '@kbchat/shared/db/retrieval';
import { freePort } from '@kbchat/shared/redis';
import { createSeeder } from '../test/support/seed-documents.ts';
import {
  type BenchEnv,
  type Child,
  cpuSeconds,
  createClient,
  createDatabase,
  type KbchatProcess,
  log,
  postgresCpuSampler,
  round,
  runQueueSeconds,
  spawnNode,
  startKbchatProcess,
  waitForHttp,
} from './lib/env.ts';
import { HOME_QUESTIONS, homeServicesCorpus } from './lib/home-services.ts';
import { type LatencySummary, nowMs, type OpenLoopResult, openLoop, summarize } from './lib/open-loop.ts';
import type { PartResult, Row } from './lib/report.ts';

export interface LoadOptions {
  clients: number;
  /** Chunks per client (5 per page). */
  documentsPerClient: number;
  rates: number[];
  seconds: number;
  warmupSeconds: number;
}

interface Level extends LatencySummary {
  rate: number;
  /** CPU ms per request: the server process, and the Postgres backends of the run's database. */
  serverCpuMs?: number;
  postgresCpuMs?: number;
  /** ms per request the server process's threads, and the Postgres backends, waited runnable for a CPU. */
  serverRunQueueMs?: number;
  postgresRunQueueMs?: number;
  /** OpenAI path: scheduled send → the fake model server has the request. */
  beforeModel?: LatencySummary;
  /** OpenAI path: CPU ms per request of the fake model server (on this machine, unlike a real API). */
  fakeCpuMs?: number;
}

const ORIGIN = (k: number) => `https://client-${String(k).padStart(2, '0')}.bench-home.example`;

/**
 * Each client a 40-page slice (at 200 chunks) of the generated home-services site, the slices
 * rotating over the corpus, so a question finds its page in some clients and only neighbours in others.
 */
async function seedClients(databaseUrl: string, kb: KbchatProcess, options: LoadOptions): Promise<{ ids: string[]; documents: number }> {
  const config = loadConfig({ ...kb.env });
  const seeder = createSeeder(databaseUrl, config);
  const ids: string[] = [];
  try {
    for (let k = 0; k < options.clients; k++) {
      const id = await createClient(kb.baseUrl, `Bench Home Services ${k + 1}`);
      const all = homeServicesCorpus(ORIGIN(k), 1000);
      const perClient = Math.ceil(options.documentsPerClient / 5);
      const start = (k * perClient) % all.length;
      const pages = [...all, ...all].slice(start, start + perClient);
      await seeder.seed(id, pages);
      await refreshTermStats(seeder.pool, id);
      ids.push(id);
    }
    // The steady state autovacuum keeps (statistics, the GIN pending list merged), as in part chat.
    await seeder.pool.query('VACUUM ANALYZE documents');
    const { rows } = await seeder.pool.query('SELECT count(*)::int AS n FROM documents');
    return { ids, documents: rows[0].n };
  } finally {
    await seeder.close();
  }
}

export async function loadBench(env: BenchEnv, options: LoadOptions): Promise<PartResult> {
  const db = await createDatabase(env.serverUrl, 'load');
  const gatewayEnv = {
    RUN: 'gateway',
    EMBEDDING_PROVIDER: 'local',
    CHAT_RATE_LIMIT_PER_MINUTE: '1000000',
    CHAT_VISITOR_RATE_LIMIT_PER_MINUTE: '1000000',
  };
  let kb: KbchatProcess | undefined;
  let bare: Child | undefined;
  let fake: Child | undefined;
  const extractive: Level[] = [];
  const openai: Level[] = [];
  const baseline: Level[] = [];
  let seeded = { ids: [] as string[], documents: 0 };
  // A request id unique over the whole part: the OpenAI path finds its requests at the fake by it.
  let seq = 0;
  const body = (clientIds: string[], base: number) => (i: number) => {
    const n = base + i;
    return JSON.stringify({
      clientId: clientIds[i % clientIds.length],
      // Round-robin over clients and questions without pairing a client with the same few questions.
      message: HOME_QUESTIONS[(i + Math.floor(i / clientIds.length)) % HOME_QUESTIONS.length],
      // A page of the site that holds no chunk (no page boost), as the widget sends with every message.
      context: { pageUrl: `${ORIGIN(i % clientIds.length)}/contact?req=${n}` },
    });
  };
  const run = async (url: string, rate: number, seconds: number) => {
    const base = seq;
    seq += Math.round(rate * seconds);
    return { base, result: await openLoop({ url: `${url}/api/chat`, rate, seconds, body: body(seeded.ids, base) }) };
  };
  const measured = async (
    url: string,
    pid: number | undefined,
    rate: number,
    extra?: (r: OpenLoopResult, base: number) => Partial<Level>,
  ) => {
    for (const server of [kb, bare]) {
      if (server && (server.child.exitCode !== null || server.child.signalCode !== null))
        throw new Error(`a server exited before the level: ${server.output().slice(-3000)}`);
    }
    const cpu0 = cpuSeconds(pid) ?? 0;
    const wait0 = runQueueSeconds(pid) ?? 0;
    const pgCpu = postgresCpuSampler(env.serverUrl, db.name);
    const { base, result } = await run(url, rate, options.seconds);
    const pgSeconds = await pgCpu.stop();
    const n = Math.max(1, result.requests.length);
    const level: Level = {
      rate,
      ...summarize(result),
      serverCpuMs: round((((cpuSeconds(pid) ?? 0) - cpu0) * 1000) / n, 2),
      postgresCpuMs: round((pgSeconds * 1000) / n, 2),
      serverRunQueueMs: round((((runQueueSeconds(pid) ?? 0) - wait0) * 1000) / n, 2),
      postgresRunQueueMs: round((pgCpu.waited() * 1000) / n, 2),
      ...extra?.(result, base),
    };
    return level;
  };
  const show = (label: string, l: Level) =>
    log(
      `  ${label} at ${l.rate}/s: achieved ${l.achievedRps}/s, p50 ${l.p50} p90 ${l.p90} p99 ${l.p99} max ${l.max} ms, errors ${l.errors}, non-2xx ${l.non2xx}, ` +
        `generator lag p99 ${l.sendLagP99} ms, in flight ≤ ${l.peakInFlight}, CPU/request ${l.serverCpuMs} ms node + ${l.postgresCpuMs} ms pg, waiting for a CPU ${l.serverRunQueueMs} + ${l.postgresRunQueueMs} ms` +
        (l.beforeModel
          ? `; before the model p50 ${l.beforeModel.p50} p90 ${l.beforeModel.p90} p99 ${l.beforeModel.p99} max ${l.beforeModel.max} ms`
          : '') +
        (l.firstError ? `; first error: ${l.firstError}` : ''),
    );

  try {
    kb = await startKbchatProcess({ databaseUrl: db.url, redisUrl: env.redisUrl, env: { ...gatewayEnv, CHAT_PROVIDER: 'extractive' } });
    const bareUrl = `http://127.0.0.1:${await freePort()}`;
    bare = spawnNode('bench/lib/bare-server.ts', { PORT: new URL(bareUrl).port });
    await waitForHttp(`${bareUrl}/healthz`, 60_000, bare);
    const seedStarted = performance.now();
    seeded = await seedClients(db.url, kb, options);
    log(
      `load: ${seeded.documents} documents for ${seeded.ids.length} clients seeded in ${Math.round((performance.now() - seedStarted) / 1000)} s; warming up`,
    );

    await run(bareUrl, 100, options.warmupSeconds);
    await run(kb.baseUrl, 100, options.warmupSeconds);
    for (const rate of options.rates) {
      // Baseline first, then ours: both see the same machine within seconds.
      const b = await measured(bareUrl, bare.child.pid, rate);
      show('bare route', b);
      baseline.push(b);
      const o = await measured(kb.baseUrl, kb.child.pid, rate);
      show('extractive', o);
      extractive.push(o);
    }
    await kb.stop();
    await kb.cleanRedis();
    kb = undefined;

    // The OpenAI path: the fake model server in its own process, announcing each request it gets.
    fake = spawnNode('bench/lib/fake-openai-server.ts', {});
    const modelCalledAt = new Map<number, number>();
    let pending = '';
    fake.child.stdout?.on('data', (d: Buffer) => {
      pending += d.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const m = /^M (\d+) ([\d.]+)$/.exec(line);
        if (m) modelCalledAt.set(Number(m[1]), Number(m[2]));
      }
    });
    const [fakeBaseUrl, fakeKey] = await new Promise<[string, string]>((resolve, reject) => {
      const deadline = setTimeout(() => reject(new Error(`fake model server did not start:\n${fake?.output()}`)), 30_000);
      const check = () => {
        const m = /READY (\S+) (\S+)/.exec(fake?.output() ?? '');
        if (m?.[1] && m[2]) {
          clearTimeout(deadline);
          resolve([m[1], m[2]]);
        } else setTimeout(check, 50);
      };
      check();
    });
    kb = await startKbchatProcess({
      databaseUrl: db.url,
      redisUrl: env.redisUrl,
      env: {
        ...gatewayEnv,
        CHAT_PROVIDER: 'openai',
        OPENAI_API_KEY: fakeKey,
        OPENAI_BASE_URL: fakeBaseUrl,
      },
    });
    await run(kb.baseUrl, 100, options.warmupSeconds);
    for (const rate of options.rates) {
      const fakeCpu0 = cpuSeconds(fake.child.pid) ?? 0;
      const started = nowMs();
      const o = await measured(kb.baseUrl, kb.child.pid, rate, (result, base) => ({
        beforeModel: summarize(result, (i) => modelCalledAt.get(base + i)),
        fakeCpuMs: round((((cpuSeconds(fake?.child.pid) ?? 0) - fakeCpu0) * 1000) / Math.max(1, result.requests.length), 2),
      }));
      const called = [...modelCalledAt.values()].filter((t) => t >= started).length;
      if (called < o.requests - o.errors) log(`  warning: the fake saw ${called} chat completions for ${o.requests} requests`);
      show('openai (fake model)', o);
      openai.push(o);
    }
  } finally {
    await bare?.stop();
    await kb?.stop();
    await kb?.cleanRedis();
    await fake?.stop();
    await db.drop();
  }

  const clean = (l: Level) => l.errors === 0 && l.non2xx === 0;
  const ms = (l: LatencySummary) => `${l.p50} / ${l.p90} / ${l.p99} / ${l.max}`;
  const rows: Row[] = [];
  for (const [i, o] of extractive.entries()) {
    const b = baseline[i] as Level;
    rows.push({
      metric: `extractive, ${o.rate} req/s offered: p50 / p90 / p99 / max ms`,
      ours: ms(o),
      baseline: ms(b),
      ratio: +(o.p99 / b.p99).toFixed(1),
      ...(o.rate === 100 ? { target: 'p99 ≤ 25 ms', pass: clean(o) && o.p99 <= 25 } : {}),
    });
    rows.push({ metric: `extractive, ${o.rate} req/s offered: achieved req/s`, ours: o.achievedRps, baseline: b.achievedRps });
    rows.push({
      metric: `extractive, ${o.rate} req/s offered: errors / non-2xx`,
      ours: `${o.errors} / ${o.non2xx}`,
      baseline: `${b.errors} / ${b.non2xx}`,
    });
    rows.push({
      metric: `extractive, ${o.rate} req/s offered: ms per request on a CPU / runnable waiting for one (server + Postgres)`,
      ours: `${o.serverCpuMs} + ${o.postgresCpuMs} / ${o.serverRunQueueMs} + ${o.postgresRunQueueMs}`,
      baseline: `${b.serverCpuMs} / ${b.serverRunQueueMs}`,
    });
  }
  for (const o of openai) {
    const b = baseline.find((l) => l.rate === o.rate);
    if (o.beforeModel)
      rows.push({
        metric: `OpenAI path (fake model), ${o.rate} req/s offered: time added before the model is called, p50 / p90 / p99 / max ms`,
        ours: ms(o.beforeModel),
        ...(b ? { baseline: ms(b), ratio: +(o.beforeModel.p99 / b.p99).toFixed(1) } : {}),
      });
    rows.push({
      metric: `OpenAI path (fake model), ${o.rate} req/s offered: whole request p50 / p90 / p99 / max ms; achieved req/s; errors / non-2xx`,
      ours: `${ms(o)}; ${o.achievedRps}; ${o.errors} / ${o.non2xx}`,
    });
  }
  return {
    part: 'load',
    title: '22.4 Chat at an offered load: open loop, 50 clients',
    oursLabel: `POST /api/chat on a gateway process, local embedder, ${seeded.documents} documents over ${seeded.ids.length} clients, a new session per request`,
    baselineLabel: 'the same generator against a bare Fastify route (parse the body, answer a small JSON object) in its own process',
    rows,
    notes: [
      `Open loop: requests sent at fixed times (one every ${(1000 / (options.rates[0] ?? 100)).toFixed(1)} ms at ${options.rates[0]}/s), ${options.seconds} s per level, after ${options.warmupSeconds} s of warm-up per server; latency from the scheduled send to the end of the response; keep-alive sockets, never waiting for one. Ratio: ours' p99 over the bare route's.`,
      ...[...extractive, ...openai, ...baseline].map(
        (l, i) =>
          `${i < extractive.length ? 'extractive' : i < extractive.length + openai.length ? 'openai' : 'bare route'} at ${l.rate}/s: generator lag p99 ${l.sendLagP99} / max ${l.sendLagMax} ms, in flight ≤ ${l.peakInFlight}, CPU ms per request ${l.serverCpuMs} server + ${l.postgresCpuMs} Postgres${l.fakeCpuMs !== undefined ? ` + ${l.fakeCpuMs} fake model server` : ''}; ms per request runnable but waiting for a CPU ${l.serverRunQueueMs} server + ${l.postgresRunQueueMs} Postgres.`,
      ),
    ],
    details: { documents: seeded.documents, clients: seeded.ids.length, extractive, openai, baseline, options },
  };
}
