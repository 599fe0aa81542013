// A whole crawl of the fixture company website (test/support/fixture-site.ts) through the API:
// what a crawler meets in the wild — robots rules and Sitemap lines, a sitemap index with a gzip
// sitemap, a redirect chain, canonical duplicates, off-site/mailto links, an infinite calendar, a
// 10 MB page, binaries served as HTML, Latin-1 and Shift_JIS pages, a JS-only page, a page slower
// than the timeout, a flaky one — ends as the right pages, documents and skip reasons.
import { chunkEmbeddingText } from '@kbchat/shared/crawl/chunker';
import { embedLocal, LOCAL_EMBEDDING_MODEL } from '@kbchat/shared/providers/embeddings/local-embedder';
import { countTokens } from '@kbchat/shared/providers/text/tokenizer';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_FACTS, type FixtureSite, startFixtureSite } from '../support/fixture-site.ts';
import { api, createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';
import { count, getJob, type JobBody, PIPELINE_ENV, testPool } from './support/pipeline.ts';

interface CrawlOk {
  success: boolean;
  sourceId: string;
  pagesIndexed: number;
  documentsCreated: number;
  message: string;
}

describe('crawl of the fixture website', () => {
  let kb: Kbchat;
  let site: FixtureSite;
  let pool: pg.Pool;
  let clientId: string;
  let crawl: CrawlOk;
  let job: JobBody;
  let pageUrls: string[];
  let text: string;

  beforeAll(async () => {
    // /slow answers after 4 s; the fetch timeout is 2 s (each of the 2 attempts times out).
    kb = await startKbchat({ env: { ...PIPELINE_ENV, CRAWL_FETCH_TIMEOUT_MS: '2000' } });
    site = await startFixtureSite({ slowMs: 4000, flakyFailures: 1 });
    pool = testPool();
    ({ clientId } = await createClient(kb.baseUrl));
    const res = await api<CrawlOk>(kb.baseUrl, 'POST', '/api/admin/crawl', { clientId, url: `${site.url}/`, maxPages: 45 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    crawl = res.body;
    const jobId = (await pool.query<{ id: string }>('SELECT id FROM jobs WHERE client_id = $1', [clientId])).rows[0]!.id;
    job = await getJob(kb.baseUrl, jobId);
    pageUrls = (await pool.query<{ url: string }>('SELECT url FROM pages WHERE client_id = $1 ORDER BY url', [clientId])).rows.map((r) =>
      r.url.slice(site.url.length),
    );
    text = (
      await pool.query<{ t: string }>("SELECT concat_ws(' ', title, heading, content) AS t FROM documents WHERE client_id = $1", [clientId])
    ).rows
      .map((r) => r.t)
      .join('\n');
  }, 120_000);
  afterAll(async () => {
    await kb?.stop();
    await site?.close();
    await pool?.end();
  });

  it('succeeds, stops at maxPages, and reports its skip reasons', () => {
    expect(crawl.success).toBe(true);
    expect(job.status).toBe('completed');
    // The calendar never ends: the budget does.
    expect(job.progress.pagesDiscovered - (job.progress.skipReasons.robots ?? 0)).toBe(45);
    expect(crawl.message).toMatch(/Stopped at maxPages \(45\)/);
    expect(crawl.pagesIndexed).toBe(pageUrls.length);
    expect(crawl.documentsCreated).toBe(job.progress.documentsCreated);
    expect(job.progress.embeddingsDone).toBe(job.progress.documentsCreated);
  });

  it('stores each chunk with its local vector as its page is stored: one write per row, no embed job, usage counted', async () => {
    const sql = `SELECT count(*) AS n FROM documents
                  WHERE client_id = $1 AND (embedding IS NULL OR embedding_model <> $2 OR embed_job_id IS NOT NULL)`;
    expect(await count(pool, sql, [clientId, LOCAL_EMBEDDING_MODEL])).toBe(0);
    // Each vector (made in the crawler's worker thread) is the local model's vector of the chunk's
    // embedding text, and its token count that text's cl100k count — as the embedder would have made them.
    const { rows } = await pool.query<{ title: string; heading: string | null; content: string; v: string; token_count: number }>(
      'SELECT title, heading, content, embedding::text AS v, token_count FROM documents WHERE client_id = $1 ORDER BY url, chunk_index',
      [clientId],
    );
    expect(rows.length).toBeGreaterThan(5);
    for (const row of rows) {
      const text = chunkEmbeddingText(row.title, row.heading, row.content);
      const stored = JSON.parse(row.v) as number[];
      const expected = embedLocal(text);
      expect(Math.max(...stored.map((x, i) => Math.abs(x - (expected[i] as number))))).toBeLessThan(1e-6);
      expect(row.token_count).toBe(countTokens(text));
    }
    // The embed queue this install's producers and workers use.
    const queue = kb.process.runtime.queues.embed.queue;
    const jobs = await queue.getJobCounts('completed', 'failed', 'waiting', 'delayed', 'active');
    expect(jobs).toEqual({ completed: 0, failed: 0, waiting: 0, delayed: 0, active: 0 });
    expect(job.progress.embeddingTokens).toBeGreaterThan(0);
    const usage = await count(pool, "SELECT sum(prompt_tokens) AS n FROM usage WHERE client_id = $1 AND kind = 'embedding'", [clientId]);
    expect(usage).toBe(job.progress.embeddingTokens);
  });

  it('honours robots.txt (our own group) and counts what it left out', () => {
    expect(pageUrls).not.toContain('/private/internal-wiki');
    expect(pageUrls).not.toContain('/internal-only/roadmap');
    expect(text).not.toMatch(/INTERNAL/);
    // Disallowed for '*' only: the kbchat-bot group allows it.
    expect(pageUrls).toContain('/star-only/notes');
    expect(job.progress.skipReasons.robots).toBeGreaterThanOrEqual(2);
    expect(site.hitCount('/private/internal-wiki')).toBe(0);
    expect(site.hitCount('/internal-only/roadmap')).toBe(0);
  });

  it('seeds the frontier from the sitemap index (gzip too) and the plain-text sitemap', () => {
    expect(pageUrls).toContain('/case-studies/fjordmart');
    expect(text).toContain(FIXTURE_FACTS.sitemapOnlyCase);
    expect(pageUrls).toContain('/careers');
  });

  it('stores one page per URL: redirect chain, tracking parameters, trailing slashes and canonical duplicates collapse', () => {
    expect(pageUrls).toContain('/pricing');
    expect(pageUrls).not.toContain('/old-pricing');
    expect(pageUrls).not.toContain('/pricing-2023');
    expect(pageUrls).toContain('/services');
    expect(pageUrls).not.toContain('/services-print');
    // The sitemap's spelling has a real extra parameter (x=1): same content, so one copy is kept.
    expect(pageUrls.filter((u) => u.startsWith('/blog/shelfwise-launch'))).toHaveLength(1);
    expect(pageUrls.filter((u) => u === '/about')).toHaveLength(1);
    expect(job.progress.skipReasons.duplicate).toBeGreaterThanOrEqual(1);
    expect(new Set(pageUrls).size).toBe(pageUrls.length);
  });

  it('stays on the site and skips mailto:, tel: and javascript: links', () => {
    expect(pageUrls.every((u) => u.startsWith('/'))).toBe(true);
  });

  it('skips the 10 MB page, binaries served as HTML, noindex and 404 pages, with reasons', () => {
    const reasons = job.progress.skipReasons;
    expect(pageUrls).not.toContain('/downloads/big-report');
    expect(pageUrls).not.toContain('/downloads/brochure');
    expect(pageUrls).not.toContain('/downloads/archive');
    expect(pageUrls).not.toContain('/thank-you');
    expect(pageUrls).not.toContain('/missing-page');
    expect(reasons['too-large']).toBe(1);
    expect(reasons.noindex).toBe(1);
    expect(reasons['http-404']).toBeGreaterThanOrEqual(1);
    expect((reasons.binary ?? 0) + (reasons['not-html'] ?? 0)).toBeGreaterThanOrEqual(2);
  });

  it('decodes ISO-8859-1 (meta and header) and Shift_JIS pages', () => {
    for (const word of FIXTURE_FACTS.latin1Words) expect(text).toContain(word);
    for (const word of FIXTURE_FACTS.shiftJisWords) expect(text).toContain(word);
  });

  it('renders the JavaScript-only page in Chromium (render: auto)', () => {
    expect(pageUrls).toContain('/app');
    expect(text).toContain(FIXTURE_FACTS.jsOnly);
  });

  it('fails the page slower than the timeout after its retries, and retries the flaky one into the index', async () => {
    expect(pageUrls).not.toContain('/slow');
    expect(job.progress.pagesFailed).toBe(1);
    const slow = await pool.query<{ state: string; reason: string; attempts: number }>(
      'SELECT state, reason, attempts FROM crawl_urls WHERE job_id = $1 AND url = $2',
      [job.jobId, `${site.url}/slow`],
    );
    expect(slow.rows[0]).toMatchObject({ state: 'failed', reason: 'timeout', attempts: 2 });
    expect(pageUrls).toContain('/flaky');
    expect(site.hitCount('/flaky')).toBe(2);
  });

  it('render: never indexes JS pages from their static HTML (nothing to index there)', async () => {
    const other = await createClient(kb.baseUrl);
    const res = await api<CrawlOk>(kb.baseUrl, 'POST', '/api/admin/crawl', {
      clientId: other.clientId,
      url: `${site.url}/app`,
      render: 'never',
      maxPages: 3,
    });
    expect(res.status).toBe(200);
    const app = await pool.query<{ state: string; reason: string }>(
      'SELECT c.state, c.reason FROM crawl_urls c JOIN jobs j ON j.id = c.job_id WHERE j.client_id = $1 AND c.url = $2',
      [other.clientId, `${site.url}/app`],
    );
    expect(app.rows[0]).toEqual({ state: 'skipped', reason: 'empty' });
    expect(
      await count(pool, 'SELECT count(*) AS n FROM documents WHERE client_id = $1 AND content LIKE $2', [other.clientId, '%single tap%']),
    ).toBe(0);
  });
});

describe('without Chromium', () => {
  it('render: auto degrades to static HTML and the job says so', async () => {
    const kb = await startKbchat({ env: { ...PIPELINE_ENV, CHROMIUM_PATH: '/nonexistent/chromium' } });
    const site = await startFixtureSite();
    try {
      const { clientId } = await createClient(kb.baseUrl);
      const res = await api<CrawlOk>(kb.baseUrl, 'POST', '/api/admin/crawl', { clientId, url: `${site.url}/app`, maxPages: 3 });
      expect(res.status).toBe(200);
      expect(res.body.message).toMatch(/Chromium not available: JS pages were indexed from static HTML/);
    } finally {
      await kb.stop();
      await site.close();
    }
  });
});
