import { randomUUID } from 'node:crypto';
import type { Pool } from '@kbchat/shared/db/pool';
import { createWorkerRedis, type PrivateRedis, startPrivateRedis } from '@kbchat/shared/redis';
import { UnrecoverableError, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createClient, type Kbchat, startKbchat, tempDir, waitFor } from '../support/kbchat.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * The lead outbox: a lead is committed first, so a Redis outage never loses it; the crawler's sweep
 * enqueues what the request could not, and each webhook still arrives exactly once.
 * Redis is stopped here, so these tests run their own redis-server, never the shared one.
 */

const OUTBOX_ENV = {
  WEBHOOK_OUTBOX_SWEEP_MS: '300',
  WEBHOOK_OUTBOX_MIN_AGE_MS: '500',
  WEBHOOK_OUTBOX_STALE_MS: '2000',
  WEBHOOK_BACKOFF_MS: '200',
  LEAD_RATE_LIMIT_PER_HOUR: '100000',
  LEAD_CLIENT_LIMIT_PER_HOUR: '100000',
};

describe('lead outbox across a Redis outage', () => {
  let dir: string;
  let redis: PrivateRedis & { port: number };
  let kb: Kbchat;
  let pool: Pool;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    dir = await tempDir('kbchat-leads-redis-');
    redis = await startPrivateRedis(dir);
    receiver = await startWebhookReceiver();
    kb = await startKbchat({ services: ['gateway', 'crawler'], env: { ...OUTBOX_ENV, REDIS_URL: redis.url } });
    pool = kb.process.runtime.pool;
  });
  afterAll(async () => {
    await kb?.stop();
    await redis?.stop();
    await receiver?.stop();
  });

  const restartRedis = async () => {
    redis = await startPrivateRedis(dir, undefined, redis.port);
  };
  const statuses = async (clientId: string) => {
    const { rows } = await pool.query<{ webhook_status: string; n: number }>(
      'SELECT webhook_status, count(*)::int AS n FROM leads WHERE client_id = $1 GROUP BY webhook_status',
      [clientId],
    );
    return Object.fromEntries(rows.map((r) => [r.webhook_status, r.n]));
  };

  it('answers 200 while Redis is down, keeps the lead pending, and delivers it once Redis is back', async () => {
    const client = await createClient(kb.baseUrl, { leadWebhookUrl: receiver.url('/single') });
    await redis.stop();
    const res = await api<{ success: boolean; leadId: string }>(kb.baseUrl, 'POST', '/api/lead', {
      clientId: client.clientId,
      name: 'Down Time',
      email: 'down@example.com',
    });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    // Redis could not count: the limits were counted from the stored leads instead.
    expect(res.headers.get('ratelimit-limit')).toBe('100000');
    expect(res.headers.get('ratelimit-remaining')).toBe('99999');
    const { rows } = await pool.query('SELECT webhook_status FROM leads WHERE id = $1', [res.body.leadId]);
    expect(rows[0]).toEqual({ webhook_status: 'pending' });

    await restartRedis();
    const [req] = await receiver.waitForRequests(1, { path: '/single' });
    expect(req?.webhookId).toBe(`msg_${res.body.leadId}`);
    expect(receiver.verify(req as NonNullable<typeof req>, client.webhookSecret)).toBe(true);
    await waitFor(async () => (await statuses(client.clientId)).delivered === 1, { what: 'the lead to be delivered' });
  });

  it('fault b: Redis restarted while 200 leads are posted — all stored, each delivered exactly once', async () => {
    const client = await createClient(kb.baseUrl, { leadWebhookUrl: receiver.url('/burst') });
    const total = 200;
    const concurrency = 8;
    const results: { status: number; leadId?: string }[] = [];
    let next = 0;
    let answered = 0;
    let answeredWhenDown: number | undefined;
    let restarted: Promise<void> | undefined;

    const worker = async () => {
      while (next < total) {
        const i = next++;
        const res = await api<{ leadId: string }>(kb.baseUrl, 'POST', '/api/lead', {
          clientId: client.clientId,
          name: `Lead ${i}`,
          email: `lead${i}@example.com`,
          sessionId: `s-${i}`,
        });
        results[i] = { status: res.status, leadId: res.body?.leadId };
        answered++;
        // Redis goes down a quarter of the way in, stays down for 40 answered leads, and comes back mid-traffic.
        if (answered === 50) {
          void redis.stop().then(() => {
            answeredWhenDown = answered;
          });
        }
        if (answeredWhenDown !== undefined && answered >= answeredWhenDown + 40) restarted ??= restartRedis();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    expect(restarted).toBeDefined();
    await restarted;

    expect(results.filter((r) => r.status === 200)).toHaveLength(total);
    const leadIds = new Set(results.map((r) => r.leadId));
    expect(leadIds.size).toBe(total);
    const stored = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM leads WHERE client_id = $1', [client.clientId]);
    expect(stored.rows[0]?.n).toBe(total);

    try {
      await waitFor(async () => (await statuses(client.clientId)).delivered === total, { timeoutMs: 45_000 });
    } catch {
      const left = await pool.query<{ id: string; webhook_status: string; webhook_attempts: number }>(
        "SELECT id, webhook_status, webhook_attempts FROM leads WHERE client_id = $1 AND webhook_status <> 'delivered' LIMIT 5",
        [client.clientId],
      );
      const jobs = await Promise.all(left.rows.map((l) => kb.process.runtime.queues.webhook.queue.getJob(`lead-${l.id}`)));
      const detail = left.rows.map((l, i) => ({
        ...l,
        job: jobs[i] && { state: jobs[i]?.failedReason, attemptsMade: jobs[i]?.attemptsMade },
      }));
      throw new Error(`not all delivered: ${JSON.stringify(await statuses(client.clientId))} ${JSON.stringify(detail)}`);
    }
    await receiver.waitForRequests(total, { path: '/burst' });
    // Several sweep and stale-check periods later, still nothing sent twice.
    await new Promise((r) => setTimeout(r, 2_500));
    const counts = receiver.countByWebhookId('/burst');
    expect(counts.size).toBe(total);
    expect([...counts.values()].filter((n) => n !== 1)).toEqual([]);
    expect(new Set(counts.keys())).toEqual(new Set([...leadIds].map((id) => `msg_${id}`)));
    const delivered = await pool.query<{ n: number; attempts: number }>(
      "SELECT count(*)::int AS n, count(DISTINCT lead_id)::int AS attempts FROM webhook_deliveries WHERE client_id = $1 AND outcome = 'delivered'",
      [client.clientId],
    );
    expect(delivered.rows[0]).toEqual({ n: total, attempts: total });
    // At least the leads posted while Redis was down reached Redis only through the sweep.
    const swept = await pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM leads WHERE client_id = $1 AND webhook_queued_at - created_at >= interval '400 milliseconds'",
      [client.clientId],
    );
    expect(swept.rows[0]?.n).toBeGreaterThanOrEqual(40);
    process.stderr.write(
      `[fault b] posted ${total}, answered 200: ${results.filter((r) => r.status === 200).length}, stored ${stored.rows[0]?.n}, ` +
        `delivered ${counts.size} distinct webhook-ids, duplicates ${[...counts.values()].filter((n) => n > 1).length}, ` +
        `enqueued by the outbox sweep ≥ ${swept.rows[0]?.n}\n`,
    );
  });
});

