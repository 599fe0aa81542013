// Issue 5 §3: body size limits (413 JSON on every endpoint that takes a body), message ≤ 4,000
// characters and context ≤ 8 KB on both chat endpoints, and security headers on the HTML pages.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_CONTEXT_BYTES, MAX_CONTEXT_DEPTH, MAX_MESSAGE_CHARS } from '@kbchat/shared/schemas/chat';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../browser/support.ts';
import { buildGatewayApp, type GatewayApp } from './support/gateway-app.ts';
import { concreteUrl, listRoutes } from './support/routes.ts';

const KEY = 'limits-test-admin-key-0123456789abcdef';
const auth = { authorization: `Bearer ${KEY}` };

/** A raw request over a socket: chunked or with a declared length, as a client may send it. */
function rawPost(
  url: string,
  chunks: Buffer[],
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    // The server may answer 413 and close before the whole body is written.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
    for (const c of chunks) req.write(c);
    req.end();
  });
}

describe('body size limits', () => {
  let g: GatewayApp;
  let baseUrl: string;
  let clientId: string;
  beforeAll(async () => {
    g = await buildGatewayApp({ ADMIN_API_KEY: KEY, CHAT_RATE_LIMIT_PER_MINUTE: '100000' });
    await g.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(g.app.server.address() as AddressInfo).port}`;
    const res = await g.app.inject({ method: 'POST', url: '/api/admin/clients', headers: auth, payload: { name: 'Limits Co' } });
    clientId = (res.json() as { clientId: string }).clientId;
  });
  afterAll(() => g?.close());

  it('answers 413 JSON to an oversize body on every route that takes one', async () => {
    // The largest limit of any JSON route: a text source's body takes 1 MB (docs/sources.md).
    const limit = Math.max(g.rt.config.BODY_LIMIT_BYTES, 1024 * 1024);
    const oversize = JSON.stringify({ clientId, message: 'x'.repeat(limit) });
    const routes = listRoutes(g.app).filter((r) => !['GET', 'HEAD'].includes(r.method));
    // Every POST/PUT/PATCH/DELETE/OPTIONS route: the public ones, the admin API and the queue dashboard's actions.
    expect(routes.map((r) => `${r.method} ${r.url}`)).toEqual(
      expect.arrayContaining(['POST /api/chat', 'POST /api/lead', 'POST /api/feedback', 'POST /api/admin/crawl', 'PUT /admin/queues/*']),
    );
    expect(routes.length).toBeGreaterThan(25);
    for (const route of routes) {
      const res = await g.app.inject({
        method: route.method as 'POST',
        url: concreteUrl(route.url, { queueName: 'no-such-queue' }),
        headers: { ...auth, 'content-type': 'application/json' },
        payload: oversize,
      });
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(413);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toMatchObject({ error: 'Payload too large' });
    }
    const { rows } = await g.rt.pool.query('SELECT count(*)::int AS n FROM sessions WHERE client_id = $1', [clientId]);
    expect(rows[0]).toEqual({ n: 0 });
  });

  it('answers 413 over HTTP whether the length is declared or the body is chunked', async () => {
    // The largest limit of any JSON route: a text source's body takes 1 MB (docs/sources.md).
    const limit = Math.max(g.rt.config.BODY_LIMIT_BYTES, 1024 * 1024);
    // Declared: refused on the header, the body need not be read.
    const declared = await rawPost(`${baseUrl}/api/lead`, [Buffer.alloc(limit + 1, 0x20)], {
      'content-type': 'application/json',
      'content-length': String(limit + 1),
    });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({ error: 'Payload too large' });
    // Chunked, no length: counted while streaming.
    const chunk = Buffer.alloc(16 * 1024, 0x20);
    const chunked = await rawPost(`${baseUrl}/api/chat`, [Buffer.from('{"message":"'), ...Array(6).fill(chunk)], {
      'content-type': 'application/json',
      'transfer-encoding': 'chunked',
    });
    expect(chunked.status).toBe(413);
    expect(chunked.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(chunked.body)).toMatchObject({ error: 'Payload too large' });
  });

  it('answers a malformed multipart upload 400 JSON, not 500', async () => {
    for (const payload of ['true', 'x', '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc']) {
      const res = await g.app.inject({
        method: 'POST',
        url: `/api/admin/clients/${clientId}/sources/files`,
        headers: { ...auth, 'content-type': 'multipart/form-data; boundary=xyz' },
        payload,
      });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json()).toMatchObject({ error: 'Invalid request', details: [expect.stringMatching(/^multipart body: /)] });
    }
  });

  it.each(['/api/chat', '/api/chat/stream'])('%s: message ≤ 4,000 characters and context ≤ 8 KB, 400 beyond', async (url) => {
    const post = (payload: unknown) => g.app.inject({ method: 'POST', url, payload: payload as object });
    expect(MAX_MESSAGE_CHARS).toBe(4000);
    expect(MAX_CONTEXT_BYTES).toBe(8 * 1024);

    const atLimit = await post({ clientId, message: 'é'.repeat(MAX_MESSAGE_CHARS) });
    expect(atLimit.statusCode, atLimit.body.slice(0, 200)).toBe(200);
    const over = await post({ clientId, message: 'é'.repeat(MAX_MESSAGE_CHARS + 1) });
    expect(over.statusCode).toBe(400);
    expect(over.json()).toEqual({ error: 'Invalid request', details: ['message must be at most 4000 characters'] });

    // Serialized size, in bytes: {"n":"…"} is 8 bytes of framing.
    const context = (bytes: number) => ({ n: 'x'.repeat(bytes - 8) });
    expect(Buffer.byteLength(JSON.stringify(context(MAX_CONTEXT_BYTES)))).toBe(MAX_CONTEXT_BYTES);
    expect((await post({ clientId, message: 'Hello', context: context(MAX_CONTEXT_BYTES) })).statusCode).toBe(200);
    const big = await post({ clientId, message: 'Hello', context: context(MAX_CONTEXT_BYTES + 1) });
    expect(big.statusCode).toBe(400);
    expect((big.json() as { details: string[] }).details).toEqual([expect.stringMatching(/^context must be at most 8192 bytes/)]);
    // Multi-byte characters count as the bytes they take.
    const wide = await post({ clientId, message: 'Hello', context: { n: '€'.repeat(3000) } });
    expect(wide.statusCode).toBe(400);
  });

  it.each(['/api/chat', '/api/chat/stream'])('%s: context nested deeper than 32 levels is a 400, not a stack overflow', async (url) => {
    const post = (payload: string) => g.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload });
    expect(MAX_CONTEXT_DEPTH).toBe(32);
    // context is level 1; {"a": [...]} puts the innermost array at level depth.
    const nested = (depth: number) =>
      `{"clientId":"${clientId}","message":"Hello","context":{"a":${'['.repeat(depth - 1)}1${']'.repeat(depth - 1)}}}`;
    expect((await post(nested(MAX_CONTEXT_DEPTH))).statusCode).toBe(200);
    for (const depth of [MAX_CONTEXT_DEPTH + 1, 6_000]) {
      const res = await post(nested(depth));
      expect(res.statusCode, `depth ${depth}`).toBe(400);
      expect(res.json()).toEqual({
        error: 'Invalid request',
        details: ['context must not nest objects or arrays more than 32 levels deep'],
      });
    }
    // A NUL anywhere in context (Postgres jsonb cannot store one) is a 400 too, not a 500 at the INSERT.
    for (const context of ['{"pageUrl":"a\\u0000b"}', '{"meta":{"k\\u0000":1}}', '{"list":[["x\\u0000"]]}']) {
      const nul = await post(`{"clientId":"${clientId}","message":"Hello","context":${context}}`);
      expect(nul.statusCode, context).toBe(400);
      expect(nul.json()).toEqual({ error: 'Invalid request', details: ['context must not contain NUL characters'] });
    }
    // 6,000 levels of objects and arrays mixed, over real HTTP.
    const probe = `{"clientId":"${clientId}","message":"hi","context":{"x":${'[{"b":'.repeat(3000)}1${'}]'.repeat(3000)}}}`;
    const res = await fetch(`${baseUrl}${url}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: probe });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'Invalid request' });
  });
});

