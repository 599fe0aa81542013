import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';

describe('CORS on the public chat endpoints', () => {
  let kb: Kbchat;
  let restricted: string;
  let open: string;
  const shop = 'https://shop.example';
  const evil = 'https://evil.example';

  beforeAll(async () => {
    kb = await startKbchat({ services: ['gateway'] });
    restricted = (await createClient(kb.baseUrl, { allowedOrigins: [shop, 'http://localhost:8080'] })).clientId;
    open = (await createClient(kb.baseUrl)).clientId;
  });
  afterAll(() => kb?.stop());

  it.each(['/api/chat', '/api/chat/stream'])(
    'answers the preflight of %s permissively (the body, hence the client, is unknown)',
    async (path) => {
      const res = await fetch(new URL(path, kb.baseUrl), {
        method: 'OPTIONS',
        headers: { origin: evil, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(evil);
      expect(res.headers.get('access-control-allow-methods')).toMatch(/POST/);
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('content-type');
      expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0);
      expect(res.headers.get('vary')).toMatch(/Origin/i);
    },
  );

  it('lets an allowed origin read the answer', async () => {
    const res = await api(kb.baseUrl, 'POST', '/api/chat', { clientId: restricted, message: 'hello' }, { origin: shop });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(shop);
    expect(res.headers.get('vary')).toMatch(/Origin/i);
    expect(res.headers.get('access-control-expose-headers')).toMatch(/RateLimit-Remaining/);
    // Origins compare as origins: host case does not matter.
    const upper = await api(
      kb.baseUrl,
      'POST',
      '/api/chat',
      { clientId: restricted, message: 'hello' },
      { origin: 'https://SHOP.example' },
    );
    expect(upper.status).toBe(200);
  });

  it('refuses a disallowed origin with 403 JSON, no ACAO header, and nothing stored', async () => {
    const sessionId = 'cors-refused-session';
    for (const path of ['/api/chat', '/api/chat/stream']) {
      const res = await api(kb.baseUrl, 'POST', path, { clientId: restricted, message: 'hello', sessionId }, { origin: evil });
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(res.body).toEqual({
        error: 'Origin not allowed',
        details: ["the calling page's origin is not in this client's allowedOrigins"],
      });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
    for (const origin of ['null', 'http://shop.example', 'https://shop.example:8443']) {
      const res = await api(kb.baseUrl, 'POST', '/api/chat', { clientId: restricted, message: 'hello' }, { origin });
      expect(res.status, origin).toBe(403);
    }
    const db = new pg.Client({ connectionString: inject('databaseUrl') });
    await db.connect();
    try {
      const count = async () =>
        (await db.query('SELECT count(*)::int AS n FROM messages WHERE client_id = $1 AND session_id = $2', [restricted, sessionId]))
          .rows[0].n;
      expect(await count()).toBe(0);
      const stored = await api(kb.baseUrl, 'POST', '/api/chat', { clientId: restricted, message: 'now from the server', sessionId });
      expect(stored.status).toBe(200);
      expect(await count()).toBe(2);
    } finally {
      await db.end();
    }
  });

  it('serves callers without an Origin header (server to server) and any origin of a client with no allowedOrigins', async () => {
    const server = await api(kb.baseUrl, 'POST', '/api/chat', { clientId: restricted, message: 'hello' });
    expect(server.status).toBe(200);
    expect(server.headers.get('access-control-allow-origin')).toBeNull();
    const anyOrigin = await api(kb.baseUrl, 'POST', '/api/chat', { clientId: open, message: 'hello' }, { origin: evil });
    expect(anyOrigin.status).toBe(200);
    expect(anyOrigin.headers.get('access-control-allow-origin')).toBe(evil);
  });

  it('makes errors before the client is known readable by the page (400, 404)', async () => {
    const bad = await api(kb.baseUrl, 'POST', '/api/chat', { clientId: restricted }, { origin: shop });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('access-control-allow-origin')).toBe(shop);
    const unknown = await api(kb.baseUrl, 'POST', '/api/chat', { clientId: 'nope', message: 'hi' }, { origin: shop });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('access-control-allow-origin')).toBe(shop);
  });
});
