// Issue 5 fault (a): two crawler processes share one crawl of a 300-page site; one is SIGKILLed
// mid-crawl and a third is started. The crawl completes, every page is stored exactly once and no
// document is duplicated: the killed worker's pages stall, return to the queue and are re-run
// idempotently; its per-host slots expire by themselves.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeneratedSite } from '../support/fixture-site.ts';
import { api, createClient, type Kbchat, startKbchat, waitFor } from '../support/kbchat.ts';
import { count, crawlerProcesses, getJob, PIPELINE_ENV, pollJob, testPool } from './support/pipeline.ts';

const PAGES = 300;

describe('a crawler killed mid-crawl', () => {
  let kb: Kbchat;
  let site: Awaited<ReturnType<typeof startGeneratedSite>>;
  let pool: pg.Pool;
  // Short fetch/render timeouts: a killed worker's host slots (leased for fetch + render + 5 s) come back sooner.
  const env = { ...PIPELINE_ENV, CRAWL_FETCH_TIMEOUT_MS: '3000', CRAWL_RENDER_TIMEOUT_MS: '2000', CRAWL_CONCURRENCY: '4' };

  const crawlers = crawlerProcesses(() => kb.config.REDIS_PREFIX, env);
  const startCrawler = crawlers.start;

  beforeAll(async () => {
    // This process: the API and the embedder; crawling happens only in the child processes.
    kb = await startKbchat({ env, services: ['gateway', 'embedder'] });
    // Slow enough that the crawl is still running when a worker is killed.
    site = await startGeneratedSite({ pages: PAGES, delayMs: 25 });
    pool = testPool();
  });
  afterAll(async () => {
    await crawlers.killAll();
    await kb?.stop();
    await site?.close();
    await pool?.end();
  });

  it('completes with every page once and no duplicate documents', async () => {
    const a = await startCrawler();
    await startCrawler();
    const { clientId } = await createClient(kb.baseUrl);
    const res = await api<{ jobId: string }>(kb.baseUrl, 'POST', '/api/admin/crawl', {
      clientId,
      url: `${site.url}/`,
      maxPages: 400,
      wait: false,
    });
    expect(res.status).toBe(202);

    const before = await waitFor(
      async () => {
        const job = await getJob(kb.baseUrl, res.body.jobId);
        return job.progress.pagesFetched >= 40 ? job : undefined;
      },
      { timeoutMs: 90_000, what: '40 pages fetched' },
    );
    a.kill('SIGKILL');
    expect(await a.exited).toBeNull();
    // Killed while the crawl was far from done.
    expect(before.progress.pagesFetched).toBeLessThan(PAGES);
    await startCrawler();

    const { final } = await pollJob(kb.baseUrl, res.body.jobId, 150_000);
    expect(final.status).toBe('completed');
    expect(final.progress.pagesIndexed).toBe(PAGES + 1);
    expect(final.progress).toMatchObject({ pagesFailed: 0, pagesSkipped: 0, pagesDiscovered: PAGES + 1 });
    expect(final.result).toMatchObject({ success: true, pagesIndexed: PAGES + 1 });

    expect(await count(pool, 'SELECT count(*) AS n FROM pages WHERE client_id = $1', [clientId])).toBe(PAGES + 1);
    expect(await count(pool, "SELECT count(*) AS n FROM crawl_urls WHERE job_id = $1 AND state = 'done'", [res.body.jobId])).toBe(
      PAGES + 1,
    );
    const docs = await count(pool, 'SELECT count(*) AS n FROM documents WHERE client_id = $1', [clientId]);
    expect(docs).toBe(final.progress.documentsCreated);
    // No (page, chunk) twice, no page with a gap or a second copy of its chunks.
    expect(
      await count(
        pool,
        'SELECT count(*) AS n FROM (SELECT url, chunk_index FROM documents WHERE client_id = $1 GROUP BY 1, 2 HAVING count(*) > 1) d',
        [clientId],
      ),
    ).toBe(0);
    expect(
      await count(
        pool,
        `SELECT count(*) AS n FROM (SELECT page_id FROM documents WHERE client_id = $1 GROUP BY page_id
                                     HAVING max(chunk_index) + 1 <> count(*)) d`,
        [clientId],
      ),
    ).toBe(0);
    expect(await count(pool, 'SELECT count(*) AS n FROM documents WHERE client_id = $1 AND embedding IS NULL', [clientId])).toBe(0);
    expect(final.progress.embeddingsDone).toBe(docs);
    // Every page of the site was fetched; a page in flight when the worker died may have been fetched twice.
    for (let i = 0; i < PAGES; i++) expect(site.hitCount(`/p/${i}`)).toBeGreaterThanOrEqual(1);
  });
});
