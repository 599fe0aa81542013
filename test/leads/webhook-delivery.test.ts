import { insertClient } from '@kbchat/shared/db/clients';
import type { Pool } from '@kbchat/shared/db/pool';
import { freePort } from '@kbchat/shared/redis';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createClient, type Kbchat, startKbchat, waitFor } from '../support/kbchat.ts';
import { type ReceivedWebhook, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

/** Lead webhooks end to end: gateway → Postgres → Redis → crawler → a real receiver (spec §6, DESIGN.md §5). */

const WEBHOOK_ENV = {
  WEBHOOK_BACKOFF_MS: '100',
  WEBHOOK_MAX_ATTEMPTS: '4',
  WEBHOOK_TIMEOUT_MS: '5000',
  WEBHOOK_OUTBOX_SWEEP_MS: '500',
  WEBHOOK_OUTBOX_MIN_AGE_MS: '1000',
};

interface DeliveryRow {
  attempt: number;
  outcome: string;
  status_code: number | null;
  error: string | null;
  message_id: string;
}

/** Post a lead and read its delivery state, against the service a describe block started. */
function leadHelpers(kbOf: () => Kbchat, poolOf: () => Pool) {
  const postLead = async (clientId: string, extra: Record<string, unknown> = {}) => {
    const res = await api<{ leadId: string }>(kbOf().baseUrl, 'POST', '/api/lead', {
      clientId,
      name: 'Grace Hopper',
      email: 'grace@example.com',
      ...extra,
    });
    expect(res.status).toBe(200);
    return res.body.leadId;
  };
  const leadStatus = async (leadId: string) =>
    (await poolOf().query<{ webhook_status: string }>('SELECT webhook_status FROM leads WHERE id = $1', [leadId])).rows[0]?.webhook_status;
  const waitForStatus = (leadId: string, status: string) =>
    waitFor(async () => (await leadStatus(leadId)) === status, { what: `lead ${leadId} to be ${status}` });
  const deliveries = async (leadId: string) =>
    (
      await poolOf().query<DeliveryRow>(
        'SELECT attempt, outcome, status_code, error, message_id FROM webhook_deliveries WHERE lead_id = $1 ORDER BY id',
        [leadId],
      )
    ).rows;
  return { postLead, leadStatus, waitForStatus, deliveries };
}

describe('lead webhooks', () => {
  let kb: Kbchat;
  let pool: Pool;
  let receiver: WebhookReceiver;
  /** lead id → whether its row was committed when its webhook arrived. */
  const rowAtArrival = new Map<string, boolean>();
  const answers = new Map<string, number>();

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    kb = await startKbchat({ services: ['gateway', 'crawler'], env: WEBHOOK_ENV });
    pool = kb.process.runtime.pool;
    receiver.respond(async (req) => {
      const leadId = leadIdOf(req);
      if (leadId) {
        const { rows } = await pool.query('SELECT 1 FROM leads WHERE id = $1', [leadId]);
        rowAtArrival.set(leadId, rows.length === 1);
      }
      return answers.get(req.path) ?? 200;
    });
  });
  afterAll(async () => {
    await kb?.stop();
    await receiver?.stop();
  });

  const { postLead, leadStatus, waitForStatus, deliveries } = leadHelpers(
    () => kb,
    () => pool,
  );
  const jobState = (leadId: string) => kb.process.runtime.queues.webhook.queue.getJobState(`lead-${leadId}`);

  it('sends the envelope form field by field (null phone, message and sessionId), signed, after the row is committed', async () => {
    const client = await createClient(kb.baseUrl, { name: 'Acme Plumbing', leadWebhookUrl: receiver.url('/envelope') });
    const leadId = await postLead(client.clientId, { name: 'Ada Lovelace', email: 'ada@example.com' });
    const [req] = (await receiver.waitForRequests(1, { path: '/envelope' })) as [ReceivedWebhook];

    expect(req.method).toBe('POST');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['user-agent']).toMatch(/^kbchat-webhooks\//);
    expect(req.webhookId).toBe(`msg_${leadId}`);
    expect(req.body).toEqual({
      event: 'lead.created',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: {
        id: leadId,
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        phone: null,
        message: null,
        clientId: client.clientId,
        clientName: 'Acme Plumbing',
        sessionId: null,
      },
    });
    const { rows } = await pool.query<{ created_at: Date }>('SELECT created_at FROM leads WHERE id = $1', [leadId]);
    expect((req.body as { timestamp: string }).timestamp).toBe(rows[0]?.created_at.toISOString());
    expect(rowAtArrival.get(leadId)).toBe(true);

    // The signature holds for the client's secret: by the receiver's own HMAC code and by the reference library.
    expect(receiver.verify(req, client.webhookSecret)).toBe(true);
    const wh = new Webhook(client.webhookSecret);
    expect(wh.verify(req.rawBody, req.headers as Record<string, string>)).toEqual(req.body);
    // A tampered body, another secret or another id fail it.
    const tampered = req.rawBody.replace('ada@example.com', 'eve@example.com');
    expect(receiver.verify({ ...req, rawBody: tampered }, client.webhookSecret)).toBe(false);
    expect(() => wh.verify(tampered, req.headers as Record<string, string>)).toThrow();
    const other = await createClient(kb.baseUrl);
    expect(receiver.verify(req, other.webhookSecret)).toBe(false);
    expect(receiver.verify({ ...req, headers: { ...req.headers, 'webhook-id': 'msg_other' } }, client.webhookSecret)).toBe(false);

    await waitForStatus(leadId, 'delivered');
    expect(await deliveries(leadId)).toEqual([
      { attempt: 1, outcome: 'delivered', status_code: 200, error: null, message_id: `msg_${leadId}` },
    ]);

    const listed = await api<{ leads: { leadId: string; webhookStatus: string }[] }>(
      kb.baseUrl,
      'GET',
      `/api/admin/clients/${client.clientId}/leads`,
    );
    expect(listed.body.leads).toEqual([expect.objectContaining({ leadId, webhookStatus: 'delivered' })]);
    const log = await api<{ deliveries: Record<string, unknown>[]; total: number }>(
      kb.baseUrl,
      'GET',
      `/api/admin/clients/${client.clientId}/webhook-deliveries?leadId=${leadId}`,
    );
    expect(log.body.total).toBe(1);
    expect(log.body.deliveries[0]).toEqual({
      deliveryId: expect.any(String),
      leadId,
      webhookId: `msg_${leadId}`,
      url: receiver.url('/envelope'),
      attempt: 1,
      outcome: 'delivered',
      statusCode: 200,
      error: null,
      durationMs: expect.any(Number),
      createdAt: expect.any(String),
    });
    expect(JSON.stringify(log.body)).not.toContain(client.webhookSecret);
  });

  it('sends the flat form field by field when the client chose it', async () => {
    const client = await createClient(kb.baseUrl, { name: 'Flat Co', leadWebhookUrl: receiver.url('/flat'), webhookFormat: 'flat' });
    const leadId = await postLead(client.clientId, {
      name: 'Alan Turing',
      email: 'alan@example.com',
      phone: '+44 161 496 0000',
      message: 'Looking for a demo',
      sessionId: 'sess-42',
    });
    const [req] = (await receiver.waitForRequests(1, { path: '/flat' })) as [ReceivedWebhook];
    expect(req.body).toEqual({
      name: 'Alan Turing',
      email: 'alan@example.com',
      phone: '+44 161 496 0000',
      message: 'Looking for a demo',
      clientId: client.clientId,
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      leadId,
      clientName: 'Flat Co',
      sessionId: 'sess-42',
    });
    expect(req.body).not.toHaveProperty('event');
    expect(req.body).not.toHaveProperty('data');
    expect(req.webhookId).toBe(`msg_${leadId}`);
    expect(receiver.verify(req, client.webhookSecret)).toBe(true);
    await waitForStatus(leadId, 'delivered');
  });

  it('carries the envelope phone, message and sessionId when given', async () => {
    const client = await createClient(kb.baseUrl, { leadWebhookUrl: receiver.url('/envelope-full') });
    const leadId = await postLead(client.clientId, { phone: '555-0100', message: 'Call me', sessionId: 'abc' });
    const [req] = (await receiver.waitForRequests(1, { path: '/envelope-full' })) as [ReceivedWebhook];
    expect((req.body as { data: Record<string, unknown> }).data).toMatchObject({
      id: leadId,
      phone: '555-0100',
      message: 'Call me',
      sessionId: 'abc',
    });
  });

  it('takes 201 and 204 as delivered', async () => {
    for (const status of [201, 204]) {
      const path = `/ok-${status}`;
      answers.set(path, status);
      const client = await createClient(kb.baseUrl, { leadWebhookUrl: receiver.url(path) });
      const leadId = await postLead(client.clientId);
      await waitForStatus(leadId, 'delivered');
      expect(await deliveries(leadId)).toEqual([expect.objectContaining({ outcome: 'delivered', status_code: status })]);
    }
  });

  it('logs a non-2xx answer and never retries it', async () => {
    for (const status of [500, 404, 410, 302]) {
      const path = `/reject-${status}`;
      answers.set(path, status);
      const client = await createClient(kb.baseUrl, { leadWebhookUrl: receiver.url(path) });
      const leadId = await postLead(client.clientId);
      await waitForStatus(leadId, 'failed');
      // The job is completed: BullMQ will never run it again.
      await waitFor(async () => (await jobState(leadId)) === 'completed', { what: 'the webhook job to complete' });
      expect(await deliveries(leadId)).toEqual([
        { attempt: 1, outcome: 'rejected', status_code: status, error: null, message_id: `msg_${leadId}` },
      ]);
      expect(receiver.on(path)).toHaveLength(1);
    }
    // Many backoff periods later, still one request each.
    await new Promise((r) => setTimeout(r, 1_000));
    for (const status of [500, 404, 410, 302]) expect(receiver.on(`/reject-${status}`)).toHaveLength(1);
  });

  it('retries a receiver that is down and delivers exactly once when it is back', async () => {
    const flaky = await startWebhookReceiver();
    try {
      const client = await createClient(kb.baseUrl, { leadWebhookUrl: flaky.url('/hook') });
      await flaky.stop();
      const leadId = await postLead(client.clientId);
      await waitFor(async () => (await deliveries(leadId)).length >= 2, { what: 'two failed attempts' });
      expect(await leadStatus(leadId)).toBe('queued');
      await flaky.start();
      await waitForStatus(leadId, 'delivered');
      expect(flaky.countByWebhookId()).toEqual(new Map([[`msg_${leadId}`, 1]]));
      const rows = await deliveries(leadId);
      expect(rows.at(-1)).toMatchObject({ outcome: 'delivered', status_code: 200 });
      expect(rows.slice(0, -1).every((r) => r.outcome === 'error' && /ECONNREFUSED/.test(r.error ?? ''))).toBe(true);
      expect(rows.map((r) => r.attempt)).toEqual(rows.map((_, i) => i + 1));
      expect(flaky.verify(flaky.requests[0] as ReceivedWebhook, client.webhookSecret)).toBe(true);
      await waitFor(async () => (await jobState(leadId)) === 'completed', { what: 'the webhook job to complete' });
      expect(flaky.requests).toHaveLength(1);
    } finally {
      await flaky.stop();
    }
  });

  it('marks the lead failed after the last attempt of an unreachable receiver', async () => {
    const port = await freePort();
    const client = await createClient(kb.baseUrl, { leadWebhookUrl: `http://127.0.0.1:${port}/nobody` });
    const leadId = await postLead(client.clientId);
    await waitForStatus(leadId, 'failed');
    const rows = await deliveries(leadId);
    expect(rows.map((r) => [r.attempt, r.outcome])).toEqual([
      [1, 'error'],
      [2, 'error'],
      [3, 'error'],
      [4, 'error'],
    ]);
    await waitFor(async () => (await jobState(leadId)) === 'failed', { what: 'the webhook job to fail' });
  });

  it('sends nothing for a client without a webhook URL', async () => {
    const client = await createClient(kb.baseUrl);
    const before = receiver.requests.length;
    const leadId = await postLead(client.clientId);
    expect(await leadStatus(leadId)).toBe('none');
    expect(await jobState(leadId)).toBe('unknown');
    expect(receiver.requests.length).toBe(before);
  });
});

