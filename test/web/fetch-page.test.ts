import { FetchError, fetchPage } from '@kbchat/crawler/web/fetch-page';
import { createOutboundClient, DEFAULT_USER_AGENT, OutboundBlockedError } from '@kbchat/shared/net/outbound';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClosingServer } from '../support/closing-server.ts';
import { FIXTURE_FACTS, type FixtureSite, startFixtureSite } from '../support/fixture-site.ts';

// fetchPage against the fixture website, over real loopback HTTP, through the guarded client.

let site: FixtureSite;
const client = createOutboundClient({ allowPrivateNetworks: true });
const opts = { maxBytes: 5 * 1024 * 1024, timeoutMs: 5_000 };

beforeAll(async () => {
  site = await startFixtureSite({ slowMs: 3_000, flakyFailures: 2 });
});
afterAll(async () => {
  await site?.close();
});

describe('fetchPage', () => {
  it('fetches an HTML page with its validators and says who is asking', async () => {
    const out = await fetchPage(client, `${site.url}/pricing`, opts);
    expect(out.kind).toBe('html');
    if (out.kind !== 'html') return;
    expect(out.status).toBe(200);
    expect(out.finalUrl).toBe(`${site.url}/pricing`);
    expect(out.html).toContain(FIXTURE_FACTS.starterPrice);
    expect(out.etag).toMatch(/^"[0-9a-f]+"$/);
    expect(out.lastModified).toBe('Wed, 15 Jan 2025 10:00:00 GMT');
    expect(out.charset).toBe('utf-8');
    const req = site.requests.findLast((r) => r.path === '/pricing')!;
    expect(req.userAgent).toBe(DEFAULT_USER_AGENT);
    expect(req.userAgent).toMatch(/kbchat-bot/);
  });

  it('follows a redirect chain (301 → 302 → page) and reports where it landed', async () => {
    const out = await fetchPage(client, `${site.url}/old-pricing`, opts);
    expect(out).toMatchObject({ kind: 'html', url: `${site.url}/old-pricing`, finalUrl: `${site.url}/pricing`, status: 200 });
    expect(site.hitCount('/pricing-2023')).toBe(1);
  });

  it('bounds the redirect chain', async () => {
    site.setPage('/loop-a', (_req, res) => {
      res.writeHead(302, { location: '/loop-b' });
      res.end();
    });
    site.setPage('/loop-b', (_req, res) => {
      res.writeHead(302, { location: '/loop-a' });
      res.end();
    });
    const out = await fetchPage(client, `${site.url}/loop-a`, { ...opts, maxRedirects: 5 });
    expect(out).toMatchObject({ kind: 'skipped', reason: 'too-many-redirects', retryable: false });
    expect(site.hitCount('/loop-a') + site.hitCount('/loop-b')).toBe(6);
  });

  it('answers a conditional GET with not-modified', async () => {
    const first = await fetchPage(client, `${site.url}/about`, opts);
    if (first.kind !== 'html') throw new Error(`expected html, got ${first.kind}`);
    const byEtag = await fetchPage(client, `${site.url}/about`, { ...opts, etag: first.etag });
    expect(byEtag).toEqual({ kind: 'not-modified', url: `${site.url}/about`, finalUrl: `${site.url}/about`, status: 304 });
    const byDate = await fetchPage(client, `${site.url}/about`, { ...opts, lastModified: first.lastModified });
    expect(byDate.kind).toBe('not-modified');
    const sent = site.requests.filter((r) => r.path === '/about');
    expect(sent.at(-2)!.ifNoneMatch).toBe(first.etag);
    expect(sent.at(-1)!.ifModifiedSince).toBe(first.lastModified);
    // A changed page is fetched in full despite an old validator.
    site.setPage('/about', '<!DOCTYPE html><title>About</title><p>New text</p>');
    const changed = await fetchPage(client, `${site.url}/about`, { ...opts, etag: first.etag });
    expect(changed.kind).toBe('html');
    site.setPage('/about', null);
  });

  it('skips a 10 MB page once it passes the cap, without reading it all (with and without Content-Length)', async () => {
    const out = await fetchPage(client, `${site.url}/downloads/big-report`, opts);
    expect(out).toMatchObject({ kind: 'skipped', reason: 'too-large', retryable: false, status: 200 });
    // Read just past the cap (one more chunk at most), not the 10 MB.
    if (out.kind === 'skipped') expect(out.bytes).toBeGreaterThan(opts.maxBytes);
    if (out.kind === 'skipped') expect(out.bytes).toBeLessThan(opts.maxBytes + 256 * 1024);
    const sized = await fetchPage(client, `${site.url}/downloads/big-report-sized`, opts);
    // Content-Length says it all: nothing of the body is read.
    expect(sized).toMatchObject({ kind: 'skipped', reason: 'too-large', bytes: 0 });
    // The same page under a larger cap is fetched whole: the cap, not the page, decided.
    const whole = await fetchPage(client, `${site.url}/downloads/big-report`, { ...opts, maxBytes: 11 * 1024 * 1024 });
    expect(whole.kind).toBe('html');
    if (whole.kind === 'html') expect(whole.bytes).toBe(10 * 1024 * 1024);
  });

  it('skips binaries served as text/html', async () => {
    expect(await fetchPage(client, `${site.url}/downloads/brochure`, opts)).toMatchObject({
      kind: 'skipped',
      reason: 'binary',
      status: 200,
    });
    expect(await fetchPage(client, `${site.url}/downloads/archive`, opts)).toMatchObject({ kind: 'skipped', reason: 'binary' });
  });

  it('skips what is not HTML by Content-Type, and sniffs when there is none', async () => {
    expect(await fetchPage(client, `${site.url}/static/app.js`, opts)).toMatchObject({ kind: 'skipped', reason: 'not-html' });
    expect(await fetchPage(client, `${site.url}/api/app-content.json`, opts)).toMatchObject({ kind: 'skipped', reason: 'not-html' });
    site.setPage('/untyped-html', (_req, res) => {
      res.removeHeader('content-type');
      res.end('<!doctype html><html><head><title>Untyped</title></head><body><p>Hello</p></body></html>');
    });
    site.setPage('/untyped-text', (_req, res) => {
      res.removeHeader('content-type');
      res.end('just some text, not a document');
    });
    expect(await fetchPage(client, `${site.url}/untyped-html`, opts)).toMatchObject({ kind: 'html' });
    expect(await fetchPage(client, `${site.url}/untyped-text`, opts)).toMatchObject({ kind: 'skipped', reason: 'not-html' });
  });

  it.each([
    ['/docs/latin1', 'windows-1252', FIXTURE_FACTS.latin1Words],
    ['/docs/latin1-header', 'windows-1252', FIXTURE_FACTS.latin1Words],
    ['/ja/company', 'shift_jis', FIXTURE_FACTS.shiftJisWords],
    ['/docs/bom', 'utf-8', ['naïve', 'last year’s', 'café', '☕']],
  ])('decodes %s as %s', async (pathname, charset, words) => {
    const out = await fetchPage(client, `${site.url}${pathname}`, opts);
    expect(out.kind).toBe('html');
    if (out.kind !== 'html') return;
    expect(out.charset).toBe(charset);
    for (const w of words) expect(out.html).toContain(w);
    expect(out.html).not.toContain('\ufffd');
    expect(out.html.charCodeAt(0)).not.toBe(0xfeff);
  });

  it('skips 4xx for good and 5xx/429 for a retry; the retry succeeds once the server recovers', async () => {
    expect(await fetchPage(client, `${site.url}/missing-page`, opts)).toMatchObject({
      kind: 'skipped',
      reason: 'http-404',
      retryable: false,
      status: 404,
    });
    expect(await fetchPage(client, `${site.url}/flaky`, opts)).toMatchObject({
      kind: 'skipped',
      reason: 'http-503',
      retryable: true,
      status: 503,
    });
    expect(await fetchPage(client, `${site.url}/flaky`, opts)).toMatchObject({ kind: 'skipped', reason: 'http-503', retryable: true });
    expect(await fetchPage(client, `${site.url}/flaky`, opts)).toMatchObject({ kind: 'html', status: 200 });
    site.setPage('/busy', (_req, res) => {
      res.writeHead(429, { 'retry-after': '2' });
      res.end();
    });
    expect(await fetchPage(client, `${site.url}/busy`, opts)).toMatchObject({ kind: 'skipped', reason: 'http-429', retryable: true });
  });

  it('times out a page slower than the timeout with a retryable error', async () => {
    const err = await fetchPage(client, `${site.url}/slow`, { ...opts, timeoutMs: 300 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect(err).toMatchObject({ retryable: true, code: 'ETIMEDOUT' });
  });

  it('asks again on a new connection when a kept-alive one was closed under the request', async () => {
    const closing = await startClosingServer();
    try {
      for (const path of ['/one', '/two', '/three']) {
        const out = await fetchPage(client, `${closing.url}${path}`, opts);
        expect(out.kind).toBe('html');
        if (out.kind === 'html') expect(out.html).toContain(`Text of ${path}`);
      }
      expect(closing.served).toEqual(['/one', '/two', '/three']);
    } finally {
      await closing.close();
    }
  });

  it('throws a retryable FetchError when nothing listens', async () => {
    const gone = await startFixtureSite();
    const url = `${gone.url}/`;
    await gone.close();
    const err = await fetchPage(client, url, opts).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect(err).toMatchObject({ retryable: true, code: 'ECONNREFUSED' });
  });

  it('throws OutboundBlockedError (not retryable) through a guard that refuses loopback, before any request', async () => {
    const guarded = createOutboundClient({ allowPrivateNetworks: false });
    const before = site.hitCount('/contact');
    const err = await fetchPage(guarded, `${site.url}/contact`, opts).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundBlockedError);
    expect(err).toMatchObject({ retryable: false, address: '127.0.0.1' });
    expect(site.hitCount('/contact')).toBe(before);
  });

  it('skips a redirect to a scheme it does not fetch', async () => {
    site.setPage('/to-mail', (_req, res) => {
      res.writeHead(302, { location: 'mailto:hello@brightwater.example' });
      res.end();
    });
    const out = await fetchPage(client, `${site.url}/to-mail`, opts);
    expect(out).toMatchObject({ kind: 'skipped', retryable: false });
  });
});
