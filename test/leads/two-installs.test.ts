import { randomUUID } from 'node:crypto';
import type { Pool } from '@kbchat/shared/db/pool';
import { adoptQueue, installTag } from '@kbchat/shared/install';
import { createWorkerRedis, deleteKeys, Redis } from '@kbchat/shared/redis';
import { Worker } from 'bullmq';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createClient, type Kbchat, startKbchat, tempDir, waitFor } from '../support/kbchat.ts';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

/**
 * Two kbchat installs — each with a database of its own — on one Redis. A worker of one install
 * used to take the other's webhook jobs, find no such lead and complete them, and the outbox, seeing
 * a completed job, never enqueued them again: 4 of 8 leads never reached their webhook.
 */

const ENV = {
  WEBHOOK_OUTBOX_SWEEP_MS: '300',
  WEBHOOK_OUTBOX_MIN_AGE_MS: '500',
  WEBHOOK_OUTBOX_STALE_MS: '2000',
  WEBHOOK_BACKOFF_MS: '200',
};

const LEADS_PER_INSTALL = 8;

const createPoolForTest = (url: string) => new pg.Pool({ connectionString: url, max: 2 });

async function postLeads(kb: Kbchat, clientId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await api<{ leadId: string }>(kb.baseUrl, 'POST', '/api/lead', { clientId, name: `Lead ${i}`, email: `l${i}@example.com` });
    expect(res.status).toBe(200);
    ids.push(res.body.leadId);
  }
  return ids;
}

async function statuses(pool: Pool, clientId: string): Promise<Record<string, number>> {
  const { rows } = await pool.query<{ webhook_status: string; n: number }>(
    'SELECT webhook_status, count(*)::int AS n FROM leads WHERE client_id = $1 GROUP BY webhook_status',
    [clientId],
  );
  return Object.fromEntries(rows.map((r) => [r.webhook_status, r.n]));
}

