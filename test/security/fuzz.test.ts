// Issue 5 §4: a fuzz test over every endpoint. Over 10,000 generated requests through the gateway's
// real Fastify instance (app.inject: same hooks, parsers, handlers, Postgres and Redis as over HTTP)
// and a few hundred more over real sockets. Asserted for every one: no 5xx, every error a JSON
// { error, details }. Every write to the database is logged by a trigger (in a database of this
// file's own) and must belong to a request that was answered 2xx: no 4xx writes a row. The
// process is healthy afterwards.

import type { AddressInfo } from 'node:net';
import net from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, installWriteLog, type ScratchDatabase } from '../support/scratch-database.ts';
import { createSeeder } from '../support/seed-documents.ts';
import { anyRouteCases, type FuzzCase, type FuzzTargets, fuzzCases } from './support/fuzz-bodies.ts';
import { buildGatewayApp, type GatewayApp } from './support/gateway-app.ts';
import { listRoutes } from './support/routes.ts';

/** Requests per endpoint through app.inject, plus ANY_ROUTE spread over every route of the router: 11,800 in all. */
const INJECTED: Record<string, number> = {
  'POST /api/chat': 2000,
  'POST /api/chat/stream': 1300,
  'POST /api/lead': 2000,
  'POST /api/admin/crawl': 1100,
  'POST /api/admin/generate-embeddings': 700,
  'POST /api/admin/clients': 1000,
  'PATCH /api/admin/clients/:clientId': 900,
  'GET /api/admin/*': 1000,
  'OPTIONS (preflight)': 300,
};
const ANY_ROUTE = 1500;
const OVER_HTTP = 400;
/** FUZZ_SCALE=10 runs ten times as many (a deeper local run; the suite runs 1). */
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
const ADMIN_KEY = 'fuzz-test-admin-key-0123456789abcdef';
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

interface Answer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

/** Which rows a 2xx answer was entitled to write. */
class Entitlements {
  clients = new Set<string>();
  patchedClients = new Set<string>();
  sessions = new Set<string>();
  chatClients = new Set<string>();
  leads = new Set<string>();
  jobs = new Set<string>();
  sources = new Set<string>();
  embeddingClients = new Set<string>();
  chats2xx = 0;
  /** A crawl asked for while one of the same source is unfinished joins it: one job, however many 2xx answers. */
  crawlJobs = new Set<string>();
  embeddingRuns2xx = 0;

