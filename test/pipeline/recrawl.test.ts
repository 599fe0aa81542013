// Re-crawl of one start URL, embedded through the real openai SDK against the OpenAI-compatible
// fake: same sourceId, zero tokens for unchanged content, changed pages swap their chunks,
// vanished pages lose their documents, and transient failures or the maxPages cap delete nothing.
import { chunkEmbeddingText } from '@kbchat/shared/crawl/chunker';
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.ts';
import { api, createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';
import { html, type MiniSite, prose, startMiniSite } from './support/mini-site.ts';
import { count, getJob, PIPELINE_ENV, pollJob, testPool } from './support/pipeline.ts';

interface CrawlOk {
  success: boolean;
  sourceId: string;
  pagesIndexed: number;
  documentsCreated: number;
  message: string;
}

/** Home links to a, b, c, d; each page has its own text (a long one for b: several chunks). */
function buildSite(site: MiniSite, links = ['/a', '/b', '/c', '/d']) {
  site.pages.set('/', { body: html('Home', `${prose('home')}${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}`) });
  site.pages.set('/a', { body: html('Page A', prose('apricot')) });
  site.pages.set('/b', { body: html('Page B', `${prose('blueberry', 12)}${prose('bramble', 12)}${prose('birch', 12)}`) });
  site.pages.set('/c', { body: html('Page C', prose('cherry')) });
  site.pages.set('/d', { body: html('Page D', prose('damson')) });
}

describe('re-crawl', () => {
  let fake: FakeOpenAI;
  let kb: Kbchat;
  let pool: pg.Pool;
  let site: MiniSite;

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    kb = await startKbchat({
      env: { ...PIPELINE_ENV, EMBEDDING_PROVIDER: 'openai', ...fake.env },
    });
    pool = testPool();
  });
  afterAll(async () => {
    await kb?.stop();
    await fake?.close();
    await pool?.end();
  });
  beforeEach(async () => {
    await site?.close();
    site = await startMiniSite();
    buildSite(site);
    fake.reset();
  });

  const crawl = async (clientId: string, body: Record<string, unknown> = {}) => {
    const res = await api<CrawlOk>(kb.baseUrl, 'POST', '/api/admin/crawl', { clientId, url: site.url, ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const docIds = async (clientId: string, path: string) =>
    (
      await pool.query<{ id: string }>('SELECT id FROM documents WHERE client_id = $1 AND url = $2 ORDER BY chunk_index', [
        clientId,
        `${site.origin}${path}`,
      ])
    ).rows.map((r) => r.id);
  /** Chunks holding the word, as the client's term statistics have it (0 when not listed). */
  const chunksWith = async (clientId: string, word: string) =>
    count(
      pool,
      `SELECT coalesce((SELECT ndoc FROM term_stats WHERE client_id = $1 AND lexeme = (tsvector_to_array(to_tsvector('kbchat_english', $2)))[1]), 0) AS n`,
      [clientId, word],
    );
  const lastJobOf = async (clientId: string) =>
    (await pool.query<{ id: string }>('SELECT id FROM jobs WHERE client_id = $1 ORDER BY created_at DESC LIMIT 1', [clientId])).rows[0]!.id;

  it('an unchanged site costs zero embedding tokens on re-crawl and keeps every document; usage is recorded once', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    const first = await crawl(clientId);
    expect(first).toMatchObject({ success: true, pagesIndexed: 5 });
    const firstRequests = fake.requests.embeddings.length;
    const ids = (await pool.query<{ id: string }>('SELECT id FROM documents WHERE client_id = $1 ORDER BY id', [clientId])).rows;
    expect(ids).toHaveLength(first.documentsCreated);
    // Every chunk went to the provider as chunkEmbeddingText makes it, starting with its page title.
    // (This client's chunks only: the test files share one database, and a crawler that starts while
    // another file's source is on a schedule registers that schedule too — schedules.test.ts.)
    const inputs = new Set(fake.requests.embeddings.flatMap((r) => r.inputs));
    const sent = (
      await pool.query<{ title: string; heading: string | null; content: string }>(
        'SELECT title, heading, content FROM documents WHERE client_id = $1',
        [clientId],
      )
    ).rows.map((d) => chunkEmbeddingText(d.title, d.heading, d.content));
    expect(sent.filter((i) => !inputs.has(i)).map((i) => i.slice(0, 80))).toEqual([]);
    expect(sent.filter((i) => !/^(Home|Page [A-D])\n/.test(i)).map((i) => i.slice(0, 80))).toEqual([]);
    // The tokens of the requests that carried this client's chunks: the other file's scheduled crawl embeds
    // through the same fake (a full run counted its 597 tokens here once).
    const own = new Set(sent);
    const ownTokens = () => fake.requests.embeddings.filter((r) => r.inputs.some((i) => own.has(i))).reduce((n, r) => n + r.tokens, 0);
    const tokens = ownTokens();
    expect(tokens).toBeGreaterThan(0);

    const usage = await pool.query<{ prompt_tokens: string; cost_usd: string; requests: string; model: string }>(
      "SELECT prompt_tokens, cost_usd, requests, model FROM usage WHERE client_id = $1 AND kind = 'embedding'",
      [clientId],
    );
    expect(usage.rows).toHaveLength(1);
    expect(Number(usage.rows[0]!.prompt_tokens)).toBe(tokens);
    expect(usage.rows[0]!.model).toBe('text-embedding-3-small');
    expect(Number(usage.rows[0]!.cost_usd)).toBeCloseTo((tokens / 1000) * 0.00002, 6);

    const again = await crawl(clientId);
    expect(again.sourceId).toBe(first.sourceId);
    expect(again).toMatchObject({ success: true, pagesIndexed: 5, documentsCreated: 0 });
    expect(again.message).toMatch(/5 unchanged/);
    if (ownTokens() !== tokens) {
      // Rare in full runs (2 of 8): what was embedded again, and what the documents say, for the next look.
      const requests = fake.requests.embeddings.map((r) => ({ tokens: r.tokens, inputs: r.inputs.map((i) => i.slice(0, 24)) }));
      const docs = await pool.query('SELECT id, embedding_model, embed_job_id, embed_lease FROM documents WHERE client_id = $1', [
        clientId,
      ]);
      console.error('re-crawl embedded again', JSON.stringify({ firstRequests, requests, docs: docs.rows }));
    }
    expect(ownTokens()).toBe(tokens);
    const job = await getJob(kb.baseUrl, await lastJobOf(clientId));
    expect(job.progress).toMatchObject({ pagesUnchanged: 5, embeddingTokens: 0, embeddingsDone: 0, pagesRemoved: 0 });
    const after = (await pool.query<{ id: string }>('SELECT id FROM documents WHERE client_id = $1 ORDER BY id', [clientId])).rows;
    expect(after).toEqual(ids);
    expect(await count(pool, 'SELECT count(*) AS n FROM sources WHERE client_id = $1', [clientId])).toBe(1);
  });

  it('a changed page swaps its chunks (only its new text is embedded); a removed page loses its documents', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    await crawl(clientId);
    const before = { a: await docIds(clientId, '/a'), c: await docIds(clientId, '/c'), d: await docIds(clientId, '/d') };
    // The full-text ranking's term statistics follow each crawl (refreshed when its frontier drains).
    const termStats = async () => ({
      documents: await count(pool, 'SELECT documents AS n FROM term_stats_totals WHERE client_id = $1', [clientId]),
      damson: await chunksWith(clientId, 'damson'),
      cranberry: await chunksWith(clientId, 'cranberry'),
    });
    expect(await termStats()).toEqual({
      documents: await count(pool, 'SELECT count(*) AS n FROM documents WHERE client_id = $1', [clientId]),
      damson: before.d.length,
      cranberry: 0,
    });
    const beforeB = await pool.query<{ id: string; content: string }>(
      'SELECT id, content FROM documents WHERE url = $1 AND client_id = $2',
      [`${site.origin}/b`, clientId],
    );
    expect(before.d.length).toBeGreaterThan(0);
    fake.reset();

    // /c changes, /d disappears (no link, 404), the rest stays.
    site.pages.set('/c', { body: html('Page C', `${prose('cranberry')}<p>Opening hours changed: we now open at nine.</p>`) });
    site.pages.set('/', { body: html('Home', `${prose('home')}<a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a>`) });
    site.pages.delete('/d');
    const res = await crawl(clientId);
    expect(res).toMatchObject({ success: true, pagesIndexed: 4 });
    expect(res.message).toMatch(/Removed 1 page no longer on the site/);

    const c = await pool.query<{ id: string; content: string; embedding_model: string | null }>(
      'SELECT id, content, embedding_model FROM documents WHERE client_id = $1 AND url = $2',
      [clientId, `${site.origin}/c`],
    );
    expect(c.rows.length).toBeGreaterThan(0);
    expect(c.rows.some((r) => r.content.includes('we now open at nine'))).toBe(true);
    expect(c.rows.every((r) => r.embedding_model === 'text-embedding-3-small')).toBe(true);
    expect(c.rows.some((r) => before.c.includes(r.id))).toBe(false);
    // The home page lost its link to /d, so its text changed too.
    const home = await docIds(clientId, '/');
    expect(res.documentsCreated).toBe(c.rows.length + home.length);
    expect(await docIds(clientId, '/a')).toEqual(before.a);
    expect((await docIds(clientId, '/b')).sort()).toEqual(beforeB.rows.map((r) => r.id).sort());
    expect(await docIds(clientId, '/d')).toEqual([]);
    expect(await count(pool, 'SELECT count(*) AS n FROM pages WHERE client_id = $1 AND url = $2', [clientId, `${site.origin}/d`])).toBe(0);
    expect(await termStats()).toEqual({
      documents: await count(pool, 'SELECT count(*) AS n FROM documents WHERE client_id = $1', [clientId]),
      damson: 0,
      cranberry: c.rows.filter((r) => r.content.includes('cranberry')).length,
    });
    // Only the changed pages' text was paid for.
    const inputs = fake.requests.embeddings.flatMap((r) => r.inputs);
    expect(inputs.length).toBe(c.rows.length + home.length);
    expect(inputs.every((i) => i.startsWith('Page C') || i.startsWith('Home'))).toBe(true);
    // No duplicates anywhere: one row per (url, chunk).
    expect(
      await count(
        pool,
        'SELECT count(*) AS n FROM (SELECT url, chunk_index FROM documents WHERE client_id = $1 GROUP BY 1, 2 HAVING count(*) > 1) d',
        [clientId],
      ),
    ).toBe(0);
  });

  it('a page that answers 404 while still linked is removed; a 503 (failed after retries) keeps its documents', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    await crawl(clientId);
    const bDocs = await docIds(clientId, '/b');
    site.pages.set('/c', { status: 404, body: 'gone' });
    site.pages.set('/b', { status: 503, body: 'busy' });
    const res = await crawl(clientId);
    expect(res.pagesIndexed).toBe(3);
    expect(await docIds(clientId, '/c')).toEqual([]);
    expect(await docIds(clientId, '/b')).toEqual(bDocs);
    const job = await getJob(kb.baseUrl, await lastJobOf(clientId));
    expect(job.progress).toMatchObject({ pagesFailed: 1, pagesSkipped: 1, pagesRemoved: 1 });
    expect(job.progress.skipReasons).toEqual({ 'http-404': 1 });
    expect(site.hits('/b')).toBe(1 + 2); // first crawl, then CRAWL_PAGE_ATTEMPTS=2
  });

  it('a re-crawl stopped by maxPages keeps the pages it did not reach', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    await crawl(clientId);
    const pagesBefore = await count(pool, 'SELECT count(*) AS n FROM pages WHERE client_id = $1', [clientId]);
    const docsBefore = await count(pool, 'SELECT count(*) AS n FROM documents WHERE client_id = $1', [clientId]);
    const res = await crawl(clientId, { maxPages: 2 });
    expect(res.pagesIndexed).toBe(2);
    expect(res.message).toMatch(/Stopped at maxPages \(2\)/);
    expect(await count(pool, 'SELECT count(*) AS n FROM pages WHERE client_id = $1', [clientId])).toBe(pagesBefore);
    expect(await count(pool, 'SELECT count(*) AS n FROM documents WHERE client_id = $1', [clientId])).toBe(docsBefore);
  });

  it('three crawls of one source requested at once run as one: same jobId, pages and documents of one crawl', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    const once = await crawl(clientId);
    const pages = await count(pool, 'SELECT count(*) AS n FROM pages WHERE client_id = $1', [clientId]);
    const documents = await count(pool, 'SELECT count(*) AS n FROM documents WHERE client_id = $1', [clientId]);
    expect(pages).toBe(5);
    const jobsBefore = await count(pool, 'SELECT count(*) AS n FROM jobs WHERE client_id = $1', [clientId]);
    // Slow pages keep the re-crawl running while the other requests arrive; one of them is async.
    for (const path of ['/a', '/c']) site.pages.set(path, { ...(site.pages.get(path) as { body: string }), delayMs: 400 });
    const results = await Promise.all([
      api<CrawlOk & { jobId?: string }>(kb.baseUrl, 'POST', '/api/admin/crawl', { clientId, url: site.url }),
      api<CrawlOk & { jobId?: string }>(kb.baseUrl, 'POST', '/api/admin/crawl', { clientId, url: `${site.url}#top` }),
      api<{ jobId: string; sourceId: string; message: string }>(kb.baseUrl, 'POST', '/api/admin/crawl', {
        clientId,
        url: site.url,
        wait: false,
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 202]);
    // One job was created for the three requests; the async one names it.
    expect(await count(pool, 'SELECT count(*) AS n FROM jobs WHERE client_id = $1', [clientId])).toBe(jobsBefore + 1);
    const async = results[2]!.body as { jobId: string; sourceId: string };
    expect(async.jobId).toBe(await lastJobOf(clientId));
    expect(async.sourceId).toBe(once.sourceId);
    for (const r of results.slice(0, 2)) expect(r.body).toMatchObject({ success: true, sourceId: once.sourceId, pagesIndexed: 5 });
    expect(await count(pool, 'SELECT count(*) AS n FROM pages WHERE client_id = $1', [clientId])).toBe(pages);
    expect(await count(pool, 'SELECT count(*) AS n FROM documents WHERE client_id = $1', [clientId])).toBe(documents);
    // Once it has finished, the next request starts a crawl of its own.
    const after = await api<{ jobId: string }>(kb.baseUrl, 'POST', '/api/admin/crawl', { clientId, url: site.url, wait: false });
    expect(after.status).toBe(202);
    expect(after.body.jobId).not.toBe(async.jobId);
    expect((await pollJob(kb.baseUrl, after.body.jobId)).final.status).toBe('completed');
  });

  it('three first crawls of a new source requested at once leave one source with one crawl of pages', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    const results = await Promise.all(
      [0, 1, 2].map(() => api<CrawlOk>(kb.baseUrl, 'POST', '/api/admin/crawl', { clientId, url: site.url })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(new Set(results.map((r) => r.body.sourceId)).size).toBe(1);
    expect(await count(pool, 'SELECT count(*) AS n FROM jobs WHERE client_id = $1', [clientId])).toBe(1);
    expect(await count(pool, 'SELECT count(*) AS n FROM pages WHERE client_id = $1', [clientId])).toBe(5);
    const single = results[0]!.body.documentsCreated;
    expect(single).toBeGreaterThan(5);
    expect(await count(pool, 'SELECT count(*) AS n FROM documents WHERE client_id = $1', [clientId])).toBe(single);
  });

  it('a page with an ETag is revalidated with a conditional GET: a 304 keeps it (and its links) without a body', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    const page = { body: html('Home', `${prose('home')}<a href="/a">a</a> <a href="/b">b</a>`), headers: { etag: '"v1"' } };
    let notModified = 0;
    site.pages.set('/', (req) => {
      if (req.headers['if-none-match'] === '"v1"') {
        notModified++;
        return { status: 304, body: '', headers: { etag: '"v1"' } };
      }
      return page;
    });
    const first = await crawl(clientId);
    expect(first.pagesIndexed).toBe(3);
    const homeDocs = await docIds(clientId, '/');
    const again = await crawl(clientId);
    expect(notModified).toBe(1);
    // The links stored with the page still led the crawl to /a and /b.
    expect(again).toMatchObject({ pagesIndexed: 3, documentsCreated: 0 });
    expect(await docIds(clientId, '/')).toEqual(homeDocs);
  });

  it('a page stored by an older extraction is fetched in full and read again, its unchanged chunks keeping their embeddings', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    const page = { body: html('Home', `${prose('home')}<a href="/a">a</a> <a href="/b">b</a>`), headers: { etag: '"v1"' } };
    const conditional: (string | undefined)[] = [];
    site.pages.set('/', (req) => {
      conditional.push(req.headers['if-none-match'] as string | undefined);
      return req.headers['if-none-match'] === '"v1"' ? { status: 304, body: '', headers: { etag: '"v1"' } } : page;
    });
    await crawl(clientId);
    const homeChunks = async () =>
      (
        await pool.query<{ content: string }>('SELECT content FROM documents WHERE client_id = $1 AND url = $2 ORDER BY chunk_index', [
          clientId,
          `${site.origin}/`,
        ])
      ).rows.map((r) => r.content);
    const before = await homeChunks();
    // As an earlier version stored it: a content hash without the extraction's tag.
    await pool.query("UPDATE pages SET content_hash = split_part(content_hash, ':', 2) WHERE client_id = $1 AND url = $2", [
      clientId,
      `${site.origin}/`,
    ]);
    fake.reset();
    const again = await crawl(clientId);
    expect(conditional).toEqual([undefined, undefined]);
    expect(again.pagesIndexed).toBe(3);
    // Read again to the same chunks: they keep their embeddings, nothing is embedded again.
    expect(await homeChunks()).toEqual(before);
    expect(fake.embeddedTokens()).toBe(0);
    const stored = await pool.query<{ content_hash: string }>('SELECT content_hash FROM pages WHERE client_id = $1 AND url = $2', [
      clientId,
      `${site.origin}/`,
    ]);
    expect(stored.rows[0]?.content_hash).toMatch(/^x2:[0-9a-f]{64}$/);
    // Stored the current way, the next crawl asks conditionally again.
    await crawl(clientId);
    expect(conditional).toEqual([undefined, undefined, '"v1"']);
  });

  it('a page whose sitemap lastmod is unchanged is not requested again; a new lastmod fetches it', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    const lastmod = { a: '2026-01-01', c: '2026-01-01T10:00:00Z' };
    site.pages.set('/sitemap.xml', () => ({
      contentType: 'application/xml',
      body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
        <url><loc>${site.origin}/a</loc><lastmod>${lastmod.a}</lastmod></url>
        <url><loc>${site.origin}/c</loc><lastmod>${lastmod.c}</lastmod></url>
        <url><loc>${site.origin}/d</loc></url></urlset>`,
    }));
    const first = await crawl(clientId);
    expect(first.pagesIndexed).toBe(5);
    const before = { a: site.hits('/a'), c: site.hits('/c'), d: site.hits('/d') };
    const docsA = await docIds(clientId, '/a');

    // /c changes and its lastmod says so; /a changes too but its lastmod does not (the sitemap is
    // trusted for it); /d has no lastmod, so it is fetched and found unchanged by its content.
    lastmod.c = '2026-02-01T10:00:00Z';
    site.pages.set('/c', { body: html('Page C', `${prose('cherry')}<p>New: we deliver on Sundays.</p>`) });
    site.pages.set('/a', { body: html('Page A', `${prose('apricot')}<p>Not announced in the sitemap.</p>`) });
    const again = await crawl(clientId);
    expect(again).toMatchObject({ success: true, pagesIndexed: 5 });
    expect(site.hits('/a') - before.a).toBe(0);
    expect(site.hits('/c') - before.c).toBe(1);
    expect(site.hits('/d') - before.d).toBe(1);
    expect(await docIds(clientId, '/a')).toEqual(docsA);
    const c = await pool.query<{ content: string }>('SELECT content FROM documents WHERE client_id = $1 AND url = $2', [
      clientId,
      `${site.origin}/c`,
    ]);
    expect(c.rows.some((r) => r.content.includes('we deliver on Sundays'))).toBe(true);
    const job = await getJob(kb.baseUrl, await lastJobOf(clientId));
    // a skipped without a request; d (same content) and b and home (no lastmod) fetched and unchanged.
    expect(job.progress).toMatchObject({ pagesUnchanged: 4, pagesRemoved: 0 });
  });

  it('a one-paragraph edit of a long page re-embeds one or two of its chunks, not the page', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    const paragraphs = Array.from({ length: 12 }, (_, i) => prose(`section${i}`, 4));
    site.pages.set('/b', { body: html('Page B', paragraphs.join('')) });
    await crawl(clientId);
    const chunksB = (await docIds(clientId, '/b')).length;
    expect(chunksB).toBeGreaterThanOrEqual(4);
    fake.reset();

    paragraphs[6] = paragraphs[6]!.replace('sentence 2.', 'sentence 2, now with a price of 40 euros.');
    site.pages.set('/b', { body: html('Page B', paragraphs.join('')) });
    const res = await crawl(clientId);
    expect(res.success).toBe(true);
    const inputs = fake.requests.embeddings.flatMap((r) => r.inputs);
    expect(inputs.length).toBeGreaterThanOrEqual(1);
    expect(inputs.length).toBeLessThanOrEqual(2);
    expect(inputs.every((i) => i.startsWith('Page B'))).toBe(true);
    expect(inputs.some((i) => i.includes('40 euros'))).toBe(true);
    expect((await docIds(clientId, '/b')).length).toBe(chunksB);
  });
});