describe('two installs on one Redis', () => {
  let receiver: WebhookReceiver;
  const started: Kbchat[] = [];
  const databases: ScratchDatabase[] = [];
  const start = async (options: Parameters<typeof startKbchat>[0]) => {
    const kb = await startKbchat(options);
    started.push(kb);
    return kb;
  };
  const database = async () => {
    const db = await createScratchDatabase();
    databases.push(db);
    return db;
  };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterEach(async () => {
    for (const kb of started.splice(0).reverse()) await kb.stop();
  });
  afterAll(async () => {
    for (const db of databases) await db.drop();
    await receiver?.stop();
  });

  /** Both installs take leads at once; each lead must reach its own install's receiver exactly once. */
  const deliverBoth = async (a: Kbchat, b: Kbchat, tag: string) => {
    const clientA = await createClient(a.baseUrl, { leadWebhookUrl: receiver.url(`/${tag}-a`) });
    const clientB = await createClient(b.baseUrl, { leadWebhookUrl: receiver.url(`/${tag}-b`) });
    const startedAt = Date.now();
    const [leadsA, leadsB] = await Promise.all([
      postLeads(a, clientA.clientId, LEADS_PER_INSTALL),
      postLeads(b, clientB.clientId, LEADS_PER_INSTALL),
    ]);
    const both = async () => ({
      a: await statuses(a.process.runtime.pool, clientA.clientId),
      b: await statuses(b.process.runtime.pool, clientB.clientId),
    });
    try {
      await waitFor(async () => {
        const now = await both();
        return now.a.delivered === LEADS_PER_INSTALL && now.b.delivered === LEADS_PER_INSTALL;
      });
    } catch {
      throw new Error(`not every lead delivered after 30 s: ${JSON.stringify(await both())}`);
    }
    const seconds = (Date.now() - startedAt) / 1000;
    for (const [path, leads] of [
      [`/${tag}-a`, leadsA],
      [`/${tag}-b`, leadsB],
    ] as const) {
      const counts = receiver.countByWebhookId(path);
      expect(new Set(counts.keys())).toEqual(new Set(leads.map((id) => `msg_${id}`)));
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
    }
    process.stderr.write(
      `[two installs, ${tag}] delivered ${receiver.on(`/${tag}-a`).length}/${LEADS_PER_INSTALL} + ${receiver.on(`/${tag}-b`).length}/${LEADS_PER_INSTALL} in ${seconds.toFixed(1)} s\n`,
    );
  };

  it('with the same explicit REDIS_PREFIX: each sees the other, and every lead of each reaches its webhook once', async () => {
    const prefix = `kbt-${inject('runId')}-two-${randomUUID().slice(0, 6)}`;
    const env = { ...ENV, REDIS_PREFIX: prefix };
    const a = await start({ services: ['gateway', 'crawler'], env: { ...env, DATABASE_URL: (await database()).url } });
    const b = await start({ services: ['gateway', 'crawler'], env: { ...env, DATABASE_URL: (await database()).url } });
    const [idA, idB] = [a.process.runtime.installId, b.process.runtime.installId];
    expect(idA).not.toBe(idB);
    // The second install saw the first at start; the first sees the second at its next check.
    expect(b.process.runtime.queueOwners.others()).toEqual([idA]);
    expect(await a.process.runtime.queueOwners.check()).toEqual([idB]);
    // Each database's jobs are on queues of its own under the shared prefix: none is handed to the other.
    const prefixes = [a, b].map((kb) => kb.process.runtime.queues.webhook.queue.opts.prefix);
    expect(prefixes).toEqual([`{${prefix}-${installTag(idA)}}`, `{${prefix}-${installTag(idB)}}`]);
    await deliverBoth(a, b, 'shared');
  });

  it('a lead whose job another database completed (a worker that does not know owners) is enqueued again and delivered', async () => {
    const prefix = `kbt-${inject('runId')}-gone-${randomUUID().slice(0, 6)}`;
    const env = { ...ENV, REDIS_PREFIX: prefix, DATABASE_URL: (await database()).url };
    const gateway = await start({ services: ['gateway'], env });
    const client = await createClient(gateway.baseUrl, { leadWebhookUrl: receiver.url('/gone') });
    const leads = await postLeads(gateway, client.clientId, 3);
    const queue = gateway.process.runtime.queues.webhook.queue;

    // As the other install's worker did: no such lead in its database, so the job is done.
    const connection = createWorkerRedis(inject('redisUrl'));
    const foreign = new Worker('webhook', async () => ({ kind: 'skipped', reason: 'gone' }), { connection, prefix: queue.opts.prefix });
    try {
      await waitFor(async () => (await Promise.all(leads.map((id) => queue.getJobState(`lead-${id}`)))).every((s) => s === 'completed'), {
        what: 'the foreign worker to complete every job',
      });
    } finally {
      await foreign.close();
      connection.disconnect();
    }
    const pool = gateway.process.runtime.pool;
    expect(await statuses(pool, client.clientId)).toEqual({ queued: 3 });
    expect(receiver.on('/gone')).toHaveLength(0);

    // The lead rows still say undelivered: the crawler's outbox gives each a new job.
    await start({ services: ['crawler'], env });
    await waitFor(async () => (await statuses(pool, client.clientId)).delivered === 3, { what: 'the three leads to be delivered' });
    expect(receiver.countByWebhookId('/gone')).toEqual(new Map(leads.map((id) => [`msg_${id}`, 1])));
    const { rows } = await pool.query<{ id: string; webhook_job: string }>('SELECT id, webhook_job FROM leads WHERE client_id = $1', [
      client.clientId,
    ]);
    for (const row of rows) expect(row.webhook_job).toBe(`lead-${row.id}.2`);
  });

  it('with no REDIS_PREFIX on embedded databases: each install has queues of its own, and every lead reaches its webhook once', async () => {
    const embedded = { ...ENV, DATABASE_URL: undefined, REDIS_PREFIX: undefined };
    const a = await start({ services: ['gateway', 'crawler'], env: { ...embedded, DATA_DIR: await tempDir('kbchat-install-a-') } });
    const b = await start({ services: ['gateway', 'crawler'], env: { ...embedded, DATA_DIR: await tempDir('kbchat-install-b-') } });
    const prefixes = [a.process.runtime.config.REDIS_PREFIX, b.process.runtime.config.REDIS_PREFIX];
    const redis = new Redis(inject('redisUrl'), { maxRetriesPerRequest: 1 });
    try {
      expect(prefixes[0]).toBe(`kbchat-${a.process.runtime.installId.replaceAll('-', '').slice(0, 12)}`);
      expect(prefixes[1]).toMatch(/^kbchat-[0-9a-f]{12}$/);
      expect(prefixes[0]).not.toBe(prefixes[1]);
      expect(a.process.runtime.queueOwners.others()).toEqual([]);
      expect(await b.process.runtime.queueOwners.check()).toEqual([]);
      await deliverBoth(a, b, 'embedded');
    } finally {
      for (const kb of started.splice(0).reverse()) await kb.stop();
      for (const p of prefixes) await deleteKeys(redis, `*${p}*`);
      redis.disconnect();
    }
  });

  it('an embedded install upgraded from the shared prefix takes its own undelivered leads and unfinished jobs along', async () => {
    const db = await database();
    const pool = createPoolForTest(db.url);
    try {
      const { rows } = await pool.query<{ id: string }>(
        "INSERT INTO clients (name, webhook_secret) VALUES ('Upgraded', 'whsec_x') RETURNING id",
      );
      const clientId = rows[0]?.id;
      const lead = async (status: string, queue: string) =>
        (
          await pool.query<{ id: string }>(
            `INSERT INTO leads (client_id, name, email, webhook_status, webhook_queue) VALUES ($1, 'L', 'l@example.com', $2, $3) RETURNING id`,
            [clientId, status, queue],
          )
        ).rows[0]?.id;
      const [pending, queued, delivered, other] = [
        await lead('pending', 'kbchat'),
        await lead('queued', 'kbchat'),
        await lead('delivered', 'kbchat'),
        await lead('pending', 'elsewhere'),
      ];
      const job = async (status: string) =>
        (
          await pool.query<{ id: string }>(
            `INSERT INTO jobs (client_id, kind, status, options) VALUES ($1, 'crawl', $2, '{"queue": "kbchat"}') RETURNING id`,
            [clientId, status],
          )
        ).rows[0]?.id;
      const [active, done] = [await job('active'), await job('completed')];

      expect(await adoptQueue(pool, 'kbchat', 'kbchat-0123456789ab')).toEqual({ leads: 2, jobs: 1 });
      const queues = await pool.query<{ id: string; webhook_queue: string }>('SELECT id, webhook_queue FROM leads WHERE client_id = $1', [
        clientId,
      ]);
      expect(Object.fromEntries(queues.rows.map((r) => [r.id, r.webhook_queue]))).toEqual({
        [pending as string]: 'kbchat-0123456789ab',
        [queued as string]: 'kbchat-0123456789ab',
        [delivered as string]: 'kbchat',
        [other as string]: 'elsewhere',
      });
      const jobs = await pool.query<{ id: string; queue: string }>(
        "SELECT id, options ->> 'queue' AS queue FROM jobs WHERE client_id = $1",
        [clientId],
      );
      expect(Object.fromEntries(jobs.rows.map((r) => [r.id, r.queue]))).toEqual({
        [active as string]: 'kbchat-0123456789ab',
        [done as string]: 'kbchat',
      });
    } finally {
      await pool.end();
    }
  });
});
