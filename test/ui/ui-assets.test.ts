import http from 'node:http';
import vm from 'node:vm';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';

const ADMIN_KEY = 'ui-assets-test-admin-key-0123456789';
const auth = { authorization: `Bearer ${ADMIN_KEY}` };

/** A raw GET (fetch would decompress and hide Content-Encoding). */
function rawGet(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
      })
      .on('error', reject);
  });
}

describe('widget and admin page assets', () => {
  let kb: Kbchat;
  beforeAll(async () => {
    kb = await startKbchat({ services: ['gateway'], env: { ADMIN_API_KEY: ADMIN_KEY } });
  });
  afterAll(() => kb?.stop());

  it('serves /widget.js to any origin, cacheable, compressed, as one valid classic script', async () => {
    const plain = await rawGet(`${kb.baseUrl}/widget.js`, { origin: 'https://some-customer.example' });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(plain.headers['access-control-allow-origin']).toBe('*');
    expect(plain.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(plain.headers['x-content-type-options']).toBe('nosniff');
    expect(plain.headers['cache-control']).toMatch(/^public, max-age=\d+/);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const source = plain.body.toString('utf8');
    // A classic script (not a module), parseable, declaring nothing global: one IIFE.
    expect(() => new vm.Script(source)).not.toThrow();
    expect(source).toMatch(/^\/\*![^*]*\*\/\n"use strict";\(\(\)=>\{/);
    expect(source).not.toMatch(/\bexport\b|\bimport\s*[{(]/);

    const gz = await rawGet(`${kb.baseUrl}/widget.js`, { 'accept-encoding': 'gzip, deflate' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString('utf8')).toBe(source);
    // The size budget of docs/widget.md: a regression past it should be a decision, not an accident.
    expect(gz.body.length).toBeLessThan(15 * 1024);

    const br = await rawGet(`${kb.baseUrl}/widget.js`, { 'accept-encoding': 'gzip;q=0.5, br' });
    expect(br.headers['content-encoding']).toBe('br');
    const noBr = await rawGet(`${kb.baseUrl}/widget.js`, { 'accept-encoding': 'br;q=0, gzip' });
    expect(noBr.headers['content-encoding']).toBe('gzip');

    const etag = String(plain.headers.etag);
    const revalidated = await rawGet(`${kb.baseUrl}/widget.js`, { 'if-none-match': etag });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body.length).toBe(0);
    const changed = await rawGet(`${kb.baseUrl}/widget.js`, { 'if-none-match': '"something-else"' });
    expect(changed.status).toBe(200);
  });

  it('serves the /admin shell without the key but with no data and a strict CSP; the data stays behind the key', async () => {
    const client = await createClient(kb.baseUrl, { name: 'Shell Secret Co' }, auth);
    const page = await rawGet(`${kb.baseUrl}/admin`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    const html = page.body.toString('utf8');
    expect(html).toContain('<script src="/admin/app.js" defer></script>');
    // No inline script for the CSP to have to allow, and nothing of any tenant in the shell.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toContain(client.clientId);
    expect(html).not.toContain('Shell Secret Co');

    for (const [path, type] of [
      ['/admin/app.js', 'application/javascript; charset=utf-8'],
      ['/admin/app.css', 'text/css; charset=utf-8'],
    ] as const) {
      const res = await rawGet(`${kb.baseUrl}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers['content-type']).toBe(type);
    }
    const adminJs = (await rawGet(`${kb.baseUrl}/admin/app.js`)).body.toString('utf8');
    expect(() => new vm.Script(adminJs)).not.toThrow();

    expect((await api(kb.baseUrl, 'GET', '/api/admin/clients')).status).toBe(401);
    expect(
      (await api(kb.baseUrl, 'GET', '/api/admin/clients', undefined, { authorization: 'Bearer wrong-key-wrong-key-1234' })).status,
    ).toBe(401);
    expect((await api(kb.baseUrl, 'GET', '/api/admin/clients', undefined, auth)).status).toBe(200);
  });

  it('keeps the widget route free of the page CSP and the admin pages free of cross-origin access', async () => {
    const widget = await rawGet(`${kb.baseUrl}/widget.js`);
    expect(widget.headers['content-security-policy']).toBeUndefined();
    const adminJs = await rawGet(`${kb.baseUrl}/admin/app.js`, { origin: 'https://evil.example' });
    expect(adminJs.headers['access-control-allow-origin']).toBeUndefined();
    expect(adminJs.headers['cross-origin-resource-policy']).toBe('same-origin');
  });
});