  /** Whether a logged write belongs to a request that was answered 2xx. */
  covers(tbl: string, op: string, row: Record<string, unknown>): boolean {
    const id = String(row.id);
    const session = `${row.client_id}/${row.session_id}`;
    switch (tbl) {
      case 'clients':
        return (op === 'INSERT' && this.clients.has(id)) || (op === 'UPDATE' && this.patchedClients.has(id));
      case 'sessions':
      case 'messages':
        return op !== 'DELETE' && this.sessions.has(session);
      case 'usage':
        return op !== 'DELETE' && this.chatClients.has(String(row.client_id));
      case 'leads':
        return op !== 'DELETE' && this.leads.has(id);
      case 'jobs':
        // A generate-embeddings run that finished at once answers the spec's 200 body, which names no job.
        if (row.kind === 'generate-embeddings' && this.embeddingClients.has(String(row.client_id))) return op !== 'DELETE';
        return op !== 'DELETE' && this.jobs.has(id);
      case 'sources':
        return op !== 'DELETE' && this.sources.has(id);
      case 'crawl_urls':
        return op !== 'DELETE' && this.jobs.has(String(row.job_id));
      case 'documents':
        return op === 'UPDATE' && this.embeddingClients.has(String(row.client_id));
      default:
        return false;
    }
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The client a request body named, as the database spells it (the gateway trims and accepts any case). */
function requestClientId(c: FuzzCase): string {
  const body = parseJson(String(c.payload).replace(/^\ufeff/, '')) as { clientId?: string } | undefined;
  return String(body?.clientId ?? '')
    .trim()
    .toLowerCase();
}

/** Judges one answer; records what a 2xx was entitled to write. Returns a failure description or undefined. */
function judge(c: FuzzCase, res: Answer, ent: Entitlements): string | undefined {
  const type = String(res.headers['content-type'] ?? '');
  if (res.status >= 500) return `${res.status} ${res.body.slice(0, 300)}`;
  if (res.status >= 400) {
    if (!type.startsWith('application/json')) return `${res.status} with content-type ${type}`;
    if (c.method === 'HEAD') return undefined;
    const body = parseJson(res.body) as { error?: unknown; details?: unknown } | undefined;
    // The queue dashboard's own API (bull-board, behind the admin key) answers its own page in that
    // page's format, { error: { key } } — the key is what the page translates. Documented in docs/SECURITY.md.
    const dashboard = (body?.error as { key?: unknown } | undefined)?.key;
    if (c.url.startsWith('/admin/queues/api/') && typeof dashboard === 'string') return undefined;
    if (!body || typeof body.error !== 'string' || body.error === '')
      return `${res.status} without an error string: ${res.body.slice(0, 200)}`;
    const details = body.details;
    const ok = typeof details === 'string' || (Array.isArray(details) && details.every((d) => typeof d === 'string'));
    if (!ok) return `${res.status} with details ${JSON.stringify(details)?.slice(0, 200)}`;
    if (/\bat .+\.ts:\d+|SELECT |INSERT |violates|stack/i.test(res.body)) return `${res.status} leaks internals: ${res.body.slice(0, 300)}`;
    return undefined;
  }
  if (res.status === 204 || c.method === 'GET' || c.method === 'HEAD' || c.method === 'OPTIONS') return undefined;
  if (res.status < 200 || res.status >= 300) return `unexpected status ${res.status}`;

  if (c.endpoint === 'POST /api/chat/stream') {
    if (!type.startsWith('text/event-stream')) return `stream 200 with content-type ${type}`;
    const done = /event: done\ndata: (.*)\n\n$/.exec(res.body);
    if (!done) return /event: error\ndata: .*\n\n$/.test(res.body) ? undefined : `stream without a final event: ${res.body.slice(-200)}`;
    const event = parseJson(done[1] ?? '') as { sessionId?: string } | undefined;
    ent.sessions.add(`${requestClientId(c)}/${event?.sessionId}`);
    ent.chatClients.add(requestClientId(c));
    ent.chats2xx++;
    return undefined;
  }
  const body = parseJson(res.body) as Record<string, string> | undefined;
  if (!body) return `2xx that is not JSON: ${res.body.slice(0, 200)}`;
  switch (c.endpoint) {
    case 'POST /api/chat':
      ent.sessions.add(`${requestClientId(c)}/${body.sessionId}`);
      ent.chatClients.add(requestClientId(c));
      ent.chats2xx++;
      break;
    case 'POST /api/lead':
      ent.leads.add(String(body.leadId));
      break;
    case 'POST /api/admin/crawl':
    case 'POST /api/admin/generate-embeddings':
      if (body.jobId) ent.jobs.add(body.jobId);
      if (body.sourceId) ent.sources.add(body.sourceId);
      if (c.endpoint === 'POST /api/admin/generate-embeddings') {
        ent.embeddingClients.add(requestClientId(c));
        ent.embeddingRuns2xx++;
      } else if (body.jobId) ent.crawlJobs.add(body.jobId);
      break;
    case 'POST /api/admin/clients':
      ent.clients.add(String(body.clientId));
      break;
    case 'PATCH /api/admin/clients/:clientId':
      ent.patchedClients.add(String(body.clientId));
      break;
  }
  return undefined;
}

async function runPool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

/** Bytes on a socket, for what fetch will not send: protocol-level oddities. */
function rawExchange(port: number, request: Buffer | string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      data += d;
      // One response is enough; keep-alive would leave the socket open.
      if (/\r\n\r\n/.test(data)) {
        const length = /content-length: (\d+)/i.exec(data)?.[1];
        const headerEnd = data.indexOf('\r\n\r\n') + 4;
        if (length === undefined || data.length - headerEnd >= Number(length)) socket.end();
      }
    });
    socket.on('end', () => resolve(data));
    socket.on('close', () => resolve(data));
    socket.on('error', (err) => (data ? resolve(data) : reject(err)));
    socket.setTimeout(10_000, () => {
      socket.destroy();
      resolve(data);
    });
    socket.write(request);
  });
}

