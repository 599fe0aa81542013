import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';

describe('admin client API', () => {
  let kb: Kbchat;
  beforeAll(async () => {
    kb = await startKbchat({ services: ['gateway'] });
  });
  afterAll(() => kb?.stop());

  it('creates a client (201, secret shown once), reads, lists, patches and deletes it', async () => {
    const created = await api<Record<string, unknown>>(kb.baseUrl, 'POST', '/api/admin/clients', {
      name: 'Acme Plumbing',
      leadWebhookUrl: 'https://hooks.example.com/leads',
      allowedOrigins: ['https://acme.example'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Acme Plumbing',
      leadWebhookUrl: 'https://hooks.example.com/leads',
      webhookFormat: 'envelope',
      allowedOrigins: ['https://acme.example'],
    });
    expect(created.body.clientId).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.body.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const id = created.body.clientId as string;

    const got = await api<Record<string, unknown>>(kb.baseUrl, 'GET', `/api/admin/clients/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.name).toBe('Acme Plumbing');
    expect(got.body).not.toHaveProperty('webhookSecret');

    const list = await api<{ clients: { clientId: string }[]; total: number }>(kb.baseUrl, 'GET', '/api/admin/clients?limit=500');
    expect(list.status).toBe(200);
    expect(list.body.clients.map((c) => c.clientId)).toContain(id);

    const patched = await api<Record<string, unknown>>(kb.baseUrl, 'PATCH', `/api/admin/clients/${id}`, {
      name: 'Acme Plumbing Ltd',
      webhookFormat: 'flat',
      leadWebhookUrl: null,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Acme Plumbing Ltd', webhookFormat: 'flat', leadWebhookUrl: null });
    expect(patched.body).not.toHaveProperty('webhookSecret');

    const rotated = await api<Record<string, unknown>>(kb.baseUrl, 'PATCH', `/api/admin/clients/${id}`, { rotateWebhookSecret: true });
    expect(rotated.body.webhookSecret).toMatch(/^whsec_/);
    expect(rotated.body.webhookSecret).not.toBe(created.body.webhookSecret);

    const del = await api(kb.baseUrl, 'DELETE', `/api/admin/clients/${id}`);
    expect(del.status).toBe(200);
    expect((await api(kb.baseUrl, 'GET', `/api/admin/clients/${id}`)).status).toBe(404);
    expect((await api(kb.baseUrl, 'DELETE', `/api/admin/clients/${id}`)).status).toBe(404);
  });

  it.each([
    [{}, ['name is required']],
    [{ name: '' }, ['name is required']],
    [{ name: 42 }, ['name must be a string']],
    [{ name: 'x', leadWebhookUrl: 'ftp://x' }, ['leadWebhookUrl must be a valid HTTP or HTTPS URL']],
    [{ name: 'x', webhookFormat: 'xml' }, ['webhookFormat must be envelope or flat']],
    [{ name: 'x', allowedOrigins: ['https://a.example/path'] }, ['allowedOrigins.0 must be an origin such as https://www.example.com']],
    [[], ['body must be a JSON object']],
  ])('rejects %j with 400 and the field named, creating nothing', async (body, details) => {
    // Other test files create clients in the same database meanwhile: look for this request's
    // own client (a unique name), not at the total.
    const marker = `rejected-${randomUUID()}`;
    const sent = !Array.isArray(body) && (body as { name?: unknown }).name === 'x' ? { ...body, name: marker } : body;
    const res = await api(kb.baseUrl, 'POST', '/api/admin/clients', sent);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Invalid request', details });
    const after = await api<{ clients: { name: string }[] }>(kb.baseUrl, 'GET', '/api/admin/clients?limit=500');
    expect(after.body.clients.map((c) => c.name)).not.toContain(marker);
  });

  it('answers malformed JSON, wrong media types and unknown or malformed ids with JSON errors', async () => {
    const bad = await api(kb.baseUrl, 'POST', '/api/admin/clients', '{"name": "x"');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'Invalid JSON', details: ['the request body is not valid JSON'] });

    const proto = await api(kb.baseUrl, 'POST', '/api/admin/clients', '{"name":"x","__proto__":{"admin":true}}');
    expect(proto.status).toBe(400);

    const text = await fetch(new URL('/api/admin/clients', kb.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'name=x',
    });
    expect(text.status).toBe(415);
    expect(await text.json()).toMatchObject({ error: 'Unsupported media type' });

    for (const id of ['not-a-uuid', randomUUID(), "1' OR '1'='1"]) {
      const res = await api(kb.baseUrl, 'GET', `/api/admin/clients/${encodeURIComponent(id)}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Client not found', details: ['no client has this clientId'] });
    }
    const none = await api(kb.baseUrl, 'GET', '/api/nothing-here');
    expect(none.status).toBe(404);
    expect(none.body).toMatchObject({ error: 'Not found' });
  });
});

describe('admin authentication', () => {
  const key = 'test-admin-key-0123456789';
  let kb: Kbchat;
  beforeAll(async () => {
    kb = await startKbchat({ services: ['gateway'], env: { ADMIN_API_KEY: key } });
  });
  afterAll(() => kb?.stop());

  it('requires the bearer key on admin routes when one is configured', async () => {
    const none = await api(kb.baseUrl, 'GET', '/api/admin/clients');
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ error: 'Unauthorized' });
    expect(none.headers.get('www-authenticate')).toBe('Bearer');

    const wrong = await api(kb.baseUrl, 'GET', '/api/admin/clients', undefined, { authorization: `Bearer ${key}x` });
    expect(wrong.status).toBe(401);
    const created = await api(kb.baseUrl, 'POST', '/api/admin/clients', { name: 'nope' }, { authorization: 'Basic abc' });
    expect(created.status).toBe(401);

    const ok = await api(kb.baseUrl, 'GET', '/api/admin/clients', undefined, { authorization: `Bearer ${key}` });
    expect(ok.status).toBe(200);
    const client = await createClient(kb.baseUrl, {}, { authorization: `Bearer ${key}` });
    expect(client.clientId).toBeTruthy();
  });

  it('leaves health endpoints open', async () => {
    expect((await api(kb.baseUrl, 'GET', '/healthz')).status).toBe(200);
    expect((await api(kb.baseUrl, 'GET', '/readyz')).status).toBe(200);
  });
});
