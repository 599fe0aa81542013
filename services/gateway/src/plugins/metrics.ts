import { answerOutcome } from '@kbchat/shared/chat/chat-service';
import { countCrawlsByStatus } from '@kbchat/shared/jobs/job-store';
import type { ChatResponse } from '@kbchat/shared/schemas/chat';
import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { GatewayDeps } from '../deps.ts';

/** What the public routes count as it happens (no label carries a clientId). */
export interface Outcomes {
  answer(response: ChatResponse): void;
  lead(): void;
  feedback(rating: 'up' | 'down'): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    outcomes: Outcomes;
  }
}

const CRAWL_STATUSES = ['queued', 'active', 'completed', 'failed'] as const;

/**
 * Prometheus metrics at /metrics: HTTP requests by route and status, queue depths, chat answers,
 * leads and feedback by outcome, crawls by outcome, process metrics. Labels never carry a clientId (tenant data stays out of shared dashboards) and the
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

  const answers = new Counter({
    name: 'kbchat_chat_answers_total',
    help: 'Chat answers by outcome: answered (quoted the site), contact (offered the contact form), replied (in kind: a greeting, "who are you?"), declined (none of these)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const leads = new Counter({ name: 'kbchat_leads_total', help: 'Leads captured through POST /api/lead', registers: [registry] });
  const feedback = new Counter({
    name: 'kbchat_feedback_total',
    help: 'Visitor ratings of answers stored, by rating',
    labelNames: ['rating'],
    registers: [registry],
  });
  for (const outcome of ['answered', 'contact', 'replied', 'declined']) answers.inc({ outcome }, 0);
  for (const rating of ['up', 'down']) feedback.inc({ rating }, 0);
  // Crawls run in crawler processes: the jobs table is the one place that sees them all.
  new Gauge({
    name: 'kbchat_crawls',
    help: "Crawl jobs by outcome (status), read from the database at scrape time: every process's crawls, of the clients that still exist",
    labelNames: ['outcome'],
    registers: [registry],
    async collect() {
      // Database away: this scrape lacks the crawl gauge (/readyz says why).
      const counts = await countCrawlsByStatus(deps.pool).catch((err: Error) => {
        app.log.debug({ err: { message: err.message } }, 'crawl counts not read');
      });
      if (!counts) return;
      for (const status of CRAWL_STATUSES) this.set({ outcome: status }, counts.get(status) ?? 0);
    },
  });
  app.decorate('outcomes', {
    answer(response) {
      answers.inc({ outcome: answerOutcome(response) });
    },
    lead: () => leads.inc(),
    feedback: (rating) => feedback.inc({ rating }),
  } satisfies Outcomes);

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
