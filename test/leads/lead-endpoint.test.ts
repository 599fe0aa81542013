import { randomUUID } from 'node:crypto';
import type { Pool } from '@kbchat/shared/db/pool';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';

/** Every answer of POST /api/lead (spec §4.4, §7) and the admin leads listing. */

async function leadCount(pool: Pool, clientId?: string): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM leads WHERE ($1::uuid IS NULL OR client_id = $1::uuid)',
    [clientId ?? null],
  );
  return rows[0]?.n ?? 0;
}

describe('POST /api/lead', () => {
  let kb: Kbchat;
  let pool: Pool;
  let clientId: string;
  beforeAll(async () => {
    kb = await startKbchat({ services: ['gateway'] });
    pool = kb.process.runtime.pool;
    clientId = (await createClient(kb.baseUrl)).clientId;
  });
  afterAll(() => kb?.stop());

  it('stores a lead and answers 200 {success, leadId, message}; the row is committed when the answer arrives', async () => {
    const res = await api<{ success: boolean; leadId: string; message: string }>(kb.baseUrl, 'POST', '/api/lead', {
      clientId,
      name: '  Ada Lovelace ',
      email: 'ada@example.com',
      phone: '+44 20 7946 0958',
      message: 'Please call me about a quote.',
      sessionId: 'sess-1',
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, leadId: expect.stringMatching(/^[0-9a-f-]{36}$/), message: expect.any(String) });
    const { rows } = await pool.query('SELECT * FROM leads WHERE id = $1', [res.body.leadId]);
    expect(rows[0]).toMatchObject({
      client_id: clientId,
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      phone: '+44 20 7946 0958',
      message: 'Please call me about a quote.',
      session_id: 'sess-1',
      // No webhook URL configured: nothing to deliver.
      webhook_status: 'none',
    });
    expect(rows[0].source_ip).toMatch(/127\.0\.0\.1/);
  });

  it('takes phone, message and sessionId as optional (absent, null or empty)', async () => {
    for (const extra of [{}, { phone: null, message: null, sessionId: null }, { phone: '', message: '  ', sessionId: '' }]) {
      const res = await api<{ leadId: string }>(kb.baseUrl, 'POST', '/api/lead', {
        clientId,
        name: 'Bo',
        email: 'bo@example.org',
        ...extra,
      });
      expect(res.status).toBe(200);
      const { rows } = await pool.query('SELECT phone, message, session_id FROM leads WHERE id = $1', [res.body.leadId]);
      expect(rows[0]).toEqual({ phone: null, message: null, session_id: null });
    }
  });

  it.each([
    [{}, ['clientId is required', 'name is required', 'email is required']],
    [{ clientId: 'x' }, ['name is required', 'email is required']],
    [{ clientId: 'x', name: 'A' }, ['email is required']],
    [{ name: 'A', email: 'a@example.com' }, ['clientId is required']],
    [{ clientId: '', name: '   ', email: '' }, ['clientId is required', 'name is required', 'email is required']],
    [{ clientId: null, name: null, email: null }, ['clientId is required', 'name is required', 'email is required']],
  ])('answers 400 for %j listing every missing field', async (body, details) => {
    const res = await api(kb.baseUrl, 'POST', '/api/lead', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Invalid request', details });
  });

  it.each([
    [{ email: 'not-an-email' }, ['email must be a valid email address']],
    [{ email: 'a@b' }, ['email must be a valid email address']],
    [{ email: 'two@@example.com' }, ['email must be a valid email address']],
    [{ email: 'sp ace@example.com' }, ['email must be a valid email address']],
    [{ email: 42 }, ['email must be a string']],
    [{ name: ['A'] }, ['name must be a string']],
    [{ clientId: 7 }, ['clientId must be a string']],
    [{ phone: 5550100 }, ['phone must be a string']],
    [{ phone: 'call me maybe' }, ['phone must be a phone number (digits, spaces, + ( ) - . /)']],
    [{ message: { text: 'hi' } }, ['message must be a string']],
    [{ sessionId: 12 }, ['sessionId must be a string']],
    [{ name: 'n'.repeat(201) }, ['name must be at most 200 characters']],
    [{ email: `${'e'.repeat(250)}@example.com` }, ['email must be at most 254 characters']],
    [{ phone: '1'.repeat(41) }, ['phone must be at most 40 characters']],
    [{ message: 'm'.repeat(4001) }, ['message must be at most 4000 characters']],
    [{ sessionId: 's'.repeat(201) }, ['sessionId must be at most 200 characters']],
  ])('answers 400 for a bad field %j and stores nothing', async (bad, details) => {
    const before = await leadCount(pool, clientId);
    const res = await api(kb.baseUrl, 'POST', '/api/lead', { clientId, name: 'Ann', email: 'ann@example.com', ...bad });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Invalid request', details });
    expect(await leadCount(pool, clientId)).toBe(before);
  });

  it('accepts ordinary phone numbers and addresses', async () => {
    for (const [phone, email] of [
      ['(555) 010-4477', 'first.last+tag@sub.example.co.uk'],
      ['+1 555 010 4477 ext. 12', "o'brien@example.ie"],
      ['030/1234567', 'zoë@exämple.de'],
    ]) {
      const res = await api(kb.baseUrl, 'POST', '/api/lead', { clientId, name: 'Ok', email, phone });
      expect(res.status, `${phone} ${email}: ${JSON.stringify(res.body)}`).toBe(200);
    }
  });

  it('answers 400 JSON for a body that is not a JSON object, and 415 for another media type', async () => {
    for (const raw of ['[]', '"lead"', '42', '{"clientId":', '{"clientId":"x","__proto__":{"admin":true}}']) {
      const res = await api(kb.baseUrl, 'POST', '/api/lead', raw);
      expect(res.status, raw).toBe(400);
      expect(res.body).toMatchObject({ error: expect.any(String), details: expect.any(Array) });
    }
    const form = await fetch(new URL('/api/lead', kb.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=x',
    });
    expect(form.status).toBe(415);
    expect(await form.json()).toMatchObject({ error: 'Unsupported media type' });
  });

  it('is described in the OpenAPI document', async () => {
    const doc = await api<{ paths: Record<string, Record<string, { requestBody?: unknown }>> }>(kb.baseUrl, 'GET', '/docs/json');
    expect(doc.status).toBe(200);
    expect(doc.body.paths['/api/lead']?.post?.requestBody).toBeDefined();
    expect(JSON.stringify(doc.body.paths['/api/lead'])).toContain('email');
    expect(doc.body.paths['/api/admin/clients/{clientId}/leads']?.get).toBeDefined();
    expect(doc.body.paths['/api/admin/clients/{clientId}/webhook-deliveries']?.get).toBeDefined();
  });

  it('answers 404 for an unknown or malformed clientId and stores nothing', async () => {
    const before = await leadCount(pool);
    for (const id of [randomUUID(), 'not-a-uuid', "1' OR '1'='1", `${clientId}x`]) {
      const res = await api(kb.baseUrl, 'POST', '/api/lead', { clientId: id, name: 'Ann', email: 'ann@example.com' });
      expect(res.status, id).toBe(404);
      expect(res.body).toEqual({ error: 'Client not found', details: ['no client has this clientId'] });
    }
    expect(await leadCount(pool)).toBe(before);
  });

  it("follows the client's allowedOrigins for browser calls (CORS), storing nothing for a refused origin", async () => {
    const c = await createClient(kb.baseUrl, { allowedOrigins: ['https://acme.example'] });
    const body = { clientId: c.clientId, name: 'Web', email: 'web@example.com' };
    const preflight = await fetch(new URL('/api/lead', kb.baseUrl), {
      method: 'OPTIONS',
      headers: {
        origin: 'https://acme.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://acme.example');

    const ok = await api(kb.baseUrl, 'POST', '/api/lead', body, { origin: 'https://acme.example' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://acme.example');
    expect(ok.headers.get('access-control-expose-headers')).toMatch(/RateLimit-Remaining/);

    const before = await leadCount(pool, c.clientId);
    const refused = await api(kb.baseUrl, 'POST', '/api/lead', body, { origin: 'https://evil.example' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'Origin not allowed' });
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    expect(await leadCount(pool, c.clientId)).toBe(before);

    // A validation error is readable by the calling page.
    const invalid = await api(kb.baseUrl, 'POST', '/api/lead', { clientId: c.clientId }, { origin: 'https://acme.example' });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('access-control-allow-origin')).toBe('https://acme.example');
  });

  it("lists a client's leads newest first with pagination, and only that client's", async () => {
    const a = (await createClient(kb.baseUrl)).clientId;
    const b = (await createClient(kb.baseUrl)).clientId;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await api<{ leadId: string }>(kb.baseUrl, 'POST', '/api/lead', {
        clientId: a,
        name: `A${i}`,
        email: `a${i}@example.com`,
      });
      ids.push(res.body.leadId);
    }
    await api(kb.baseUrl, 'POST', '/api/lead', { clientId: b, name: 'B0', email: 'b0@example.com', phone: '555 0100', sessionId: 's-b' });

    type List = { leads: Record<string, unknown>[]; total: number; limit: number; offset: number };
    const all = await api<List>(kb.baseUrl, 'GET', `/api/admin/clients/${a}/leads`);
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(3);
    expect(all.body.leads.map((l) => l.leadId)).toEqual([...ids].reverse());
    expect(all.body.leads.every((l) => String(l.name).startsWith('A'))).toBe(true);
    expect(all.body.leads[0]).toEqual({
      leadId: ids[2],
      name: 'A2',
      email: 'a2@example.com',
      phone: null,
      message: null,
      sessionId: null,
      webhookStatus: 'none',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });

    const page = await api<List>(kb.baseUrl, 'GET', `/api/admin/clients/${a}/leads?limit=1&offset=1`);
    expect(page.body).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.body.leads.map((l) => l.leadId)).toEqual([ids[1]]);

    const other = await api<List>(kb.baseUrl, 'GET', `/api/admin/clients/${b}/leads`);
    expect(other.body.total).toBe(1);
    expect(other.body.leads[0]).toMatchObject({ name: 'B0', phone: '555 0100', sessionId: 's-b' });

    const deliveries = await api<{ deliveries: unknown[]; total: number }>(kb.baseUrl, 'GET', `/api/admin/clients/${a}/webhook-deliveries`);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body).toMatchObject({ deliveries: [], total: 0 });

    for (const path of ['leads', 'webhook-deliveries']) {
      for (const id of [randomUUID(), 'nope']) {
        const res = await api(kb.baseUrl, 'GET', `/api/admin/clients/${id}/${path}`);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: 'Client not found', details: ['no client has this clientId'] });
      }
      const bad = await api(kb.baseUrl, 'GET', `/api/admin/clients/${a}/${path}?limit=0`);
      expect(bad.status).toBe(400);
    }
  });
});

