import type { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import { type ClientRow, findClient } from '../db/clients.ts';
import { insertLead, type LeadRow, lockClientLeadLimit, recentLeadsBySource } from '../db/leads.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { AppError, ClientNotFoundError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Queues } from '../runtime.ts';
import type { LeadInput } from '../schemas/leads.ts';
import { enqueueLeadWebhooks } from './outbox.ts';
import { consumeLeadQuota, LEAD_WINDOW_MS, type LeadQuota, leadQuotaFromDatabase, type QuotaState } from './rate-limit.ts';

export interface LeadServiceDeps {
  config: Pick<
    Config,
    | 'REDIS_PREFIX'
    | 'LEAD_RATE_LIMIT_PER_HOUR'
    | 'LEAD_CLIENT_LIMIT_PER_HOUR'
    | 'WEBHOOK_MAX_ATTEMPTS'
    | 'WEBHOOK_OUTBOX_MIN_AGE_MS'
    | 'WEBHOOK_OUTBOX_STALE_MS'
  >;
  log: Logger;
  pool: Pool;
  redis: Redis;
  queues: Pick<Queues, 'webhook'>;
}

export interface CapturedLead {
  leadId: string;
  /** The limit closest to refusing (for the RateLimit-* headers). */
  quota: QuotaState;
}

export function quotaHeaders(q: QuotaState): Record<string, string> {
  return {
    'ratelimit-limit': String(q.limit),
    'ratelimit-remaining': String(q.remaining),
    'ratelimit-reset': String(q.resetSeconds),
  };
}

/** The Redis-unavailable warning is logged at most every 30 s per process, not once per lead of a flood. */
let lastFallbackWarning = 0;

/** The window a caller should be told about: the one that refused, else the one with less room left. */
function shownQuota(q: LeadQuota): QuotaState {
  if (q.limitedBy) return q[q.limitedBy];
  return q.client.remaining < q.address.remaining ? q.client : q.address;
}

function refuse(q: LeadQuota): AppError {
  const shown = shownQuota(q);
  const what = q.limitedBy === 'client' ? 'for this client' : 'from one address';
  return new AppError(
    429,
    'Too many requests',
    [`at most ${shown.limit} leads per hour ${what}; retry after ${shown.resetSeconds} seconds`],
    {
      'retry-after': String(shown.resetSeconds),
      ...quotaHeaders(shown),
    },
  );
}

/**
 * Captures a lead (spec §4.4): the client must exist, the lead must be within the per-address and
 * the per-client hourly limits, then the row is committed — and only then is the webhook job
 * enqueued. If Redis does not take the job the lead stays 'pending' and the outbox sweep delivers
 * it later: the visitor's request succeeds either way, because the lead is already safe in Postgres.
 *
 * The limits are counted in Redis. When Redis cannot answer they are counted from the leads stored
 * in Postgres over the last hour, under a per-client lock held until the lead is stored: an outage
 * neither loses a real lead nor lets a flood through.
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

  const limits = {
    clientId: client.id,
    ip: sourceIp,
    addressLimit: deps.config.LEAD_RATE_LIMIT_PER_HOUR,
    clientLimit: deps.config.LEAD_CLIENT_LIMIT_PER_HOUR,
  };
  const newLead = {
    clientId: client.id,
    name: input.name,
    email: input.email,
    phone: input.phone,
    message: input.message,
    sessionId: input.sessionId,
    sourceIp,
    webhookStatus: client.lead_webhook_url ? ('pending' as const) : ('none' as const),
    webhookUrl: client.lead_webhook_url,
    webhookFormat: client.webhook_format,
    webhookQueue: deps.config.REDIS_PREFIX,
  };

  const counted = await consumeLeadQuota(deps.redis, { prefix: deps.config.REDIS_PREFIX, ...limits });
  let captured: { lead: LeadRow; quota: LeadQuota };
  if (counted) {
    if (!counted.allowed) throw refuse(counted);
    captured = { lead: await insertLead(deps.pool, newLead), quota: counted };
  } else {
    if (Date.now() - lastFallbackWarning > 30_000) {
      lastFallbackWarning = Date.now();
      deps.log.warn({ clientId: client.id }, 'lead rate limit: Redis unavailable, counting the last hour in Postgres');
    }
    captured = await withTransaction(deps.pool, async (tx) => {
      await lockClientLeadLimit(tx, client.id);
      const quota = leadQuotaFromDatabase(await recentLeadsBySource(tx, client.id, LEAD_WINDOW_MS), limits);
      if (!quota.allowed) throw refuse(quota);
      return { lead: await insertLead(tx, newLead), quota };
    });
  }
  const { lead } = captured;

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
  return { leadId: lead.id, quota: shownQuota(captured.quota) };
}
