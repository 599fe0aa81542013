// Issue 5 fault e: a crawler process gets SIGTERM in the middle of a crawl. It stops taking pages,
// lets the ones in flight finish (every page it had requested is stored when it exits), exits 0
// before SHUTDOWN_TIMEOUT_MS (its deadline exits 1), and the rest of the crawl stays queued until
// another crawler process starts and completes it: every page once, no duplicate document.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, crawlerProcesses, getJob, PIPELINE_ENV, pollJob, testPool } from '../pipeline/support/pipeline.ts';
import { startGeneratedSite } from '../support/fixture-site.ts';
import { api, createClient, type Kbchat, startKbchat, waitFor } from '../support/kbchat.ts';

const PAGES = 80;
const SHUTDOWN_TIMEOUT_MS = 15_000;

describe('SIGTERM to a crawler mid-crawl', () => {
  let kb: Kbchat;
  let site: Awaited<ReturnType<typeof startGeneratedSite>>;
  let pool: pg.Pool;

  const crawlers = crawlerProcesses(() => kb.config.REDIS_PREFIX, { ...PIPELINE_ENV, SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) });
  const startCrawler = crawlers.start;

  beforeAll(async () => {
    // This process: the API and the embedder; pages are crawled only by the child processes.
    kb = await startKbchat({ env: PIPELINE_ENV, services: ['gateway', 'embedder'] });
    // Slow pages: several are always in flight when the signal arrives.
    site = await startGeneratedSite({ pages: PAGES, delayMs: 250 });
    pool = testPool();
  });
  afterAll(async () => {
    await crawlers.killAll();
    await kb?.stop();
    await site?.close();
    await pool?.end();
  });

  it('finishes the pages in flight, exits 0, and the crawl completes on another crawler with every page once', async () => {
    const first = await startCrawler();
    const { clientId } = await createClient(kb.baseUrl);
    const res = await api<{ jobId: string }>(kb.baseUrl, 'POST', '/api/admin/crawl', {
      clientId,
      url: `${site.url}/`,
      maxPages: 200,
      render: 'never',
      wait: false,
    });
    expect(res.status).toBe(202);
    const jobId = res.body.jobId;
    await waitFor(async () => (await getJob(kb.baseUrl, jobId)).progress.pagesFetched >= 15, {
      timeoutMs: 90_000,
      what: '15 pages fetched',
    });

    // What the crawler had asked the site for when the signal came: each of these must be stored by
    // the time it exits. The site answers 250 ms after a request, so some are always in flight.
    const snapshot = async () => {
      const stored = await count(pool, 'SELECT count(*) AS n FROM pages WHERE client_id = $1', [clientId]);
      const paths = [...site.hits.keys()].filter((p) => p.startsWith('/p/'));
      // + 1: the index page, stored but not under /p/.
      return { requested: paths, inFlight: paths.length + 1 - stored };
    };
    const { requested, inFlight } = await waitFor(async () => {
      const snap = await snapshot();
      return snap.inFlight > 0 ? snap : undefined;
    });
    const signalled = Date.now();
    first.kill('SIGTERM');
    const code = await first.exited;
    const exitMs = Date.now() - signalled;
    expect(code, first.output().slice(-2000)).toBe(0);
    expect(first.output()).toContain('shutdown complete');
    expect(first.output()).not.toContain('shutdown deadline passed');

    const stored = await pool.query<{ url: string }>('SELECT url FROM pages WHERE client_id = $1', [clientId]);
    const storedPaths = new Set(stored.rows.map((r) => new URL(r.url).pathname));
    const unfinished = requested.filter((p) => !storedPaths.has(p));
    expect(unfinished, 'pages requested before SIGTERM but not stored when the crawler exited').toEqual([]);
    // The crawl was really cut short: the rest waits in the queue, untouched, for the next crawler.
    const midway = await getJob(kb.baseUrl, jobId);
    expect(midway.status).toBe('active');
    expect(midway.progress.pagesIndexed).toBeLessThan(PAGES + 1);
    const fetchedBeforeRestart = [...site.hits.keys()].filter((p) => p.startsWith('/p/')).length;
    // Nobody crawls between the exit and the next start.
    await new Promise((r) => setTimeout(r, 1_000));
    expect([...site.hits.keys()].filter((p) => p.startsWith('/p/'))).toHaveLength(fetchedBeforeRestart);

    await startCrawler();
    const { final } = await pollJob(kb.baseUrl, jobId, 120_000);
    expect(final.status).toBe('completed');
    expect(final.progress).toMatchObject({ pagesIndexed: PAGES + 1, pagesDiscovered: PAGES + 1, pagesFailed: 0, pagesSkipped: 0 });

    expect(await count(pool, 'SELECT count(*) AS n FROM pages WHERE client_id = $1', [clientId])).toBe(PAGES + 1);
    expect(await count(pool, "SELECT count(*) AS n FROM crawl_urls WHERE job_id = $1 AND state = 'done'", [jobId])).toBe(PAGES + 1);
    const duplicates = await count(
      pool,
      'SELECT count(*) AS n FROM (SELECT url, chunk_index FROM documents WHERE client_id = $1 GROUP BY 1, 2 HAVING count(*) > 1) d',
      [clientId],
    );
    expect(duplicates).toBe(0);
    expect(await count(pool, 'SELECT count(*) AS n FROM documents WHERE client_id = $1 AND embedding IS NULL', [clientId])).toBe(0);
    const fetchedTwice = Array.from({ length: PAGES }, (_, i) => `/p/${i}`).filter((p) => site.hitCount(p) > 1);
    for (let i = 0; i < PAGES; i++) expect(site.hitCount(`/p/${i}`), `/p/${i}`).toBeGreaterThanOrEqual(1);
    // Finished, not abandoned: no page had to be fetched again by the second crawler.
    expect(fetchedTwice).toEqual([]);
    process.stderr.write(
      `[fault e] SIGTERM with ${requested.length} of ${PAGES} pages requested, ${inFlight} of them in flight; exited 0 in ${exitMs} ms ` +
        `(deadline ${SHUTDOWN_TIMEOUT_MS} ms) with all ${requested.length} stored; second crawler completed the crawl: ` +
        `${final.progress.pagesIndexed} pages, 0 duplicate documents, ${fetchedTwice.length} pages fetched twice\n`,
    );
  });
});