describe('lead rate limit (per IP, per client)', () => {
  let kb: Kbchat;
  let pool: Pool;
  beforeAll(async () => {
    // TRUST_PROXY lets the test speak for several addresses through X-Forwarded-For.
    kb = await startKbchat({
      services: ['gateway'],
      env: { LEAD_RATE_LIMIT_PER_HOUR: '3', LEAD_CLIENT_LIMIT_PER_HOUR: '10', TRUST_PROXY: 'true' },
    });
    pool = kb.process.runtime.pool;
  });
  afterAll(() => kb?.stop());

  const post = (clientId: string, ip: string) =>
    api(kb.baseUrl, 'POST', '/api/lead', { clientId, name: 'Spam', email: 'spam@example.com' }, { 'x-forwarded-for': ip });

  it('answers 429 with Retry-After past the limit, stores nothing then, and leaves other addresses and clients alone', async () => {
    const a = (await createClient(kb.baseUrl)).clientId;
    const b = (await createClient(kb.baseUrl)).clientId;
    for (const remaining of ['2', '1', '0']) {
      const ok = await post(a, '198.51.100.7');
      expect(ok.status).toBe(200);
      expect(ok.headers.get('ratelimit-limit')).toBe('3');
      expect(ok.headers.get('ratelimit-remaining')).toBe(remaining);
    }
    const limited = await post(a, '198.51.100.7');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'Too many requests', details: [expect.stringMatching(/at most 3 leads per hour/)] });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(await leadCount(pool, a)).toBe(3);

    expect((await post(a, '198.51.100.8')).status).toBe(200);
    expect((await post(b, '198.51.100.7')).status).toBe(200);
  });

  it('caps the leads of one client from many addresses, without letting one address spend the cap', async () => {
    const e = (await createClient(kb.baseUrl)).clientId;
    const other = (await createClient(kb.baseUrl)).clientId;
    // One address past its own limit: its refused leads do not count against the client.
    const fromOne = [];
    for (let i = 0; i < 5; i++) fromOne.push((await post(e, '203.0.113.200')).status);
    expect(fromOne).toEqual([200, 200, 200, 429, 429]);
    // A flood from twelve more addresses: 7 more fit the client's 10 an hour.
    const statuses = [];
    for (let i = 1; i <= 12; i++) statuses.push((await post(e, `203.0.113.${i}`)).status);
    expect(statuses).toEqual([...Array(7).fill(200), ...Array(5).fill(429)]);
    const limited = await post(e, '203.0.113.99');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('content-type')).toMatch(/application\/json/);
    expect(limited.body).toEqual({
      error: 'Too many requests',
      details: [expect.stringMatching(/^at most 10 leads per hour for this client/)],
    });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(limited.headers.get('ratelimit-limit')).toBe('10');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(await leadCount(pool, e)).toBe(10);
    // The cap is the client's own.
    expect((await post(other, '203.0.113.1')).status).toBe(200);
  });

  it('counts an IPv6 /64 as one sender', async () => {
    const c = (await createClient(kb.baseUrl)).clientId;
    expect((await post(c, '2001:db8:1:2::1')).status).toBe(200);
    expect((await post(c, '2001:db8:1:2::2')).status).toBe(200);
    expect((await post(c, '2001:db8:1:2:ffff::3')).status).toBe(200);
    expect((await post(c, '2001:db8:1:2::4')).status).toBe(429);
    expect((await post(c, '2001:db8:1:3::1')).status).toBe(200);
  });

  it('does not count invalid or unknown-client requests', async () => {
    const d = (await createClient(kb.baseUrl)).clientId;
    for (let i = 0; i < 5; i++) {
      expect((await api(kb.baseUrl, 'POST', '/api/lead', { clientId: d, name: 'x' }, { 'x-forwarded-for': '192.0.2.1' })).status).toBe(400);
    }
    expect((await post(d, '192.0.2.1')).status).toBe(200);
  });
});
