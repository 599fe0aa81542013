// Per-host politeness holds across crawler instances (it lives in Redis): requests in flight to
// one host never exceed CRAWL_PER_HOST_CONCURRENCY, and robots.txt Crawl-delay spaces them.
// Plus the queue dashboard behind the admin authentication.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';
import { addLinkedPages, html, type MiniSite, prose, startMiniSite } from './support/mini-site.ts';
import { PIPELINE_ENV } from './support/pipeline.ts';

describe('per-host politeness across crawler instances', () => {
  let kb: Kbchat;
  let second: Kbchat | undefined;

  beforeAll(async () => {
    const env = { ...PIPELINE_ENV, CRAWL_PER_HOST_CONCURRENCY: '2', CRAWL_CONCURRENCY: '6' };
    kb = await startKbchat({ env });
    // A second crawler on the same queues (same REDIS_PREFIX): 12 worker slots in all. Not on the
    // embedded database, whose socket server mixes up concurrent connections (docs/pipeline.md).
    if (inject('infraMode') !== 'embedded') {
      second = await startKbchat({ env: { ...env, REDIS_PREFIX: kb.config.REDIS_PREFIX }, services: ['crawler'] });
    }
  });
  afterAll(async () => {
    await second?.stop();
    await kb?.stop();
  });

  it('never has more than CRAWL_PER_HOST_CONCURRENCY requests in flight to one host', async () => {
    const site = await startMiniSite();
    try {
      addLinkedPages(site, 24);
      for (const [path, page] of site.pages) if (typeof page !== 'function') site.pages.set(path, { ...page, delayMs: 150 });
      const { clientId } = await createClient(kb.baseUrl);
      const res = await api<{ success: boolean; pagesIndexed: number }>(kb.baseUrl, 'POST', '/api/admin/crawl', {
        clientId,
        url: site.url,
      });
      expect(res.status).toBe(200);
      expect(res.body.pagesIndexed).toBe(25);
      expect(site.inFlight().max).toBe(2);
    } finally {
      await site.close();
    }
  });

  it('spaces requests by the Crawl-delay of robots.txt', async () => {
    const site: MiniSite = await startMiniSite();
    try {
      site.pages.set('/robots.txt', { contentType: 'text/plain', body: 'User-agent: *\nCrawl-delay: 1\n' });
      site.pages.set('/', { body: html('Home', `${prose('home')}<a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a>`) });
      for (const p of ['a', 'b', 'c']) site.pages.set(`/${p}`, { body: html(`Page ${p}`, prose(`page-${p}`)) });
      const { clientId } = await createClient(kb.baseUrl);
      const res = await api<{ pagesIndexed: number }>(kb.baseUrl, 'POST', '/api/admin/crawl', { clientId, url: site.url });
      expect(res.body.pagesIndexed).toBe(4);
      const starts = site.requests.filter((r) => ['/', '/a', '/b', '/c'].includes(r.path)).map((r) => r.at);
      expect(starts).toHaveLength(4);
      // A lower bound only. The delay is kept between slot grants (Redis' clock); what the site sees
      // also carries each request's own latency, which a loaded machine makes jittery, so allow
      // 250 ms of it. Without Crawl-delay the three links are fetched within a few ms of each other.
      for (let i = 1; i < starts.length; i++) expect((starts[i] as number) - (starts[i - 1] as number)).toBeGreaterThanOrEqual(750);
    } finally {
      await site.close();
    }
  });
});

describe('queue dashboard', () => {
  const key = 'test-admin-key-0123456789';
  let locked: Kbchat;
  let open: Kbchat;

  beforeAll(async () => {
    locked = await startKbchat({ env: { ...PIPELINE_ENV, ADMIN_API_KEY: key }, services: ['gateway'] });
    open = await startKbchat({ env: PIPELINE_ENV, services: ['gateway'] });
  });
  afterAll(async () => {
    await locked?.stop();
    await open?.stop();
  });

  it('answers 200 with the key, 401 without it or with a wrong one', async () => {
    const ok = await fetch(`${locked.baseUrl}/admin/queues`, { headers: { authorization: `Bearer ${key}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toMatch(/<html/i);
    const queues = await api<{ queues: { name: string }[] }>(locked.baseUrl, 'GET', '/admin/queues/api/queues', undefined, {
      authorization: `Bearer ${key}`,
    });
    expect(queues.status).toBe(200);
    expect(queues.body.queues.map((q) => q.name).sort()).toEqual(['crawl', 'embed', 'webhook']);

    for (const headers of [{}, { authorization: 'Bearer wrong-key-wrong-key-000' }] as Record<string, string>[]) {
      for (const path of ['/admin/queues', '/admin/queues/api/queues']) {
        const res = await api<{ error: string }>(locked.baseUrl, 'GET', path, undefined, headers);
        expect(res.status, path).toBe(401);
        expect(res.body.error).toBe('Unauthorized');
      }
    }
  });

  it('answers loopback callers when no ADMIN_API_KEY is set', async () => {
    const res = await fetch(`${open.baseUrl}/admin/queues`);
    expect(res.status).toBe(200);
  });
});
