import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { httpCheckIntervalMs } from './config.ts';
import { describePaused, pausedQueues, type QueueName } from './pipeline/paused-queues.ts';
import type { Runtime } from './runtime.ts';

export type Readiness =
  | {
      ok: true;
      body: { status: 'ok' | 'degraded'; checks: Record<string, 'ok' | 'down'>; degraded?: string[]; pausedQueues?: QueueName[] };
    }
  | { ok: false; body: { error: string; details: string[]; checks: Record<string, 'ok' | 'down'> } };

async function withTimeout<T>(probe: () => Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      probe(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function check(name: string, probe: () => Promise<unknown>, timeoutMs: number): Promise<[string, 'ok' | 'down']> {
  try {
    await withTimeout(probe, timeoutMs);
    return [name, 'ok'];
  } catch {
    return [name, 'down'];
  }
}

/**
 * Postgres and Redis answer within the timeout; otherwise 503 naming what is down. Paused queues
 * (docs/pipeline.md "Paused queues") leave the process ready — chat and leads are served, and a 503
 * would take the gateway out of its load balancer for an operator's pause — but turn the status to
 * `degraded`, naming them: work sent to them waits until they are resumed.
 */
export async function readiness(
  rt: Pick<Runtime, 'pool' | 'redis'> & { queues?: Runtime['queues'] },
  timeoutMs = 2_000,
): Promise<Readiness> {
  const results = await Promise.all([
    check('postgres', () => rt.pool.query('SELECT 1'), timeoutMs),
    check('redis', () => rt.redis.ping(), timeoutMs),
  ]);
  const checks = Object.fromEntries(results);
  const down = results.filter(([, s]) => s === 'down').map(([n]) => n);
  if (down.length > 0) return { ok: false, body: { error: 'Service unavailable', details: down.map((n) => `${n} is down`), checks } };
  const queues = rt.queues;
  const paused = queues ? await withTimeout(() => pausedQueues(queues), timeoutMs).catch(() => []) : [];
  if (paused.length > 0) {
    return {
      ok: true,
      body: {
        status: 'degraded',
        checks,
        degraded: [`${describePaused(paused)}: its jobs wait until it is resumed (/admin/queues)`],
        pausedQueues: paused,
      },
    };
  }
  return { ok: true, body: { status: 'ok', checks } };
}

/**
 * /healthz and /readyz for a worker-only process (crawler, embedder), so an orchestrator can probe
 * it the way it probes the gateway. Plain node:http: a worker has no web framework to carry.
 */
export async function startHealthServer(
  rt: Pick<Runtime, 'pool' | 'redis' | 'queues' | 'config'>,
  host: string,
  port: number,
): Promise<{ port: number; close(): Promise<void> }> {
  // The gateway's limits on slow clients (HTTP_* in config.ts): a probe port must not collect stalled sockets either.
  const server = http.createServer(
    {
      requestTimeout: rt.config.HTTP_REQUEST_TIMEOUT_MS,
      headersTimeout: rt.config.HTTP_HEADERS_TIMEOUT_MS,
      keepAliveTimeout: rt.config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: httpCheckIntervalMs(rt.config),
    },
    async (req, res) => {
      const path = (req.url ?? '').split('?')[0];
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(body));
      };
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, { error: 'Method not allowed', details: ['use GET'] });
      if (path === '/healthz') return send(200, { status: 'ok' });
      if (path === '/readyz') {
        const r = await readiness(rt);
        return send(r.ok ? 200 : 503, r.body);
      }
      return send(404, { error: 'Not found', details: [`no route for ${req.method} ${path}`] });
    },
  );
  // A probe port needs few connections.
  server.maxConnections = 256;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
