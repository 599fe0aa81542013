import { loadConfig } from '@kbchat/shared/config';
import type { Pool } from '@kbchat/shared/db/pool';
import { createWebhookHttpClient } from '@kbchat/shared/leads/webhook-delivery';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createClient, type Kbchat, startKbchat, waitFor } from '../support/kbchat.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * Issue 5 fault d: a receiver that never answers. Its attempts end at WEBHOOK_TIMEOUT_MS, and
 * other clients' webhooks are delivered while its requests hang — even when it has more leads
 * waiting than there are webhook workers.
 */

describe('a webhook receiver that never answers', () => {
  // Long enough that, on a loaded CI machine, the other client's lead is committed, queued and
  // delivered before the first hanging attempt times out (the assertion below depends on it).
  const TIMEOUT_MS = 3_000;
  let kb: Kbchat;
  let pool: Pool;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    receiver.respond((req) => (req.path === '/slow' ? 'hang' : 200));
    kb = await startKbchat({
      services: ['gateway', 'crawler'],
      env: {
        WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        WEBHOOK_CONCURRENCY: '4',
        WEBHOOK_PER_CLIENT_CONCURRENCY: '2',
        WEBHOOK_MAX_ATTEMPTS: '1',
        WEBHOOK_BACKOFF_MS: '100',
      },
    });
    pool = kb.process.runtime.pool;
  });
  afterAll(async () => {
    await kb?.stop();
    await receiver?.stop();
  });

  it('the default timeout is 10 s and the webhook client uses the configured one', () => {
    const defaults = loadConfig({});
    expect(defaults.WEBHOOK_TIMEOUT_MS).toBe(10_000);
    expect(createWebhookHttpClient(defaults).defaults.options.timeout.request).toBe(10_000);
    expect(createWebhookHttpClient(kb.config).defaults.options.timeout.request).toBe(TIMEOUT_MS);
  });

  it("times the hanging attempts out and delivers another client's webhook meanwhile", async () => {
    const slow = await createClient(kb.baseUrl, { leadWebhookUrl: receiver.url('/slow') });
    const fast = await createClient(kb.baseUrl, { leadWebhookUrl: receiver.url('/fast') });
    // More hanging leads than webhook workers: without the per-client cap they would take every slot.
    const slowLeads: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await api<{ leadId: string }>(kb.baseUrl, 'POST', '/api/lead', {
        clientId: slow.clientId,
        name: `S${i}`,
        email: `s${i}@example.com`,
      });
      expect(res.status).toBe(200);
      slowLeads.push(res.body.leadId);
    }
    await receiver.waitForRequests(2, { path: '/slow' });
    // When the fast client's webhook arrives: how many slow attempts had ended (timed out) by then?
    let slowAttemptsEndedBeforeFast = -1;
    receiver.respond(async (req) => {
      if (req.path === '/slow') return 'hang';
      const { rows } = await pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM webhook_deliveries WHERE lead_id = ANY($1::uuid[])',
        [slowLeads],
      );
      slowAttemptsEndedBeforeFast = rows[0]?.n ?? -1;
      return 200;
    });

    const res = await api<{ leadId: string }>(kb.baseUrl, 'POST', '/api/lead', {
      clientId: fast.clientId,
      name: 'F',
      email: 'f@example.com',
    });
    const [fastReq] = await receiver.waitForRequests(1, { path: '/fast' });
    // The fast client's webhook arrived while the slow client's requests were still hanging.
    expect(fastReq?.openElsewhereAtArrival).toBeGreaterThan(0);
    // ...and before any of them had timed out: it did not wait for a slot freed by a timeout.
    expect(slowAttemptsEndedBeforeFast).toBe(0);
    await waitFor(
      async () =>
        (await pool.query("SELECT 1 FROM leads WHERE id = $1 AND webhook_status = 'delivered'", [res.body.leadId])).rows.length === 1,
      { what: 'the fast lead to be delivered' },
    );

    // Every slow attempt ends as a timeout at the configured value, and the leads end failed.
    await waitFor(
      async () =>
        (await pool.query("SELECT 1 FROM leads WHERE id = ANY($1::uuid[]) AND webhook_status = 'failed'", [slowLeads])).rows.length ===
        slowLeads.length,
      { what: 'every slow lead to fail', timeoutMs: 45_000 },
    );
    const { rows } = await pool.query<{ outcome: string; error: string; lead_id: string; attempt: number; created_at: Date }>(
      'SELECT outcome, error, lead_id, attempt, created_at FROM webhook_deliveries WHERE lead_id = ANY($1::uuid[]) ORDER BY id',
      [slowLeads],
    );
    expect(rows, JSON.stringify(rows, null, 1)).toHaveLength(slowLeads.length);
    for (const row of rows) {
      expect(row.outcome).toBe('error');
      expect(row.error).toMatch(new RegExp(`ETIMEDOUT: Timeout awaiting 'request' for ${TIMEOUT_MS}ms`));
    }
    // Never more of the slow client's requests in flight than its share.
    expect(receiver.maxConcurrent('/slow')).toBeLessThanOrEqual(2);
    expect(receiver.on('/slow')).toHaveLength(slowLeads.length);
  });
});
