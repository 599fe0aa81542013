// Issue 5 §1: every admin route — enumerated from the router, so a new one cannot slip through —
// answers 401 JSON without or with a wrong key when ADMIN_API_KEY is set, 403 JSON to a
// non-loopback caller when it is not, and the public endpoints need no credential at all.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGatewayApp, type GatewayApp } from './support/gateway-app.ts';
import { concreteUrl, listRoutes, type RouteEntry } from './support/routes.ts';

const KEY = 'security-test-admin-key-0123456789abcdef';
const REMOTE = '203.0.113.7';

/**
 * What answers without a credential, by design: health, the OpenAPI page, the widget script and its
 * settings (GET /api/widget-config, docs/widget.md "Settings"), the public POST endpoints (spec §5,
 * and visitor feedback) with their CORS preflights, source originals, and the /admin page shell and
 * its two assets, which carry no data (docs/widget.md "The operator console"; test/ui/ui-assets.test.ts).
 * A route outside this list that answers without the key fails the test.
 */
const PUBLIC: RegExp[] = [
  /^(GET|HEAD) \/(healthz|readyz|widget\.js)$/,
  /^(GET|HEAD) \/docs(\/.*)?$/,
  /^(POST|OPTIONS) \/api\/(chat|chat\/stream|lead|feedback)$/,
  /^(GET|HEAD) \/api\/widget-config$/,
  // The offline demo site of the README's quick start (not registered under NODE_ENV=production).
  /^(GET|HEAD) \/demo-site(\/|\/:file)?$/,
  // The originals of text and file sources, which answers cite (docs/sources.md): public like the chat.
  /^(GET|HEAD) \/files\/:sourceId$/,
  /^(GET|HEAD) \/admin(\/app\.js|\/app\.css)?$/,
];
const isPublic = (r: RouteEntry) => PUBLIC.some((re) => re.test(`${r.method} ${r.url}`));
const label = (r: RouteEntry) => `${r.method} ${r.url}`;

function send(g: GatewayApp, r: RouteEntry, options: { headers?: Record<string, string>; remoteAddress?: string } = {}) {
  const withBody = r.method === 'POST' || r.method === 'PUT' || r.method === 'PATCH';
  return g.app.inject({
    method: r.method as 'GET',
    url: concreteUrl(r.url, { queueName: 'no-such-queue' }),
    headers: options.headers,
    ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
    ...(withBody ? { payload: {} } : {}),
  });
}

function expectJsonError(res: LightMyRequestResponse, status: number, what: string) {
  expect(res.statusCode, what).toBe(status);
  expect(res.headers['content-type'], what).toMatch(/^application\/json/);
  if (res.body) {
    const body = res.json() as { error: unknown; details: unknown };
    expect(typeof body.error, what).toBe('string');
    expect(Array.isArray(body.details) || typeof body.details === 'string', what).toBe(true);
  }
}

