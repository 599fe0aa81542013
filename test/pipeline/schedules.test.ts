// Scheduled re-crawls, scope and the changes of each crawl, through the real service: a schedule
// is validated, fires (every 2 s here) as one crawl per iteration with two crawler processes on the
// queue, survives a restart — even of a Redis that lost its schedulers — and stops when set off.
import { randomUUID } from 'node:crypto';
import { readInstallId } from '@kbchat/shared/install';
import { queuePrefix } from '@kbchat/shared/queue/contract';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';
import { html, type MiniSite, prose, startMiniSite } from './support/mini-site.ts';
import { count, PIPELINE_ENV, testPool } from './support/pipeline.ts';

interface SourceBody {
  sourceId: string;
  url: string;
  schedule: string;
  nextRunAt: string | null;
  crawlOptions: { include: string[]; exclude: string[]; maxPages?: number };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

describe('re-crawl schedules, scope and changes', () => {
  let site: MiniSite;
  let pool: pg.Pool;
  const running: Kbchat[] = [];
  const prefix = `kbt-${inject('runId')}-sched-${randomUUID().slice(0, 8)}`;
  const start = async (services?: ('gateway' | 'crawler' | 'embedder')[]) => {
    const kb = await startKbchat({ env: { ...PIPELINE_ENV, REDIS_PREFIX: prefix }, ...(services ? { services } : {}) });
    running.push(kb);
    return kb;
  };
  const crawls = (sourceId: string) => count(pool, "SELECT count(*) AS n FROM jobs WHERE source_id = $1 AND kind = 'crawl'", [sourceId]);

  beforeAll(async () => {
    pool = testPool();
    site = await startMiniSite();
    site.pages.set('/', { body: html('Home', `${prose('home')}<a href="/docs/a">a</a> <a href="/docs/b">b</a> <a href="/blog/c">c</a>`) });
    site.pages.set('/docs/a', { body: html('A', prose('apricot')) });
    site.pages.set('/docs/b', { body: html('B', prose('blueberry')) });
    site.pages.set('/blog/c', { body: html('C', prose('cherry')) });
  });
  afterEach(async () => {
    while (running.length > 0) await running.pop()?.stop();
  });
  afterAll(async () => {
    await site?.close();
    await pool?.end();
  });

  it('keeps a crawl’s scope with the source, and lists what each crawl added, changed and removed', async () => {
    const kb = await start();
    const { clientId } = await createClient(kb.baseUrl);
    const bad = await api(kb.baseUrl, 'POST', '/api/admin/crawl', { clientId, url: site.url, include: ['docs/**'] });
    expect(bad.status).toBe(400);
    const first = await api<{ sourceId: string; pagesIndexed: number }>(kb.baseUrl, 'POST', '/api/admin/crawl', {
      clientId,
      url: site.url,
      exclude: ['/blog/**'],
    });
    expect(first.status).toBe(200);
    // The start URL is always crawled; /blog/c is out of scope.
    expect(first.body.pagesIndexed).toBe(3);
    // A re-crawl that names no scope reuses the source's; /docs/b changed, /docs/a is gone.
    site.pages.set('/docs/b', { body: html('B', prose('blackberry')) });
    site.pages.delete('/docs/a');
    const again = await api<{ pagesIndexed: number }>(kb.baseUrl, 'POST', '/api/admin/crawl', { clientId, url: site.url });
    expect(again.body.pagesIndexed).toBe(2);
    const changes = await api<{ crawls: { counts: Record<string, number>; added: string[]; changed: string[]; removed: string[] }[] }>(
      kb.baseUrl,
      'GET',
      `/api/admin/clients/${clientId}/sources/${first.body.sourceId}/changes?limit=5`,
    );
    expect(changes.status).toBe(200);
    expect(changes.body.crawls).toHaveLength(2);
    const [latest, earliest] = changes.body.crawls;
    expect(earliest).toMatchObject({ counts: { added: 3, changed: 0, removed: 0 } });
    expect(latest).toMatchObject({
      counts: { added: 0, changed: 1, removed: 1 },
      changed: [`${site.origin}/docs/b`],
      removed: [`${site.origin}/docs/a`],
    });
    const list = await api<{ sources: SourceBody[] }>(kb.baseUrl, 'GET', `/api/admin/clients/${clientId}/sources`);
    expect(list.body.sources[0]).toMatchObject({ schedule: 'off', nextRunAt: null, crawlOptions: { include: [], exclude: ['/blog/**'] } });
    expect((await api(kb.baseUrl, 'GET', `/api/admin/clients/${clientId}/sources/${randomUUID()}/changes`)).status).toBe(404);
    site.pages.set('/docs/a', { body: html('A', prose('apricot')) });
  });

  it('validates schedules; fires one crawl per iteration with two crawlers; survives a restart and a Redis that lost it; stops when off', async () => {
    const kb = await start(['gateway', 'embedder']);
    await start(['crawler']);
    await start(['crawler']);
    const { clientId } = await createClient(kb.baseUrl);
    const other = await createClient(kb.baseUrl);
    const crawled = await api<{ sourceId: string }>(kb.baseUrl, 'POST', '/api/admin/crawl', { clientId, url: site.url });
    const sourceId = crawled.body.sourceId;
    const patch = (body: unknown, client = clientId, id = sourceId) =>
      api<SourceBody>(kb.baseUrl, 'PATCH', `/api/admin/clients/${client}/sources/${id}`, body);

    for (const body of [{ schedule: 'hourly-ish' }, { schedule: '61 * * * *' }, { schedule: 'daily', extra: 1 }, {}]) {
      const res = await patch(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await patch({ schedule: 'daily' }, other.clientId)).status).toBe(404);
    expect((await patch({ schedule: 'daily' }, clientId, randomUUID())).status).toBe(404);
    expect(await crawls(sourceId)).toBe(1);

    const daily = await patch({ schedule: 'daily' });
    expect(daily.status).toBe(200);
    expect(daily.body.schedule).toBe('daily');
    const dailyNext = Date.parse(daily.body.nextRunAt ?? '');
    expect(dailyNext - Date.now()).toBeGreaterThan(0);
    expect(dailyNext - Date.now()).toBeLessThanOrEqual(24 * 3600_000);

    const every2s = await patch({ schedule: '*/2 * * * * *' });
    expect(every2s.status).toBe(200);
    expect(Date.parse(every2s.body.nextRunAt ?? '') - Date.now()).toBeLessThanOrEqual(2_500);
    const t0 = Date.now();
    await waitFor('three scheduled crawls', async () => (await crawls(sourceId)) >= 4);
    await sleep(3_000);
    const fired = (await crawls(sourceId)) - 1;
    const seconds = (Date.now() - t0) / 1000;
    // One crawl per 2-second iteration at most, with two crawler processes on the queue.
    expect(fired).toBeLessThanOrEqual(Math.ceil(seconds / 2) + 1);
    // Each scheduled crawl ran and left the site's pages as one crawl does.
    expect(await count(pool, 'SELECT count(*) AS n FROM pages WHERE source_id = $1', [sourceId])).toBe(4);

    // Everything stops; Redis loses the scheduler; the crawler starts again and puts it back.
    while (running.length > 0) await running.pop()?.stop();
    const redis = new Redis(inject('redisUrl'), { maxRetriesPerRequest: 1 });
    const queue = new Queue('crawl', { connection: redis, prefix: queuePrefix(prefix, await readInstallId(pool)) });
    try {
      expect(await queue.getJobScheduler(`recrawl-${sourceId}`)).toBeTruthy();
      await queue.removeJobScheduler(`recrawl-${sourceId}`);
      await queue.obliterate({ force: true });
    } finally {
      await queue.close();
      redis.disconnect();
    }
    const before = await crawls(sourceId);
    const again = await start();
    await waitFor('a scheduled crawl after the restart', async () => (await crawls(sourceId)) > before);
    const listed = await api<{ sources: SourceBody[] }>(again.baseUrl, 'GET', `/api/admin/clients/${clientId}/sources`);
    expect(listed.body.sources[0]?.schedule).toBe('*/2 * * * * *');
    expect(listed.body.sources[0]?.nextRunAt).not.toBeNull();

    const off = await api<SourceBody>(again.baseUrl, 'PATCH', `/api/admin/clients/${clientId}/sources/${sourceId}`, { schedule: 'off' });
    expect(off.body).toMatchObject({ schedule: 'off', nextRunAt: null });
    await sleep(2_500);
    const settled = await crawls(sourceId);
    await sleep(4_000);
    expect(await crawls(sourceId)).toBe(settled);
  });
});