describe('lead webhooks after the client changed its webhook settings', () => {
  let kb: Kbchat;
  let pool: Pool;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    // Attempts enough that a lead is still being retried while the test changes the client.
    kb = await startKbchat({
      services: ['gateway', 'crawler'],
      env: { ...WEBHOOK_ENV, WEBHOOK_BACKOFF_MS: '200', WEBHOOK_MAX_ATTEMPTS: '30' },
    });
    pool = kb.process.runtime.pool;
  });
  afterAll(async () => {
    await kb?.stop();
    await receiver?.stop();
  });

  const { postLead, waitForStatus, deliveries } = leadHelpers(
    () => kb,
    () => pool,
  );

  it('retries to the URL and in the form configured when the lead was captured, after the client changed them', async () => {
    const original = await startWebhookReceiver();
    try {
      const client = await createClient(kb.baseUrl, { leadWebhookUrl: original.url('/at-capture') });
      await original.stop();
      const leadId = await postLead(client.clientId);
      await waitFor(async () => (await deliveries(leadId)).length >= 1, { what: 'a failed attempt' });
      const patched = await api(kb.baseUrl, 'PATCH', `/api/admin/clients/${client.clientId}`, {
        leadWebhookUrl: receiver.url('/changed-later'),
        webhookFormat: 'flat',
      });
      expect(patched.status).toBe(200);
      // A lead captured after the change goes to the new URL, in the new form.
      const later = await postLead(client.clientId);
      const [laterReq] = (await receiver.waitForRequests(1, { path: '/changed-later' })) as [ReceivedWebhook];
      expect(laterReq.body).toMatchObject({ leadId: later });

      await original.start();
      await waitForStatus(leadId, 'delivered');
      expect(original.countByWebhookId()).toEqual(new Map([[`msg_${leadId}`, 1]]));
      const [req] = original.requests as [ReceivedWebhook];
      expect(req.body).toMatchObject({ event: 'lead.created', data: { id: leadId } });
      expect(original.verify(req, client.webhookSecret)).toBe(true);
      expect(receiver.on('/changed-later').map((r) => r.webhookId)).toEqual([`msg_${later}`]);
      const rows = await deliveries(leadId);
      expect(rows.at(-1)).toMatchObject({ outcome: 'delivered', status_code: 200 });
      const urls = await pool.query<{ url: string }>('SELECT DISTINCT url FROM webhook_deliveries WHERE lead_id = $1', [leadId]);
      expect(urls.rows).toEqual([{ url: original.url('/at-capture') }]);
    } finally {
      await original.stop();
    }
  });

  it('sends nothing more for a lead whose client removed its webhook URL before delivery', async () => {
    const down = await startWebhookReceiver();
    try {
      const client = await createClient(kb.baseUrl, { leadWebhookUrl: down.url('/removed') });
      await down.stop();
      const leadId = await postLead(client.clientId);
      await waitFor(async () => (await deliveries(leadId)).length >= 1, { what: 'a failed attempt' });
      const patched = await api(kb.baseUrl, 'PATCH', `/api/admin/clients/${client.clientId}`, { leadWebhookUrl: null });
      expect(patched.status).toBe(200);
      await down.start();
      await waitForStatus(leadId, 'none');
      expect(down.requests).toHaveLength(0);
    } finally {
      await down.stop();
    }
  });
});

