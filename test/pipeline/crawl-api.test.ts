// POST /api/admin/crawl and GET /api/admin/jobs/:jobId against a real local site, with the whole
// pipeline (gateway, crawler, embedder) running on the run's Postgres and Redis.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createClient, type Kbchat, startKbchat, waitFor } from '../support/kbchat.ts';
import { addLinkedPages, type MiniSite, startMiniSite } from './support/mini-site.ts';
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
    const pages = await count(pool, 'SELECT count(*) AS n FROM pages WHERE client_id = $1 AND source_id = $2', [
      clientId,
      res.body.sourceId,
    ]);
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

  it('rejects bad bodies with 400 {error, details: string}, changing nothing', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    // This client's rows, not the table's: other test files write jobs into the same database meanwhile.
    const rowsOf = (table: 'jobs' | 'sources') => count(pool, `SELECT count(*) AS n FROM ${table} WHERE client_id = $1`, [clientId]);
    const jobsBefore = await rowsOf('jobs');
    const sourcesBefore = await rowsOf('sources');
    const cases: [unknown, RegExp][] = [
      [{ clientId, url: 'ftp://example.com/' }, /url must be a valid HTTP or HTTPS URL/],
      [{ clientId, url: 'not a url' }, /url must be a valid HTTP or HTTPS URL/],
      [{ clientId }, /url is required/],
      [{ url: site.url }, /clientId is required/],
      [{ clientId, url: site.url, maxPages: 0 }, /maxPages must be a positive integer/],
      [{ clientId, url: site.url, maxPages: 2.5 }, /maxPages must be a positive integer/],
      [{ clientId, url: site.url, maxPages: '10' }, /maxPages must be a positive integer/],
      [{ clientId, url: site.url, maxPages: 1001 }, /maxPages must be at most 1000/],
      [{ clientId, url: site.url, render: 'sometimes' }, /render must be auto, never or always/],
      [{ clientId, url: site.url, wait: 'no' }, /wait must be true or false/],
      ['{"clientId": ', /not valid JSON/],
    ];
    for (const [body, details] of cases) {
      const res = await api<{ error: string; details: unknown }>(kb.baseUrl, 'POST', '/api/admin/crawl', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(typeof res.body.error).toBe('string');
      expect(typeof res.body.details, JSON.stringify(res.body)).toBe('string');
      expect(res.body.details).toMatch(details);
    }
    expect(await rowsOf('jobs')).toBe(jobsBefore);
    expect(await rowsOf('sources')).toBe(sourcesBefore);
  });

  it('answers 404 for an unknown or malformed clientId, and for an unknown jobId', async () => {
    for (const clientId of ['7a0f3c52-0d7e-4c8e-9d3a-2f0e6b1c9a11', 'not-a-uuid']) {
      const res = await api<{ error: string; details: unknown }>(kb.baseUrl, 'POST', '/api/admin/crawl', { clientId, url: site.url });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatch(/not found/i);
      expect(typeof res.body.details).toBe('string');
    }
    for (const jobId of ['7a0f3c52-0d7e-4c8e-9d3a-2f0e6b1c9a11', 'nope']) {
      const res = await api(kb.baseUrl, 'GET', `/api/admin/jobs/${jobId}`);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: 'Job not found' });
    }
  });

  it('Prefer: respond-async answers 202 and says the preference was applied', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    const res = await api<Accepted>(
      kb.baseUrl,
      'POST',
      '/api/admin/crawl',
      { clientId, url: site.url, maxPages: 3 },
      { prefer: 'respond-async' },
    );
    expect(res.status).toBe(202);
    expect(res.headers.get('preference-applied')).toBe('respond-async');
    const { final } = await pollJob(kb.baseUrl, res.body.jobId);
    expect(final.result).toMatchObject({ success: true, pagesIndexed: 3 });
  });

  it('maxPages is exact: a 40-page site crawled with maxPages 7 fetches and stores 7 pages', async () => {
    const big = await startMiniSite();
    addLinkedPages(big, 39);
    try {
      const { clientId } = await createClient(kb.baseUrl);
      const res = await api<CrawlOk>(kb.baseUrl, 'POST', '/api/admin/crawl', { clientId, url: big.url, maxPages: 7 });
      expect(res.status).toBe(200);
      expect(res.body.pagesIndexed).toBe(7);
      expect(res.body.message).toMatch(/Stopped at maxPages \(7\)/);
      expect(await count(pool, 'SELECT count(*) AS n FROM pages WHERE client_id = $1', [clientId])).toBe(7);
      const pageFetches = big.requests.filter((r) => r.path === '/' || /^\/p\d+$/.test(r.path));
      expect(pageFetches).toHaveLength(7);
    } finally {
      await big.close();
    }
  });

  it('the default maxPages is 50', async () => {
    const big = await startMiniSite();
    addLinkedPages(big, 60);
    try {
      const { clientId } = await createClient(kb.baseUrl);
      const res = await api<Accepted>(kb.baseUrl, 'POST', '/api/admin/crawl', { clientId, url: big.url, wait: false });
      const { final } = await pollJob(kb.baseUrl, res.body.jobId);
      expect(final.progress.pagesIndexed).toBe(50);
      expect(final.options.maxPages).toBe(50);
      // The view shows what the admin asked for, nothing internal (the queue namespace stays in the row).
      expect(Object.keys(final.options).sort()).toEqual(['exclude', 'include', 'maxPages', 'render', 'startUrl', 'url']);
      expect(JSON.stringify(final.options)).not.toContain(kb.config.REDIS_PREFIX);
    } finally {
      await big.close();
    }
  });

  it('a crawl that indexes nothing answers 200 success:false saying why, and the job is failed', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    const res = await api<CrawlOk>(kb.baseUrl, 'POST', '/api/admin/crawl', { clientId, url: `${site.origin}/missing` });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(false);
    expect(res.body.pagesIndexed).toBe(0);
    expect(res.body.documentsCreated).toBe(0);
    expect(res.body.message).toMatch(/No pages were indexed .*HTTP 404/);

    // Nothing listening: retried (CRAWL_PAGE_ATTEMPTS), then failed, with the reason.
    const closed = await startMiniSite();
    const deadUrl = closed.url;
    await closed.close();
    const dead = await api<CrawlOk>(kb.baseUrl, 'POST', '/api/admin/crawl', { clientId, url: deadUrl });
    expect(dead.status).toBe(200);
    expect(dead.body.success).toBe(false);
    expect(dead.body.message).toMatch(/could not be fetched \(ECONNREFUSED\)/);
    const sources = await api<{ sources: { sourceId: string; lastJob: { status: string } }[] }>(
      kb.baseUrl,
      'GET',
      `/api/admin/clients/${clientId}/sources`,
    );
    const deadSource = sources.body.sources.find((s) => s.sourceId === dead.body.sourceId);
    expect(deadSource?.lastJob.status).toBe('failed');
  });

  it('sources and documents listings: counts, stats, paging; other clients see none of it', async () => {
    const a = await createClient(kb.baseUrl);
    const b = await createClient(kb.baseUrl);
    const first = await api<CrawlOk>(kb.baseUrl, 'POST', '/api/admin/crawl', { clientId: a.clientId, url: site.url, maxPages: 5 });
    const again = await api<CrawlOk>(kb.baseUrl, 'POST', '/api/admin/crawl', {
      clientId: a.clientId,
      url: `${site.url}index.html`,
      maxPages: 5,
    });
    // The same site for another tenant: its own pages and documents, nothing shared.
    const other = await api<CrawlOk>(kb.baseUrl, 'POST', '/api/admin/crawl', { clientId: b.clientId, url: site.url, maxPages: 4 });
    expect(again.body.sourceId).toBe(first.body.sourceId);
    expect(other.body.sourceId).not.toBe(first.body.sourceId);

    const sources = await api<{
      sources: {
        sourceId: string;
        url: string;
        pages: number;
        documents: number;
        embeddedDocuments: number;
        lastJob: { jobId: string; status: string; pagesIndexed: number };
      }[];
    }>(kb.baseUrl, 'GET', `/api/admin/clients/${a.clientId}/sources`);
    expect(sources.status).toBe(200);
    expect(sources.body.sources).toHaveLength(1);
    const src = sources.body.sources[0]!;
    expect(src).toMatchObject({
      sourceId: first.body.sourceId,
      url: site.url,
      pages: 5,
      lastJob: { status: 'completed', pagesIndexed: 5 },
    });
    expect(src.documents).toBe(src.embeddedDocuments);

    const docs = await api<{
      stats: { total: number; embedded: number; byModel: Record<string, number> };
      documents: { id: string; url: string; chunkIndex: number; embeddingModel: string; contentPreview: string; tokenCount: number }[];
      limit: number;
      offset: number;
    }>(kb.baseUrl, 'GET', `/api/admin/clients/${a.clientId}/documents?limit=2&offset=1`);
    expect(docs.status).toBe(200);
    expect(docs.body.stats.total).toBe(src.documents);
    expect(docs.body.stats.embedded).toBe(src.documents);
    expect(Object.values(docs.body.stats.byModel).reduce((x, y) => x + y, 0)).toBe(src.documents);
    expect(docs.body.documents).toHaveLength(2);
    expect(docs.body).toMatchObject({ limit: 2, offset: 1 });
    for (const d of docs.body.documents) {
      expect(d.url.startsWith(site.origin)).toBe(true);
      expect(d.contentPreview.length).toBeGreaterThan(0);
      expect(d.tokenCount).toBeGreaterThan(0);
    }
    const bDocs = await api<{ stats: { total: number }; documents: { id: string }[] }>(
      kb.baseUrl,
      'GET',
      `/api/admin/clients/${b.clientId}/documents?limit=500`,
    );
    const aIds = new Set(
      (await pool.query<{ id: string }>('SELECT id FROM documents WHERE client_id = $1', [a.clientId])).rows.map((r) => r.id),
    );
    expect(bDocs.body.stats.total).toBeGreaterThan(0);
    expect(bDocs.body.documents.some((d) => aIds.has(d.id))).toBe(false);
    expect(await count(pool, 'SELECT count(*) AS n FROM pages WHERE client_id = $1', [b.clientId])).toBe(4);

    expect((await api(kb.baseUrl, 'GET', '/api/admin/clients/not-a-uuid/sources')).status).toBe(404);
    expect((await api(kb.baseUrl, 'GET', `/api/admin/clients/${a.clientId}/documents?limit=0`)).status).toBe(400);
  });
});
