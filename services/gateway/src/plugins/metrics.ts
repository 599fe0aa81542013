import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { GatewayDeps } from '../deps.ts';

/**
 * Prometheus metrics at /metrics: HTTP requests by route and status, queue depths, process
 * metrics. Labels never carry a clientId (tenant data stays out of shared dashboards) and the
 * route label is the route pattern, so cardinality stays bounded. Served inside the admin scope:
 * Prometheus scrapes it with the admin bearer key (or from loopback).
 */
export function registerMetrics(app: FastifyInstance, deps: GatewayDeps): { routes: (scope: FastifyInstance) => Promise<void> } {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'kbchat_' });
  const requests = new Counter({
    name: 'kbchat_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'kbchat_http_request_duration_seconds',
    help: 'HTTP request duration by route pattern',
    labelNames: ['method', 'route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120],
    registers: [registry],
  });
  new Gauge({
    name: 'kbchat_queue_jobs',
    help: 'Jobs per queue and state',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      for (const producer of Object.values(deps.queues)) {
        // Redis away: this scrape lacks the queue gauges (debug: it repeats on every scrape; /readyz says why).
        const counts = await producer.queue
          .getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed')
          .catch((err: Error) =>
            app.log.debug({ queue: producer.definition.name, err: { message: err.message } }, 'queue counts not read'),
          );
        if (!counts) continue;
        for (const [state, n] of Object.entries(counts)) this.set({ queue: producer.definition.name, state }, Number(n));
      }
    },
  });

  // On the root instance, so every request is counted; the route itself lives in the admin scope.
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    requests.inc({ method: req.method, route, status: String(reply.statusCode) });
    duration.observe({ method: req.method, route }, reply.elapsedTime / 1000);
  });

  return {
    async routes(scope) {
      scope.get('/metrics', { schema: { hide: true } }, async (_req, reply) => {
        reply.header('content-type', registry.contentType);
        return registry.metrics();
      });
    },
  };
}
