import type { Config } from '../config.ts';
import { markLeadsFailed, markLeadsQueued, type OutboxLead, pendingLeads, staleQueuedLeads, touchQueuedLeads } from '../db/leads.ts';
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
  config: Pick<Config, 'REDIS_PREFIX' | 'WEBHOOK_MAX_ATTEMPTS' | 'WEBHOOK_OUTBOX_MIN_AGE_MS' | 'WEBHOOK_OUTBOX_STALE_MS'>;
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

/** Puts the leads' webhook jobs in Redis and marks them queued. Throws when Redis does not take them. */
export async function enqueueLeadWebhooks(deps: OutboxDeps, leads: OutboxLead[]): Promise<void> {
  if (leads.length === 0) return;
  await withTimeout(
    deps.queues.webhook.addBulk(
      leads.map((l) => ({
        name: 'webhook.lead' as const,
        data: { leadId: l.id, clientId: l.client_id },
        opts: { jobId: webhookJobId(l.id) },
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
  /** Queued leads whose job had vanished from Redis, or failed with attempts left, enqueued again. */
  requeued: number;
  /** Queued leads whose job had failed with no attempts left, marked failed. */
  failed: number;
}

/** One pass of the outbox. Errors propagate: the caller logs them and tries again next tick. */
export async function sweepOutbox(deps: OutboxDeps): Promise<SweepResult> {
  const result: SweepResult = { enqueued: 0, requeued: 0, failed: 0 };
  // Only this deployment's leads (webhook_queue = its REDIS_PREFIX): another deployment on the same
  // database sweeps its own into its own queue.
  const pending = await pendingLeads(deps.pool, deps.config.REDIS_PREFIX, deps.config.WEBHOOK_OUTBOX_MIN_AGE_MS, SWEEP_BATCH);
  await enqueueLeadWebhooks(deps, pending);
  result.enqueued = pending.length;

  // A job can vanish: a Redis restarted without persistence, a flush, an operator's cleanup.
  const stale = await staleQueuedLeads(deps.pool, deps.config.REDIS_PREFIX, deps.config.WEBHOOK_OUTBOX_STALE_MS, STALE_BATCH);
  if (stale.length === 0) return result;
  const queue = deps.queues.webhook.queue;
  const states = await withTimeout(
    Promise.all(stale.map((l) => queue.getJobState(webhookJobId(l.id)))),
    ENQUEUE_TIMEOUT_MS * 5,
    'reading webhook job states timed out',
  );
  const vanished = stale.filter((_, i) => states[i] === 'unknown');
  // A failed job whose lead is still queued failed for a reason the worker could not record (a job
  // that stalled too often across Redis restarts, the database away during the last attempt). The
  // attempts counted in Postgres decide: attempts left → a new job, none left → the lead failed.
  const failedJobs = stale.filter((_, i) => states[i] === 'failed');
  const retry = failedJobs.filter((l) => l.webhook_attempts < deps.config.WEBHOOK_MAX_ATTEMPTS);
  const exhausted = failedJobs.filter((l) => l.webhook_attempts >= deps.config.WEBHOOK_MAX_ATTEMPTS);
  const present = stale.filter((_, i) => states[i] !== 'unknown' && states[i] !== 'failed');

  // The failed job still holds the lead's job id: remove it so the lead can have a new one.
  await Promise.all(retry.map((l) => queue.remove(webhookJobId(l.id))));
  const requeue = [...vanished, ...retry];
  await enqueueLeadWebhooks(deps, requeue);
  await touchQueuedLeads(
    deps.pool,
    [...requeue, ...present].map((l) => l.id),
  );
  await markLeadsFailed(
    deps.pool,
    exhausted.map((l) => l.id),
  );
  result.requeued = requeue.length;
  result.failed = exhausted.length;
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