describe('lead webhooks to a private address', () => {
  let kb: Kbchat;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    kb = await startKbchat({ services: ['gateway', 'crawler'], env: { ...WEBHOOK_ENV, OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'false' } });
  });
  afterAll(async () => {
    await kb?.stop();
    await receiver?.stop();
  });

  it('refuses to save a webhook URL on a loopback or private address: 400 at once, not failed deliveries later', async () => {
    const expected = (address: string) => ({
      error: 'Invalid request',
      details: [
        expect.stringMatching(
          new RegExp(`^leadWebhookUrl must reach a public address: ${address} is not one.*OUTBOUND_ALLOW_PRIVATE_NETWORKS=true`),
        ),
      ],
    });
    for (const [url, address] of [
      [receiver.url('/internal'), '127.0.0.1'],
      ['http://localhost:9/hook', '(127.0.0.1|::1)'],
      ['http://10.1.2.3/hook', '10.1.2.3'],
      ['http://[::ffff:169.254.169.254]/latest', '::ffff:a9fe:a9fe'],
    ] as const) {
      const created = await api(kb.baseUrl, 'POST', '/api/admin/clients', { name: `private-hook-${address}`, leadWebhookUrl: url });
      expect(created.status, url).toBe(400);
      expect(created.body, url).toEqual(expected(address));
    }
    const client = await createClient(kb.baseUrl, { leadWebhookUrl: null });
    const patched = await api(kb.baseUrl, 'PATCH', `/api/admin/clients/${client.clientId}`, { leadWebhookUrl: receiver.url('/internal') });
    expect(patched.status).toBe(400);
    expect(patched.body).toEqual(expected('127.0.0.1'));
    const after = await api<{ leadWebhookUrl: string | null }>(kb.baseUrl, 'GET', `/api/admin/clients/${client.clientId}`);
    expect(after.body.leadWebhookUrl).toBeNull();
    // A public address, or a name that does not resolve (yet), is saved: delivery judges it again.
    const elsewhere = await api(kb.baseUrl, 'PATCH', `/api/admin/clients/${client.clientId}`, {
      leadWebhookUrl: 'https://hooks.invalid/leads',
    });
    expect(elsewhere.status).toBe(200);
  });

  it('refuses a loopback webhook URL at delivery, logs the attempt and does not retry it', async () => {
    // Saved past the check above, as a client whose name resolved elsewhere when it was saved would be.
    const client = await insertClient(kb.process.runtime.pool, { name: 'Rebound Co', leadWebhookUrl: receiver.url('/internal') });
    const res = await api<{ leadId: string }>(kb.baseUrl, 'POST', '/api/lead', {
      clientId: client.id,
      name: 'M',
      email: 'm@example.com',
    });
    expect(res.status).toBe(200);
    const leadId = res.body.leadId;
    const pool = kb.process.runtime.pool;
    await waitFor(
      async () => (await pool.query('SELECT 1 FROM leads WHERE id = $1 AND webhook_status = $2', [leadId, 'failed'])).rows.length === 1,
      {
        what: 'the lead to fail',
      },
    );
    const { rows } = await pool.query<DeliveryRow>(
      'SELECT attempt, outcome, status_code, error FROM webhook_deliveries WHERE lead_id = $1',
      [leadId],
    );
    expect(rows).toEqual([{ attempt: 1, outcome: 'error', status_code: null, error: expect.stringMatching(/ERR_OUTBOUND_BLOCKED/) }]);
    await waitFor(async () => (await kb.process.runtime.queues.webhook.queue.getJobState(`lead-${leadId}`)) === 'completed');
    expect(receiver.requests).toHaveLength(0);
  });
});

function leadIdOf(req: ReceivedWebhook): string | undefined {
  const body = req.body as { data?: { id?: string }; leadId?: string } | undefined;
  return body?.data?.id ?? body?.leadId;
}
