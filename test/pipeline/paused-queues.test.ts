// Issue 21.4: a queue paused in the dashboard (the real bull-board API, on the run's Redis) stays
// paused across a restart. /readyz then answers 200 `degraded` naming it, and a synchronous crawl
// or generate-embeddings answers 202 at once naming it instead of hanging for CRAWL_SYNC_WAIT_MS;
// once resumed, the job it accepted completes.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';
import { createSeeder, type Seeder } from '../support/seed-documents.ts';
import { addLinkedPages, type MiniSite, startMiniSite } from './support/mini-site.ts';
import { PIPELINE_ENV, pollJob } from './support/pipeline.ts';

interface Accepted {
  success: boolean;
  jobId: string;
  status: string;
  statusUrl: string;
  message: string;
}

describe('paused queues', () => {
  const prefix = `kbt-${inject('runId')}-paused-${randomUUID().slice(0, 8)}`;
  let kb: Kbchat;
  let site: MiniSite;
  let seeder: Seeder;
  beforeAll(async () => {
    kb = await startKbchat({ env: { ...PIPELINE_ENV, REDIS_PREFIX: prefix } });
    site = await startMiniSite();
    addLinkedPages(site, 3);
    seeder = createSeeder(inject('databaseUrl'), kb.config);
  });
  afterAll(async () => {
    // Leave no paused queue behind in the shared Redis.
    for (const q of ['crawl', 'embed']) await api(kb.baseUrl, 'PUT', `/admin/queues/api/queues/${q}/resume`).catch(() => undefined);
    await seeder?.close();
    await kb?.stop();
    await site?.close();
  });

  const board = async (queue: string, action: 'pause' | 'resume') => {
    const res = await api(kb.baseUrl, 'PUT', `/admin/queues/api/queues/${queue}/${action}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };

  it('readyz says degraded, naming the paused queue, also after a restart; ok again once resumed', async () => {
    expect((await api(kb.baseUrl, 'GET', '/readyz')).body).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' } });
    await board('crawl', 'pause');
    const degraded = {
      status: 'degraded',
      checks: { postgres: 'ok', redis: 'ok' },
      degraded: ['the crawl queue is paused: its jobs wait until it is resumed (/admin/queues)'],
      pausedQueues: ['crawl'],
    };
    const paused = await api(kb.baseUrl, 'GET', '/readyz');
    expect(paused.status).toBe(200);
    expect(paused.body).toEqual(degraded);

    // A gateway started afterwards on the same Redis sees the pause: it is kept in Redis.
    const restarted = await startKbchat({ services: ['gateway'], env: { ...PIPELINE_ENV, REDIS_PREFIX: prefix } });
    try {
      expect((await api(restarted.baseUrl, 'GET', '/readyz')).body).toEqual(degraded);
    } finally {
      await restarted.stop();
    }
    await board('crawl', 'resume');
    expect((await api(kb.baseUrl, 'GET', '/readyz')).body).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' } });
  });

  it.each([['crawl'], ['embed']])(
    'a synchronous crawl with the %s queue paused answers 202 at once; resumed, the job completes',
    async (queue) => {
      const { clientId } = await createClient(kb.baseUrl);
      await board(queue, 'pause');
      const t0 = performance.now();
      const res = await api<Accepted>(kb.baseUrl, 'POST', '/api/admin/crawl', { clientId, url: site.url });
      const tookMs = performance.now() - t0;
      try {
        expect(res.status, JSON.stringify(res.body)).toBe(202);
        // CRAWL_SYNC_WAIT_MS is 60 s here: the answer did not wait for it.
        expect(tookMs).toBeLessThan(3_000);
        expect(res.body.message).toMatch(
          new RegExp(`^Accepted, not waited for: The ${queue} queue is paused \\(resume it in /admin/queues\\)`),
        );
        expect(res.headers.get('location')).toBe(res.body.statusUrl);
      } finally {
        await board(queue, 'resume');
      }
      const { final } = await pollJob(kb.baseUrl, res.body.jobId, 60_000);
      expect(final.status).toBe('completed');
      expect(final.progress.pagesIndexed).toBe(4);
    },
  );

  it('a synchronous generate-embeddings with the embed queue paused answers 202 at once, or 200 when there is nothing to embed', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    await seeder.seed(clientId, [{ url: 'https://paused.example/a', title: 'A', chunks: ['Boilers are serviced every year.'] }], {
      embed: false,
    });
    await board('embed', 'pause');
    let accepted: Accepted;
    try {
      const t0 = performance.now();
      const res = await api<Accepted>(kb.baseUrl, 'POST', '/api/admin/generate-embeddings', { clientId });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(performance.now() - t0).toBeLessThan(3_000);
      expect(res.body.message).toMatch(/^Accepted, not waited for: The embed queue is paused/);
      accepted = res.body;
      // Nothing to embed for a client without documents: complete at once, paused or not.
      const { clientId: empty } = await createClient(kb.baseUrl);
      const none = await api(kb.baseUrl, 'POST', '/api/admin/generate-embeddings', { clientId: empty });
      expect(none.status, JSON.stringify(none.body)).toBe(200);
    } finally {
      await board('embed', 'resume');
    }
    const { final } = await pollJob(kb.baseUrl, accepted.jobId, 60_000);
    expect(final.status).toBe('completed');
    expect(final.progress.embeddingsDone).toBe(1);
  });
});