describe('fuzzing every endpoint', () => {
  let db: ScratchDatabase;
  let g: GatewayApp;
  let targets: FuzzTargets;
  let baseUrl: string;
  const ent = new Entitlements();
  const statuses = new Map<string, Map<number, number>>();
  const failures: string[] = [];
  let tried = 0;
  let fiveXx = 0;

  const tally = (endpoint: string, status: number) => {
    const m = statuses.get(endpoint) ?? new Map<number, number>();
    m.set(status, (m.get(status) ?? 0) + 1);
    statuses.set(endpoint, m);
    tried++;
    if (status >= 500) fiveXx++;
  };
  const reasons = new Map<string, number>();
  const record = (c: FuzzCase, res: Answer, via: string) => {
    tally(c.endpoint, res.status);
    if (res.status >= 400) {
      const b = parseJson(res.body) as { error?: string; details?: string | string[] } | undefined;
      const first = Array.isArray(b?.details) ? b?.details[0] : b?.details;
      const key = `${c.endpoint} ${res.status} ${b?.error}: ${String(first).replace(/\d+/g, 'N').slice(0, 50)}`;
      reasons.set(key, (reasons.get(key) ?? 0) + 1);
    }
    const problem = judge(c, res, ent);
    if (problem && failures.length < 15) {
      const payload = typeof c.payload === 'string' ? c.payload.slice(0, 150) : c.payload?.toString('base64').slice(0, 150);
      failures.push(
        `[${via}] ${c.method} ${c.url.slice(0, 150)} ${JSON.stringify(c.headers)} ${JSON.stringify(payload)} → ${problem.slice(0, 300)}`,
      );
    }
  };

  beforeAll(async () => {
    db = await createScratchDatabase();
    g = await buildGatewayApp({
      DATABASE_URL: db.url,
      ADMIN_API_KEY: ADMIN_KEY,
      CHAT_RATE_LIMIT_PER_MINUTE: '1000000',
      LEAD_RATE_LIMIT_PER_HOUR: '1000000',
      ADMIN_AUTH_FAILURES_PER_MINUTE: '1000000',
      // No crawler or embedder runs here: the admin endpoints answer 202 at once instead of waiting.
      CRAWL_SYNC_WAIT_MS: '0',
    });
    const create = async (payload: Record<string, unknown>) => {
      const res = await g.app.inject({
        method: 'POST',
        url: '/api/admin/clients',
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
        payload,
      });
      return (res.json() as { clientId: string }).clientId;
    };
    targets = {
      clientId: await create({ name: 'Fuzz Plumbing' }),
      lockedClientId: await create({ name: 'Locked Shop', allowedOrigins: ['https://shop.example'] }),
      patchClientId: await create({ name: 'Patch Target' }),
      pipelineClientId: await create({ name: 'Pipeline Target' }),
      adminKey: ADMIN_KEY,
    };
    const seeder = createSeeder(db.url, g.rt.config);
    try {
      for (const clientId of [targets.clientId, targets.lockedClientId, targets.pipelineClientId]) {
        await seeder.seed(clientId, [
          {
            url: `https://fuzz-${clientId.slice(0, 8)}.example/hours`,
            title: 'Opening hours',
            chunks: ['We are open Monday to Friday from 8 am to 6 pm, and on Saturdays from 9 am to noon.'],
          },
          {
            url: `https://fuzz-${clientId.slice(0, 8)}.example/boilers`,
            title: 'Boiler repair',
            chunks: ['We repair and service gas boilers of every make. An engineer visit costs 95 pounds.'],
          },
        ]);
      }
    } finally {
      await seeder.close();
    }
    await installWriteLog(g.rt.pool);
    await g.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(g.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await g?.close();
    await db?.drop();
  });

  it(`answers ${Object.values(INJECTED).reduce((a, b) => a + b) + ANY_ROUTE} generated requests (app.inject) without a 5xx, every error JSON`, async () => {
    const arbitraries = fuzzCases(targets);
    const cases: FuzzCase[] = [];
    let i = 0;
    for (const [endpoint, n] of Object.entries(INJECTED)) {
      const arb = arbitraries[endpoint];
      if (!arb) throw new Error(`no generator for ${endpoint}`);
      cases.push(...fc.sample(arb, { numRuns: n * SCALE, seed: SEED + i++ }));
    }
    const routes = listRoutes(g.app);
    cases.push(...fc.sample(anyRouteCases(targets, routes), { numRuns: ANY_ROUTE * SCALE, seed: SEED + i++ }));
    // Interleaved, so concurrent requests hit different endpoints at once.
    const shuffled = fc.sample(fc.shuffledSubarray(cases, { minLength: cases.length }), { numRuns: 1, seed: SEED })[0] ?? cases;
    await runPool(shuffled, 16, async (c) => {
      const res = await g.app.inject({
        method: c.method,
        url: c.url,
        headers: c.headers,
        ...(c.payload === undefined ? {} : { payload: c.payload }),
      });
      record(c, { status: res.statusCode, headers: res.headers, body: res.body }, 'inject');
    });
    expect(failures, `seed ${SEED}`).toEqual([]);
    expect(tried).toBeGreaterThanOrEqual(11_800);
    // Every route of the router was hit at least once.
    const hit = new Set(cases.map((c) => c.endpoint));
    expect(routes.filter((r) => !hit.has(`${r.method} ${r.url}`)).map((r) => `${r.method} ${r.url}`)).toEqual([]);
  });

  it(`answers ${OVER_HTTP} more over real HTTP, and protocol-level oddities, the same way`, async () => {
    const arbitraries = Object.values(fuzzCases(targets));
    const cases = fc.sample(fc.oneof(...arbitraries), { numRuns: OVER_HTTP, seed: SEED + 1000 });
    let sent = 0;
    await runPool(cases, 8, async (c) => {
      let response: Response;
      try {
        response = await fetch(new URL(c.url, baseUrl), {
          method: c.method,
          headers: c.headers,
          ...(c.payload === undefined ? {} : { body: typeof c.payload === 'string' ? c.payload : new Uint8Array(c.payload) }),
        });
      } catch (err) {
        // fetch refuses some header values itself: those never reach the server.
        if (err instanceof TypeError && !/fetch failed/.test(err.message)) return;
        throw err;
      }
      sent++;
      const headers = Object.fromEntries(response.headers.entries());
      record(c, { status: response.status, headers, body: await response.text() }, 'http');
    });
    expect(sent).toBeGreaterThan(OVER_HTTP * 0.9);

    const port = Number(new URL(baseUrl).port);
    const chat = (body: string | Buffer, extra = '') =>
      Buffer.concat([
        Buffer.from(
          `POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
        ),
        Buffer.from(body),
      ]);
    const hello = `{"clientId":"${targets.clientId}","message":"hi"}`;
    const raw: [string, Buffer | string, string?][] = [
      ['gzip-labelled plain JSON', chat(hello, 'Content-Encoding: gzip\r\n'), hello],
      ['invalid UTF-8 in a string', chat(Buffer.from([...Buffer.from('{"clientId":"x","message":"'), 0xc3, 0x28, 0x22, 0x7d]))],
      ['a BOM before the JSON', chat(`\ufeff${hello}`), `\ufeff${hello}`],
      ['duplicate Content-Type', chat('{}', 'Content-Type: text/plain\r\n')],
      [
        'chunked with a bad chunk size',
        'POST /api/lead HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n',
      ],
      [
        'Content-Length and chunked together',
        'POST /api/lead HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
      ],
      ['a header with a NUL', 'GET /readyz HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n'],
      ['an absolute-form target', 'GET http://evil.example/api/admin/clients HTTP/1.1\r\nHost: evil.example\r\n\r\n'],
      ['a path with a NUL', 'GET /api/admin/jobs/%00 HTTP/1.1\r\nHost: x\r\n\r\n'],
      ['a path that is not UTF-8', `GET /api/admin/jobs/%C0%AF HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_KEY}\r\n\r\n`],
      ['a very long URL', `GET /api/admin/jobs/${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
      ['not HTTP at all', '\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003\r\n\r\n'],
    ];
    const protocol: string[] = [];
    for (const [what, bytes, payload] of raw) {
      const answer = await rawExchange(port, bytes);
      const head = answer.slice(0, answer.indexOf('\r\n\r\n'));
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      const type = /\r\ncontent-type: ([^\r]*)/i.exec(head)?.[1];
      const body = Buffer.from(answer.slice(head.length + 4), 'latin1').toString('utf8');
      protocol.push(`${what}: ${status}`);
      expect(status, `${what}: ${answer.slice(0, 300)}`).toBeGreaterThanOrEqual(200);
      const c: FuzzCase = {
        endpoint: payload ? 'POST /api/chat' : 'raw HTTP',
        method: 'POST',
        url: what,
        headers: {},
        ...(payload ? { payload } : {}),
      };
      tally('raw HTTP', status);
      const problem = judge(c, { status, headers: { 'content-type': type }, body }, ent);
      if (problem) failures.push(`[raw] ${what} → ${problem}`);
    }
    process.stderr.write(`[fuzz] raw HTTP: ${protocol.join('; ')}\n`);
    expect(failures, `seed ${SEED}`).toEqual([]);
  });

  it('wrote no row for a 4xx: every logged write belongs to a 2xx answer', async () => {
    const { rows } = await g.rt.pool.query<{ tbl: string; op: string; row: Record<string, unknown> }>(
      'SELECT tbl, op, row FROM write_log ORDER BY id',
    );
    const stray = rows.filter((w) => !ent.covers(w.tbl, w.op, w.row));
    expect(stray.slice(0, 10), `seed ${SEED}`).toEqual([]);
    // The 2xx answers really wrote what they said: one lead row per lead, two messages per chat.
    const count = async (sql: string, params: unknown[] = []) => (await g.rt.pool.query<{ n: number }>(sql, params)).rows[0]?.n;
    expect(await count('SELECT count(*)::int AS n FROM leads')).toBe(ent.leads.size);
    expect(await count('SELECT count(*)::int AS n FROM messages')).toBe(ent.chats2xx * 2);
    expect(await count('SELECT count(*)::int AS n FROM clients')).toBe(4 + ent.clients.size);
    expect(await count("SELECT count(*)::int AS n FROM jobs WHERE kind = 'crawl'")).toBe(ent.crawlJobs.size);
    expect(await count("SELECT count(*)::int AS n FROM jobs WHERE kind = 'generate-embeddings'")).toBe(ent.embeddingRuns2xx);
    process.stderr.write(
      `[fuzz] writes logged ${rows.length}, all from 2xx answers: ${ent.chats2xx} chats, ${ent.leads.size} leads, ` +
        `${ent.clients.size} clients created, ${ent.patchedClients.size} patched, ${ent.jobs.size} jobs\n`,
    );
  });

  it('leaves the process healthy', async () => {
    const ready = await g.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    const chat = await g.app.inject({
      method: 'POST',
      url: '/api/chat',
      payload: { clientId: targets.clientId, message: 'When are you open on Saturdays?' },
    });
    expect(chat.statusCode).toBe(200);
    expect((chat.json() as { sources: { url: string }[] }).sources[0]?.url).toMatch(/\/hours$/);
    const lines = [...statuses].map(
      ([endpoint, m]) =>
        `  ${endpoint.padEnd(36)} ${[...m]
          .sort((a, b) => a[0] - b[0])
          .map(([s, n]) => `${s}×${n}`)
          .join(' ')}`,
    );
    const top = [...reasons].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.FUZZ_REASONS ?? 0));
    process.stderr.write(
      `[fuzz] seed ${SEED}: ${tried} requests tried, ${fiveXx} answered 5xx\n${lines.join('\n')}\n${top.map(([k, n]) => `  ${n}× ${k}`).join('\n')}\n`,
    );
    expect(fiveXx).toBe(0);
  });
});