describe('security headers on the HTML pages', () => {
  let g: GatewayApp;
  let baseUrl: string;
  beforeAll(async () => {
    g = await buildGatewayApp({ ADMIN_API_KEY: KEY });
    await g.app.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(g.app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => g?.close());

  it.each(['/admin', '/docs', '/docs/'])('%s is HTML with a CSP, no framing, no sniffing, no referrer', async (url) => {
    const res = await g.app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/default-src '(none|self)'/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toMatch(/script-src 'self'/);
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(csp).not.toContain('validator.swagger.io');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('the docs assets carry the headers too, and the JSON API is not framed as a page', async () => {
    for (const url of ['/docs/static/swagger-initializer.js', '/docs/json']) {
      const res = await g.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
    }
  });

  it.skipIf(!hasChromium)('/docs renders under its CSP with no violation', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on('console', (msg) => {
        if (/Content Security Policy|Refused to/i.test(msg.text())) violations.push(msg.text());
      });
      const outside: string[] = [];
      page.on('request', (req) => {
        if (!req.url().startsWith(baseUrl) && !req.url().startsWith('data:')) outside.push(req.url());
      });
      await page.goto(`${baseUrl}/docs`);
      await page.locator('.swagger-ui .info .title').filter({ hasText: 'kbchat API' }).waitFor({ timeout: 20_000 });
      await page.locator('.opblock-summary-path', { hasText: '/api/chat' }).first().waitFor();
      expect(violations).toEqual([]);
      // Nothing leaves for another host (no validator badge, no CDN).
      expect(outside).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
