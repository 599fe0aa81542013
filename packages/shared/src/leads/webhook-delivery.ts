import { performance } from 'node:perf_hooks';
import type { Got } from 'got';
import type { Config } from '../config.ts';
import { claimDelivery, findLeadForDelivery, markLeadWithoutWebhook, releaseDelivery } from '../db/leads.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { insertDelivery } from '../db/webhook-deliveries.ts';
import type { Logger } from '../logger.ts';
import { createOutboundClient } from '../net/outbound.ts';
import { buildLeadPayload, webhookMessageId } from './payload.ts';
import { webhookSignatureHeaders } from './signing.ts';

export const WEBHOOK_USER_AGENT = 'kbchat-webhooks/0.1 (+https://github.com/kbchat/kbchat; lead.created)';

/** Bytes of a receiver's answer we read at most: only the status matters, and a receiver must not fill our memory. */
const MAX_ERROR_TEXT = 500;

export interface WebhookDeliveryDeps {
  config: Pick<
    Config,
    'WEBHOOK_TIMEOUT_MS' | 'WEBHOOK_MAX_ATTEMPTS' | 'WEBHOOK_PER_CLIENT_CONCURRENCY' | 'OUTBOUND_ALLOW_PRIVATE_NETWORKS'
  >;
  pool: Pool;
  log: Logger;
  /** The guarded outbound client (createWebhookHttpClient). */
  http: Got;
}

/** Webhooks leave through the one guarded outbound client, with the webhook timeout. */
export function createWebhookHttpClient(config: Pick<Config, 'WEBHOOK_TIMEOUT_MS' | 'OUTBOUND_ALLOW_PRIVATE_NETWORKS'>): Got {
  return createOutboundClient({
    allowPrivateNetworks: config.OUTBOUND_ALLOW_PRIVATE_NETWORKS,
    userAgent: WEBHOOK_USER_AGENT,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
  });
}

export type DeliveryResult =
  | { kind: 'delivered'; attempt: number; statusCode: number }
  /** A non-2xx answer: logged, lead failed, never retried (spec §6 rule 5). */
  | { kind: 'rejected'; attempt: number; statusCode: number }
  /** The URL resolves to an address the outbound guard refuses: retrying cannot help. */
  | { kind: 'blocked'; attempt: number; error: string }
  /** No answer (refused, reset, timeout). retry: the job should try again; else this was the last attempt. */
  | { kind: 'unreachable'; attempt: number; error: string; retry: boolean }
  /** Nothing to send: the lead or client is gone, the lead is finished, or the client has no webhook URL now. */
  | { kind: 'skipped'; reason: 'gone' | 'finished' | 'no-webhook' }
  /** Not this lead's turn (its client's slots are full, or another worker holds it): try again later, no attempt spent. */
  | { kind: 'wait'; retryInMs: number };

/**
 * One delivery attempt of a lead's webhook (spec §6, DESIGN.md §5). Every request sent is one
 * webhook_deliveries row, written in the same transaction as the lead's new status. The claim taken
 * before sending means a job BullMQ hands out twice still sends one request at a time, and a lead
 * already delivered is never sent again.
 */
