import type { JobsOptions } from 'bullmq';
import type { Config } from '../config.ts';
import {
  markLeadsFailed,
  markLeadsQueued,
  type OutboxLead,
  pendingLeads,
  staleQueuedLeads,
  touchQueuedLeads,
} from '../db/leads.ts';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import type { Queues } from '../runtime.ts';
import { withTimeout } from './with-timeout.ts';

/**
 * The lead outbox. A lead row is committed first (webhook_status 'pending'); its webhook job is then
 * put in Redis and the lead marked 'queued'. When Redis was away, the sweep below finds the pending
 * lead later and enqueues it. The job id is derived from the lead id, so however many times a lead
 * is enqueued (the request and the sweep racing, two crawler processes sweeping) Redis holds one job.
 */

export interface OutboxDeps {
  config: Pick<Config, 'WEBHOOK_MAX_ATTEMPTS' | 'WEBHOOK_BACKOFF_MS' | 'WEBHOOK_OUTBOX_MIN_AGE_MS' | 'WEBHOOK_OUTBOX_STALE_MS'>;
  pool: Pool;
  queues: Pick<Queues, 'webhook'>;
  log: Logger;
}

/** Enqueue calls sit on the lead request path: a Redis that neither answers nor refuses must not hold it. */
const ENQUEUE_TIMEOUT_MS = 2_000;
const SWEEP_BATCH = 500;
const STALE_BATCH = 200;

export function webhookJobId(leadId: string): string {
  return `lead-${leadId}`;
}

export function webhookJobOptions(config: OutboxDeps['config'], leadId: string): JobsOptions {
  return {
    jobId: webhookJobId(leadId),
    attempts: config.WEBHOOK_MAX_ATTEMPTS,
    // Jitter spreads the retries of many leads to one receiver that comes back at once.
    backoff: { type: 'exponential', delay: config.WEBHOOK_BACKOFF_MS, jitter: 0.2 },
  };
}

/** Puts the leads' webhook jobs in Redis and marks them queued. Throws when Redis does not take them. */
export async function enqueueLeadWebhooks(deps: OutboxDeps, leads: OutboxLead[]): Promise<void> {
  if (leads.length === 0) return;
  await withTimeout(
    deps.queues.webhook.addBulk(
      leads.map((l) => ({
        name: 'webhook.lead' as const,
        data: { leadId: l.id, clientId: l.client_id },
        opts: webhookJobOptions(deps.config, l.id),
      })),
    ),
    ENQUEUE_TIMEOUT_MS,
    'enqueueing the webhook job timed out',
  );
  await markLeadsQueued(
    deps.pool,
    leads.map((l) => l.id),
  );
}

export interface SweepResult {
  /** Pending leads put in Redis. */
  enqueued: number;
  /** Queued leads whose job had vanished from Redis, enqueued again. */
  requeued: number;
  /** Queued leads whose job had failed without the lead saying so. */
  failed: number;
}

/** One pass of the outbox. Errors propagate: the caller logs them and tries again next tick. */
export async function sweepOutbox(deps: OutboxDeps): Promise<SweepResult> {
  const result: SweepResult = { enqueued: 0, requeued: 0, failed: 0 };
  const pending = await pendingLeads(deps.pool, deps.config.WEBHOOK_OUTBOX_MIN_AGE_MS, SWEEP_BATCH);
  await enqueueLeadWebhooks(deps, pending);
  result.enqueued = pending.length;

  // A job can vanish: a Redis restarted without persistence, a flush, an operator's cleanup.
  const stale = await staleQueuedLeads(deps.pool, deps.config.WEBHOOK_OUTBOX_STALE_MS, STALE_BATCH);
  if (stale.length === 0) return result;
  const queue = deps.queues.webhook.queue;
  const states = await withTimeout(
    Promise.all(stale.map((l) => queue.getJobState(webhookJobId(l.id)))),
    ENQUEUE_TIMEOUT_MS * 5,
    'reading webhook job states timed out',
  );
  const vanished = stale.filter((_, i) => states[i] === 'unknown');
  const failed = stale.filter((_, i) => states[i] === 'failed');
  const present = stale.filter((_, i) => states[i] !== 'unknown' && states[i] !== 'failed');
  if (vanished.length > 0) {
    await enqueueLeadWebhooks(deps, vanished);
    await touchQueuedLeads(
      deps.pool,
      vanished.map((l) => l.id),
    );
  }
  await markLeadsFailed(
    deps.pool,
    failed.map((l) => l.id),
  );
  await touchQueuedLeads(
    deps.pool,
    present.map((l) => l.id),
  );
  result.requeued = vanished.length;
  result.failed = failed.length;
  return result;
}

export interface OutboxSweeper {
  /** Runs one pass now (tests, and the first pass at start). */
  runOnce(): Promise<SweepResult | undefined>;
  stop(): Promise<void>;
}

/**
 * Sweeps every intervalMs, one pass at a time. A pass that fails (Redis or Postgres away) is logged
 * and the next tick tries again: the sweeper itself never stops on an error.
 */
export function startOutboxSweep(deps: OutboxDeps, intervalMs: number): OutboxSweeper {
  const log = deps.log.child({ component: 'lead-outbox' });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<SweepResult | undefined> | undefined;
  let stopped = false;
  let failing = false;

  const runOnce = (): Promise<SweepResult | undefined> => {
    running ??= sweepOutbox(deps)
      .then(
        (r) => {
          if (failing) log.info('outbox sweep recovered');
          failing = false;
          if (r.enqueued + r.requeued + r.failed > 0) log.info(r, 'outbox sweep enqueued lead webhooks');
          return r;
        },
        (err: Error) => {
          // One warning per outage, not one per tick.
          if (!failing) log.warn({ err: { message: err.message } }, 'outbox sweep failed; retrying every tick');
          failing = true;
          return undefined;
        },
      )
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(async () => {
      await runOnce();
      schedule();
    }, intervalMs);
  };
  schedule();

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
