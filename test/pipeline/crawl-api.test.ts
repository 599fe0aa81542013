// POST /api/admin/crawl and GET /api/admin/jobs/:jobId against a real local site, with the whole
// pipeline (gateway, crawler, embedder) running on the run's Postgres and Redis.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createClient, type Kbchat, startKbchat, waitFor } from '../support/kbchat.ts';
import { addLinkedPages, html, type MiniSite, prose, startMiniSite } from './support/mini-site.ts';
import { count, getJob, type JobBody, PIPELINE_ENV, pollJob, testPool } from './support/pipeline.ts';

interface CrawlOk {
  success: boolean;
  sourceId: string;
  pagesIndexed: number;
  documentsCreated: number;
  message: string;
}
interface Accepted {
  success: boolean;
  jobId: string;
  sourceId: string;
  status: string;
  statusUrl: string;
  message: string;
}

describe('crawl API', () => {
  let kb: Kbchat;
  let site: MiniSite;
  let pool: pg.Pool;

  beforeAll(async () => {
    kb = await startKbchat({ env: PIPELINE_ENV });
    site = await startMiniSite();
    addLinkedPages(site, 12);
    pool = testPool();
  });
  afterAll(async () => {
    await kb?.stop();
    await site?.close();
    await pool?.end();
  });

  it('sync crawl answers 200 with the spec body once pages are stored and embedded; counts match the database', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    const res = await api<CrawlOk>(kb.baseUrl, 'POST', '/api/admin/crawl', { clientId, url: site.url });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['documentsCreated', 'message', 'pagesIndexed', 'sourceId', 'success']);
    expect(res.body.success).toBe(true);
    expect(res.body.pagesIndexed).toBe(13);
    const pages = await count(pool, 'SELECT count(*) AS n FROM pages WHERE client_id = $1 AND source_id = $2', [clientId, res.body.sourceId]);
    const docs = await count(pool, 'SELECT count(*) AS n FROM documents WHERE client_id = $1', [clientId]);
    const embedded = await count(pool, 'SELECT count(*) AS n FROM documents WHERE client_id = $1 AND embedding IS NOT NULL', [clientId]);
    expect(pages).toBe(13);
    expect(docs).toBe(res.body.documentsCreated);
    expect(docs).toBeGreaterThanOrEqual(13);
    // "Once embedding jobs are done": every document has its vector when the 200 arrives.
    expect(embedded).toBe(docs);
    expect(res.body.message).toMatch(/Indexed 13 pages/);
    const urls = (await pool.query<{ url: string }>('SELECT url FROM pages WHERE client_id = $1', [clientId])).rows.map((r) => r.url);
    expect(urls).toContain(`${site.origin}/p11`);
  });

  it('wait:false answers 202 with an absolute statusUrl; polling shows live counters and then the result', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    const gated = await startMiniSite();
    addLinkedPages(gated, 6);
    // A gate holds one page open, so the crawl is observably mid-way whatever the machine's speed.
    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    gated.pages.set('/p5', { ...(gated.pages.get('/p5') as { body: string }), hold: gate });
    try {
      const res = await api<Accepted>(kb.baseUrl, 'POST', '/api/admin/crawl', { clientId, url: gated.url, wait: false });
      expect(res.status).toBe(202);
      expect(res.body.success).toBe(true);
      expect(res.body.status).toMatch(/queued|active/);
      expect(res.body.statusUrl).toBe(`${kb.baseUrl}/api/admin/jobs/${res.body.jobId}`);
      expect(res.headers.get('location')).toBe(res.body.statusUrl);

      const midway = await waitFor(
        async () => {
          const job = await getJob(kb.baseUrl, res.body.jobId);
          return job.progress.pagesIndexed === 6 ? job : undefined;
        },
        { timeoutMs: 60_000, what: 'six of seven pages indexed' },
      );
      expect(midway.status).toBe('active');
      expect(midway.phase).toBe('crawling');
      expect(midway.result).toBeNull();
      expect(midway.progress.pagesDiscovered).toBe(7);
      expect(midway.progress.pagesFetched).toBe(6);
      expect(midway.message).toMatch(/Crawling: 6 of 7 pages fetched/);

      open();
      const { final, seen } = await pollJob(kb.baseUrl, res.body.jobId);
      expect(final.status).toBe('completed');
      expect(final.phase).toBe('done');
      expect(final.kind).toBe('crawl');
      expect(final.sourceId).toBe(res.body.sourceId);
      expect(final.result).toMatchObject({ success: true, sourceId: res.body.sourceId, pagesIndexed: 7 });
      expect(final.progress).toMatchObject({ pagesDiscovered: 7, pagesFetched: 7, pagesIndexed: 7, pagesSkipped: 0, pagesFailed: 0 });
      expect(final.progress.embeddingsDone).toBe(final.progress.documentsCreated);
      expect(final.message).toBe((final.result as { message: string }).message);
      // Counters only grow while the job runs.
      const all = [midway, ...seen];
      for (let i = 1; i < all.length; i++) {
        for (const key of ['pagesFetched', 'pagesIndexed', 'documentsCreated', 'embeddingsDone'] as const) {
          expect((all[i] as JobBody).progress[key]).toBeGreaterThanOrEqual((all[i - 1] as JobBody).progress[key] as number);
        }
      }
    } finally {
      open();
      await gated.close();
    }
  });
});