describe('admin routes with ADMIN_API_KEY set', () => {
  let g: GatewayApp;
  let routes: RouteEntry[];
  beforeAll(async () => {
    // Hundreds of wrong keys from one address: the wrong-key throttle (admin-throttle.test.ts) is lifted here.
    g = await buildGatewayApp({ ADMIN_API_KEY: KEY, ADMIN_AUTH_FAILURES_PER_MINUTE: '1000000' });
    routes = listRoutes(g.app);
  });
  afterAll(() => g?.close());

  it('enumerates the admin surface from the router', () => {
    const guarded = routes.filter((r) => !isPublic(r));
    // The known admin surface is there (a broken enumeration would make every check below vacuous)…
    for (const expected of [
      'POST /api/admin/crawl',
      'POST /api/admin/generate-embeddings',
      'GET /api/admin/jobs/:jobId',
      'PATCH /api/admin/clients/:clientId',
      'DELETE /api/admin/clients/:clientId',
      'GET /api/admin/clients/:clientId/leads',
      'GET /admin/queues',
      // The queue dashboard's routes (obliterate among them) are bull-board's, behind this one, loaded on first use.
      'PUT /admin/queues/*',
      'GET /metrics',
    ]) {
      expect(guarded.map(label)).toContain(expected);
    }
    // …and every /api/admin and /admin route that is not the page shell is guarded.
    const adminPaths = routes.filter((r) => /^\/(api\/)?admin(\/|$)/.test(r.url));
    expect(adminPaths.filter(isPublic).map(label).sort()).toEqual(
      ['GET /admin', 'GET /admin/app.css', 'GET /admin/app.js', 'HEAD /admin', 'HEAD /admin/app.css', 'HEAD /admin/app.js'].sort(),
    );
    process.stderr.write(`[admin auth] ${routes.length} routes, ${guarded.length} behind the admin key\n`);
  });

  it('answers 401 JSON to every guarded route without a key and with wrong ones', async () => {
    const wrong: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${KEY}x` },
      { authorization: `Bearer ${KEY.slice(0, -1)}` },
      { authorization: `Bearer ${KEY.toUpperCase()}` },
      { authorization: 'Bearer ' },
      { authorization: KEY },
      { authorization: `Basic ${Buffer.from(`admin:${KEY}`).toString('base64')}` },
      { authorization: `Token ${KEY}` },
      { 'x-api-key': KEY },
    ];
    let checked = 0;
    for (const route of routes.filter((r) => !isPublic(r))) {
      for (const headers of wrong) {
        const res = await send(g, route, { headers });
        expectJsonError(res, 401, `${label(route)} ${JSON.stringify(headers)}`);
        expect(res.headers['www-authenticate']).toBe('Bearer');
        checked++;
      }
      // A wrong key from a loopback caller is still refused: the key, once set, is the only way in.
      expect((await send(g, route, { headers: { authorization: 'Bearer nope' }, remoteAddress: '127.0.0.1' })).statusCode).toBe(401);
    }
    expect(checked).toBeGreaterThan(300);
  });

  it('lets the right key through to every guarded route (any answer but 401/403)', async () => {
    for (const route of routes.filter((r) => !isPublic(r))) {
      for (const authorization of [`Bearer ${KEY}`, `bearer   ${KEY}`]) {
        const res = await send(g, route, { headers: { authorization }, remoteAddress: REMOTE });
        expect([401, 403], `${label(route)} → ${res.statusCode} ${res.body.slice(0, 200)}`).not.toContain(res.statusCode);
        expect(res.statusCode, label(route)).toBeLessThan(500);
      }
    }
  });

  it('keeps the public endpoints credential-free, from anywhere', async () => {
    const created = await g.app.inject({
      method: 'POST',
      url: '/api/admin/clients',
      headers: { authorization: `Bearer ${KEY}` },
      payload: { name: 'Public Co' },
    });
    const { clientId } = created.json() as { clientId: string };
    for (const headers of [{}, { authorization: 'Bearer not-the-key' }]) {
      const chat = await g.app.inject({
        method: 'POST',
        url: '/api/chat',
        headers,
        remoteAddress: REMOTE,
        payload: { clientId, message: 'Hello?' },
      });
      expect(chat.statusCode, chat.body).toBe(200);
      const lead = await g.app.inject({
        method: 'POST',
        url: '/api/lead',
        headers,
        remoteAddress: REMOTE,
        payload: { clientId, name: 'Ann', email: 'ann@example.com' },
      });
      expect(lead.statusCode, lead.body).toBe(200);
    }
    for (const route of routes.filter((r) => isPublic(r) && (r.method === 'GET' || r.method === 'HEAD'))) {
      const res = await send(g, route, { remoteAddress: REMOTE });
      expect([401, 403], label(route)).not.toContain(res.statusCode);
    }
  });
});

describe('admin routes with no ADMIN_API_KEY: loopback callers only', () => {
  const apps: GatewayApp[] = [];
  afterAll(async () => {
    for (const a of apps) await a.close();
  });
  const build = async (env: Record<string, string>) => {
    const g = await buildGatewayApp(env);
    apps.push(g);
    return g;
  };

  it('answers 403 JSON to a non-loopback caller on every guarded route, serves loopback ones', async () => {
    const g = await build({});
    const guarded = listRoutes(g.app).filter((r) => !isPublic(r));
    for (const route of guarded) {
      for (const remoteAddress of [REMOTE, '10.0.0.5', '::ffff:10.0.0.5', '2001:db8::1', '169.254.169.254']) {
        expectJsonError(await send(g, route, { remoteAddress }), 403, `${label(route)} from ${remoteAddress}`);
      }
      // X-Forwarded-For means nothing while TRUST_PROXY is off.
      expectJsonError(
        await send(g, route, { remoteAddress: REMOTE, headers: { 'x-forwarded-for': '127.0.0.1' } }),
        403,
        `${label(route)} spoofed`,
      );
      for (const remoteAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
        const res = await send(g, route, { remoteAddress });
        expect([401, 403], `${label(route)} from ${remoteAddress}`).not.toContain(res.statusCode);
      }
    }
  });

  it('behind a trusted proxy (TRUST_PROXY=<its address>) judges the address the proxy saw', async () => {
    const g = await build({ TRUST_PROXY: '127.0.0.1' });
    const route = { method: 'GET', url: '/api/admin/clients' };
    const via = (xff: string) => send(g, route, { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': xff } });
    expectJsonError(await via(REMOTE), 403, 'remote visitor via the proxy');
    // A visitor who writes X-Forwarded-For: 127.0.0.1 himself: the proxy appends his real address.
    expectJsonError(await via(`127.0.0.1, ${REMOTE}`), 403, 'spoofed loopback via the proxy');
    expectJsonError(await via('not-an-ip'), 403, 'garbage address');
    expect((await via('127.0.0.1')).statusCode).toBe(200);
    // The X-Forwarded-For of a caller that is not the trusted proxy is ignored.
    expectJsonError(await send(g, route, { remoteAddress: REMOTE, headers: { 'x-forwarded-for': '127.0.0.1' } }), 403, 'untrusted hop');
  });

  it('with every hop trusted (TRUST_PROXY=true) still refuses a chain with any non-loopback address', async () => {
    const g = await build({ TRUST_PROXY: 'true' });
    const route = { method: 'GET', url: '/api/admin/clients' };
    const via = (xff: string) => send(g, route, { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': xff } });
    // Req.ip is the leftmost entry here, which the caller chose: it must not open the admin API.
    expectJsonError(await via(`127.0.0.1, ${REMOTE}`), 403, 'spoofed leftmost loopback');
    expectJsonError(await via(`::1, 10.1.2.3, 127.0.0.1`), 403, 'private hop in the chain');
    expect((await via('127.0.0.1, ::1')).statusCode).toBe(200);
  });
});
