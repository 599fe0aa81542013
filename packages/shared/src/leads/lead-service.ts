import type { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import { type ClientRow, findClient } from '../db/clients.ts';
import { insertLead } from '../db/leads.ts';
import type { Pool } from '../db/pool.ts';
import { AppError, ClientNotFoundError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Queues } from '../runtime.ts';
import type { LeadInput } from '../schemas/leads.ts';
import { enqueueLeadWebhooks } from './outbox.ts';
import { consumeLeadQuota, type QuotaState } from './rate-limit.ts';

export interface LeadServiceDeps {
  config: Pick<
    Config,
    'REDIS_PREFIX' | 'LEAD_RATE_LIMIT_PER_HOUR' | 'WEBHOOK_MAX_ATTEMPTS' | 'WEBHOOK_OUTBOX_MIN_AGE_MS' | 'WEBHOOK_OUTBOX_STALE_MS'
  >;
  log: Logger;
  pool: Pool;
  redis: Redis;
  queues: Pick<Queues, 'webhook'>;
}

export interface CapturedLead {
  leadId: string;
  /** Undefined when Redis could not count (the limit failed open). */
  quota: QuotaState | undefined;
}

export function quotaHeaders(q: QuotaState): Record<string, string> {
  return {
    'ratelimit-limit': String(q.limit),
    'ratelimit-remaining': String(q.remaining),
    'ratelimit-reset': String(q.resetSeconds),
  };
}

/**
 * Captures a lead (spec §4.4): the client must exist, the sender must be within the per-IP limit,
 * then the row is committed — and only then is the webhook job enqueued. If Redis does not take
 * the job the lead stays 'pending' and the outbox sweep delivers it later: the visitor's request
 * succeeds either way, because the lead is already safe in Postgres.
 */
export async function captureLead(
  deps: LeadServiceDeps,
  input: LeadInput,
  sourceIp: string,
  /** The client already loaded for this request (by the public CORS check). */
  loaded?: ClientRow,
): Promise<CapturedLead> {
  const client = loaded?.id === input.clientId ? loaded : await findClient(deps.pool, input.clientId);
  if (!client) throw new ClientNotFoundError();

  const quota = await consumeLeadQuota(deps.redis, {
    prefix: deps.config.REDIS_PREFIX,
    clientId: client.id,
    ip: sourceIp,
    limit: deps.config.LEAD_RATE_LIMIT_PER_HOUR,
  });
  if (!quota) deps.log.warn({ clientId: client.id }, 'lead rate limit unavailable (Redis): accepting the lead unchecked');
  if (quota && !quota.allowed) {
    throw new AppError(
      429,
      'Too many requests',
      [`at most ${quota.limit} leads per hour from one address; retry after ${quota.resetSeconds} seconds`],
      { 'retry-after': String(quota.resetSeconds), ...quotaHeaders(quota) },
    );
  }

  const lead = await insertLead(deps.pool, {
    clientId: client.id,
    name: input.name,
    email: input.email,
    phone: input.phone,
    message: input.message,
    sessionId: input.sessionId,
    sourceIp,
    webhookStatus: client.lead_webhook_url ? 'pending' : 'none',
    webhookQueue: deps.config.REDIS_PREFIX,
  });

  if (client.lead_webhook_url) {
    try {
      await enqueueLeadWebhooks(deps, [lead]);
    } catch (err) {
      deps.log.warn(
        { clientId: client.id, leadId: lead.id, err: { message: (err as Error).message } },
        'lead stored; webhook job not enqueued now, the outbox sweep will enqueue it',
      );
    }
  }
  return { leadId: lead.id, quota };
}
