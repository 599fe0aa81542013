import { readiness } from '@kbchat/shared/health';
import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../deps.ts';

/** /healthz: the process is up. /readyz: Postgres and Redis answer (503 naming what is down); 200 `degraded` naming paused queues. */
export async function healthRoutes(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    const r = await readiness(deps);
    return reply.status(r.ok ? 200 : 503).send(r.body);
  });
}