describe('lead outbox: a job that vanished from Redis', () => {
  let gateway: Kbchat | undefined;
  let crawler: Kbchat | undefined;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await crawler?.stop();
    await gateway?.stop();
    await receiver?.stop();
  });

  it("re-enqueues a lead whose job vanished or failed with attempts left, fails one with none left, leaves other deployments' leads", async () => {
    // Two processes on one queue, as in production: the gateway enqueues, a crawler delivers.
    const prefix = `kbt-${inject('runId')}-vanish-${randomUUID().slice(0, 6)}`;
    const env = { ...OUTBOX_ENV, REDIS_PREFIX: prefix, WEBHOOK_MAX_ATTEMPTS: '3' };
    gateway = await startKbchat({ services: ['gateway'], env });
    const client = await createClient(gateway.baseUrl, { leadWebhookUrl: receiver.url('/vanish') });
    const post = async (name: string) => {
      const res = await api<{ leadId: string }>(gateway!.baseUrl, 'POST', '/api/lead', {
        clientId: client.clientId,
        name,
        email: 'v@example.com',
      });
      expect(res.status).toBe(200);
      return res.body.leadId;
    };
    const [vanished, failedJob, exhausted] = [await post('vanished'), await post('failed job'), await post('exhausted')];
    const gatewayPool = gateway.process.runtime.pool;
    const status = async (pool: Pool, id: string | undefined) =>
      (await pool.query<{ webhook_status: string }>('SELECT webhook_status FROM leads WHERE id = $1', [id])).rows[0]?.webhook_status;
    for (const id of [vanished, failedJob, exhausted]) expect(await status(gatewayPool, id)).toBe('queued');

    // One job is removed from Redis; two fail in a worker that is not kbchat's (as a job that stalled
    // too often across Redis restarts would), before kbchat's worker ever ran them.
    const queue = gateway.process.runtime.queues.webhook.queue;
    await queue.remove(`lead-${vanished}`);
    expect(await queue.getJobState(`lead-${vanished}`)).toBe('unknown');
    const connection = createWorkerRedis(inject('redisUrl'));
    const breaker = new Worker(
      'webhook',
      async () => {
        throw new UnrecoverableError('job stalled more than allowable limit');
      },
      { connection, prefix: queue.opts.prefix },
    );
    await waitFor(
      async () =>
        (await queue.getJobState(`lead-${exhausted}`)) === 'failed' && (await queue.getJobState(`lead-${failedJob}`)) === 'failed',
    );
    await breaker.close();
    connection.disconnect();
    await gatewayPool.query('UPDATE leads SET webhook_attempts = 3 WHERE id = $1', [exhausted]);

    // A pending lead of another deployment (another REDIS_PREFIX) on the same database: not this sweep's to take.
    const foreign = await gatewayPool.query<{ id: string }>(
      `INSERT INTO leads (client_id, name, email, webhook_status, webhook_queue, created_at)
       VALUES ($1, 'Other', 'other@example.com', 'pending', 'another-deployment', now() - interval '1 hour') RETURNING id`,
      [client.clientId],
    );
    await gateway.stop();
    gateway = undefined;

    crawler = await startKbchat({ services: ['crawler'], env });
    const pool = crawler.process.runtime.pool;
    await receiver.waitForRequests(2, { path: '/vanish' });
    await waitFor(async () => (await status(pool, vanished)) === 'delivered' && (await status(pool, failedJob)) === 'delivered');
    await waitFor(async () => (await status(pool, exhausted)) === 'failed');
    expect(receiver.countByWebhookId()).toEqual(
      new Map([
        [`msg_${vanished}`, 1],
        [`msg_${failedJob}`, 1],
      ]),
    );
    expect(await status(pool, foreign.rows[0]?.id)).toBe('pending');
  });
});