export async function deliverLeadWebhook(
  deps: WebhookDeliveryDeps,
  job: { leadId: string; clientId: string },
  options: { finalAttempt: boolean },
): Promise<DeliveryResult> {
  const lead = await findLeadForDelivery(deps.pool, job.leadId, job.clientId);
  if (!lead) return { kind: 'skipped', reason: 'gone' };
  if (lead.webhook_status !== 'pending' && lead.webhook_status !== 'queued') return { kind: 'skipped', reason: 'finished' };
  const url = lead.lead_webhook_url;
  if (!url) {
    await markLeadWithoutWebhook(deps.pool, lead.id);
    return { kind: 'skipped', reason: 'no-webhook' };
  }

  const claim = await claimDelivery(deps.pool, {
    leadId: lead.id,
    clientId: lead.client_id,
    perClientLimit: deps.config.WEBHOOK_PER_CLIENT_CONCURRENCY,
    // Past the request timeout, with room for the bookkeeping: a crashed worker's claim expires by itself.
    lockMs: deps.config.WEBHOOK_TIMEOUT_MS + 15_000,
  });
  if (claim.kind === 'gone') return { kind: 'skipped', reason: 'gone' };
  if (claim.kind === 'finished') return { kind: 'skipped', reason: 'finished' };
  if (claim.kind === 'locked') return { kind: 'wait', retryInMs: claim.retryInMs + 100 };
  if (claim.kind === 'client-busy') return { kind: 'wait', retryInMs: busyDelay(deps.config.WEBHOOK_TIMEOUT_MS) };

  const attempt = claim.attempt;
  const messageId = webhookMessageId(lead.id);
  const body = JSON.stringify(buildLeadPayload(lead, lead.webhook_format));
  const headers = {
    'content-type': 'application/json',
    ...webhookSignatureHeaders({ id: messageId, timestamp: Math.floor(Date.now() / 1000), body, secret: lead.webhook_secret }),
  };
  const log = deps.log.child({ clientId: lead.client_id, leadId: lead.id, attempt, host: safeHost(url) });

  const started = performance.now();
  let statusCode: number | undefined;
  let failure: unknown;
  try {
    statusCode = await postForStatus(deps.http, url, body, headers);
  } catch (err) {
    failure = err;
  }
  const durationMs = performance.now() - started;
  const record = { clientId: lead.client_id, leadId: lead.id, messageId, url, attempt, durationMs };

  if (statusCode !== undefined) {
    const delivered = statusCode >= 200 && statusCode < 300;
    await withTransaction(deps.pool, async (tx) => {
      await insertDelivery(tx, { ...record, outcome: delivered ? 'delivered' : 'rejected', statusCode });
      await releaseDelivery(tx, lead.id, delivered ? 'delivered' : 'failed');
    });
    if (delivered) {
      log.info({ statusCode }, 'lead webhook delivered');
      return { kind: 'delivered', attempt, statusCode };
    }
    log.warn({ statusCode }, 'lead webhook rejected by the receiver (not retried)');
    return { kind: 'rejected', attempt, statusCode };
  }

  const error = describeFailure(failure);
  const blocked = isBlocked(failure);
  // Attempts are counted in Postgres across every job the lead had, so a lead the outbox enqueued
  // again does not start its attempts over.
  const final = blocked || options.finalAttempt || attempt >= deps.config.WEBHOOK_MAX_ATTEMPTS;
  await withTransaction(deps.pool, async (tx) => {
    await insertDelivery(tx, { ...record, outcome: 'error', error });
    await releaseDelivery(tx, lead.id, final ? 'failed' : undefined);
  });
  if (blocked) {
    log.warn({ error }, 'lead webhook refused: the URL is not a public address');
    return { kind: 'blocked', attempt, error };
  }
  log.warn(
    { error, final },
    final ? 'lead webhook failed: receiver unreachable on the last attempt' : 'lead webhook attempt failed; will retry',
  );
  return { kind: 'unreachable', attempt, error, retry: !final };
}

/**
 * POSTs and resolves with the status as soon as the response head arrives; the body is not read,
 * so a receiver cannot make us buffer an unbounded answer. Redirects are not followed: a 3xx is a
 * non-2xx answer like any other (a redirect would also resend a signed lead somewhere unreviewed).
 */
function postForStatus(http: Got, url: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const stream = http.stream.post(url, { body, headers, followRedirect: false });
    stream.on('error', reject);
    stream.once('response', (res: { statusCode: number }) => {
      resolve(res.statusCode);
      stream.destroy();
    });
  });
}

function busyDelay(timeoutMs: number): number {
  const base = Math.min(2_000, Math.max(200, Math.round(timeoutMs / 10)));
  return base + Math.floor(Math.random() * base);
}

function causes(err: unknown): unknown[] {
  const chain: unknown[] = [];
  let e: unknown = err;
  while (e && chain.length < 5) {
    chain.push(e);
    e = (e as { cause?: unknown }).cause;
  }
  return chain;
}

function isBlocked(err: unknown): boolean {
  return causes(err).some(
    (e) => (e as { code?: string; name?: string }).code === 'ERR_OUTBOUND_BLOCKED' || (e as Error).name === 'OutboundBlockedError',
  );
}

function describeFailure(err: unknown): string {
  const e = err as { code?: string; message?: string } | undefined;
  const text = [e?.code, e?.message].filter(Boolean).join(': ') || String(err);
  return text.slice(0, MAX_ERROR_TEXT);
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid url)';
  }
}
