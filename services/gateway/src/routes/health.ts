import type { Runtime } from '@kbchat/shared/runtime';
import type { FastifyInstance } from 'fastify';

async function check(name: string, probe: () => Promise<unknown>, timeoutMs: number): Promise<[string, 'ok' | 'down']> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
      }),
    ]);
    return [name, 'ok'];
  } catch {
    return [name, 'down'];
  } finally {
    clearTimeout(timer);
  }
}

/** /healthz: the process is up. /readyz: Postgres and Redis answer (503 naming what is down). */
export async function healthRoutes(app: FastifyInstance, rt: Pick<Runtime, 'pool' | 'redis'>): Promise<void> {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    const results = await Promise.all([
      check('postgres', () => rt.pool.query('SELECT 1'), 2_000),
      check('redis', () => rt.redis.ping(), 2_000),
    ]);
    const checks = Object.fromEntries(results);
    const down = results.filter(([, s]) => s === 'down').map(([n]) => n);
    if (down.length > 0) {
      return reply.status(503).send({ error: 'Service unavailable', details: down.map((n) => `${n} is down`), checks });
    }
    return { status: 'ok', checks };
  });
}
