import { createWebhookHttpClient, deliverLeadWebhook } from '@kbchat/shared/leads/webhook-delivery';
import { isFinalAttempt } from '@kbchat/shared/queue/attempts';
import type { JobHandlers } from '@kbchat/shared/queue/contract';
import type { webhookQueue } from '@kbchat/shared/queue/queues';
import type { Runtime } from '@kbchat/shared/runtime';
import { DelayedError, UnrecoverableError, type WorkerOptions } from 'bullmq';

/**
 * Lead webhooks: the crawler sends them because every request to a user-supplied URL leaves from
 * this service. The processor only maps a delivery result onto BullMQ: an unreachable receiver is
 * an error (BullMQ retries with the job's backoff, until the attempts counted in Postgres run out);
 * a lead that must wait for its client's slot is delayed without spending an attempt; everything
 * else completes the job.
 */
export function webhookHandlers(rt: Runtime): JobHandlers<typeof webhookQueue> {
  const deps = {
    config: rt.config,
    pool: rt.pool,
    log: rt.log.child({ service: 'crawler', component: 'lead-webhook' }),
    http: createWebhookHttpClient(rt.config),
  };
  return {
    'webhook.lead': async (data, job) => {
      const finalAttempt = isFinalAttempt(job);
      const result = await deliverLeadWebhook(deps, data, { finalAttempt });
      if (result.kind === 'wait') {
        await job.moveToDelayed(Date.now() + result.retryInMs, job.token);
        throw new DelayedError();
      }
      if (result.kind === 'unreachable') {
        const message = `webhook receiver unreachable: ${result.error}`;
        throw result.retry ? new Error(message) : new UnrecoverableError(message);
      }
      return result;
    },
  };
}

/**
 * A webhook job runs for at most WEBHOOK_TIMEOUT_MS. A short lock and a frequent stalled-job check
 * hand a job lost with its worker — or fetched just as Redis went down — back within seconds instead
 * of a minute, and several stalls (a Redis restart) never fail a lead: the claim in Postgres, not the
 * BullMQ lock, is what stops a second request for one lead.
 */
export const webhookWorkerOptions: Partial<WorkerOptions> = { lockDuration: 15_000, stalledInterval: 5_000, maxStalledCount: 5 };
