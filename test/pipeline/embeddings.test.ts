// The embedder and POST /api/admin/generate-embeddings through the real openai SDK against the
// OpenAI-compatible fake (which enforces the API's bounds and answers scripted faults).
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.ts';
import { api, createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';
import { createSeeder, type Seeder } from '../support/seed-documents.ts';
import { html, type MiniSite, prose, startMiniSite } from './support/mini-site.ts';
import { count, getJob, PIPELINE_ENV, pollJob, testPool } from './support/pipeline.ts';

interface GenOk {
  success: boolean;
  processed: number;
  skipped: number;
  message: string;
}

describe('embeddings', () => {
  let fake: FakeOpenAI;
  let kb: Kbchat;
  let pool: pg.Pool;
  let seeder: Seeder;
  let site: MiniSite;
  const env = (model = 'text-embedding-3-small') => ({
    ...PIPELINE_ENV,
    EMBEDDING_PROVIDER: 'openai',
    ...fake.env,
    OPENAI_EMBEDDING_MODEL: model,
    // One SDK retry (it honours Retry-After), then BullMQ's EMBED_JOB_ATTEMPTS.
    OPENAI_MAX_RETRIES: '1',
  });

  beforeAll(async () => {
    fake = await startFakeOpenAI({ embeddingDimensions: { 'nomic-embed-text': 768 } });
    kb = await startKbchat({ env: env() });
    pool = testPool();
    seeder = createSeeder(kb.config.DATABASE_URL as string, kb.config);
    site = await startMiniSite();
    site.pages.set('/', { body: html('Home', `${prose('home', 10)}<a href="/a">a</a> <a href="/b">b</a>`) });
    site.pages.set('/a', { body: html('Page A', prose('apricot', 10)) });
    site.pages.set('/b', { body: html('Page B', prose('blueberry', 10)) });
  });
  afterAll(async () => {
    await kb?.stop();
    await seeder?.close();
    await fake?.close();
    await site?.close();
    await pool?.end();
  });
  beforeEach(() => fake.reset());

  const generate = async (clientId: string, base = kb.baseUrl) => {
    const res = await api<GenOk>(base, 'POST', '/api/admin/generate-embeddings', { clientId });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['message', 'processed', 'skipped', 'success']);
    return res.body;
  };

  it('2,100 chunks (one of them over 8,191 tokens) go out in requests within 2048 inputs and 300k tokens', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    const pages = Array.from({ length: 21 }, (_, p) => ({
      url: `https://bulk.example/p${p}`,
      title: `Bulk ${p}`,
      chunks: Array.from({ length: 100 }, (_, i) => `Chunk ${p}-${i}: lanterns and copper rivers, item ${p * 100 + i}.`),
    }));
    // ~30k tokens in one chunk: truncated to 8,191 (the fake rejects any input above that with a 400).
    pages[0]!.chunks[0] = Array.from({ length: 30_000 }, (_, i) => `w${i % 977}`).join(' ');
    await seeder.seed(clientId, pages, { embed: false });

    const res = await generate(clientId);
    expect(res).toMatchObject({ success: true, processed: 2100, skipped: 0 });
    const reqs = fake.requests.embeddings;
    expect(reqs.every((r) => r.status === 200)).toBe(true);
    expect(reqs.length).toBeGreaterThanOrEqual(2);
    for (const r of reqs) {
      expect(r.inputs.length).toBeLessThanOrEqual(2048);
      expect(r.tokens).toBeLessThanOrEqual(300_000);
    }
    expect(reqs.reduce((n, r) => n + r.inputs.length, 0)).toBe(2100);
    expect(await count(pool, 'SELECT count(*) AS n FROM documents WHERE client_id = $1 AND embedding IS NOT NULL', [clientId])).toBe(2100);
    const big = await pool.query<{ token_count: number }>(
      "SELECT token_count FROM documents WHERE client_id = $1 AND url = 'https://bulk.example/p0' AND chunk_index = 0",
      [clientId],
    );
    expect(big.rows[0]!.token_count).toBeLessThanOrEqual(8191);
    expect(big.rows[0]!.token_count).toBeGreaterThan(8000);
  });

  it('a 429 with Retry-After is retried and then succeeds; usage counts the request that was served', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    await seeder.seed(clientId, [{ url: 'https://r.example/', title: 'R', chunks: ['one fish', 'two fish', 'red fish'] }], {
      embed: false,
    });
    fake.faults.embeddings.push({ status: 429, retryAfter: 1 });
    const res = await generate(clientId);
    expect(res).toMatchObject({ success: true, processed: 3, skipped: 0 });
    expect(fake.requests.embeddings.map((r) => r.status)).toEqual([429, 200]);
    const usage = await pool.query<{ requests: string; prompt_tokens: string }>(
      "SELECT requests, prompt_tokens FROM usage WHERE client_id = $1 AND kind = 'embedding'",
      [clientId],
    );
    expect(Number(usage.rows[0]!.requests)).toBe(1);
    expect(Number(usage.rows[0]!.prompt_tokens)).toBe(fake.embeddedTokens());
  });

  it('a provider failing for good leaves the crawl successful with documents stored unembedded; generate-embeddings then embeds them', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    for (let i = 0; i < 200; i++) fake.faults.embeddings.push({ status: 500 });
    const crawl = await api<{ success: boolean; pagesIndexed: number; documentsCreated: number; message: string; sourceId: string }>(
      kb.baseUrl,
      'POST',
      '/api/admin/crawl',
      { clientId, url: site.url },
    );
    expect(crawl.status).toBe(200);
    expect(crawl.body.success).toBe(true);
    expect(crawl.body.pagesIndexed).toBe(3);
    expect(crawl.body.message).toMatch(/could not be embedded .*generate-embeddings/);
    const docs = crawl.body.documentsCreated;
    expect(docs).toBeGreaterThan(0);
    expect(await count(pool, 'SELECT count(*) AS n FROM documents WHERE client_id = $1', [clientId])).toBe(docs);
    expect(await count(pool, 'SELECT count(*) AS n FROM documents WHERE client_id = $1 AND embedding IS NULL', [clientId])).toBe(docs);
    const jobId = (await pool.query<{ id: string }>('SELECT id FROM jobs WHERE client_id = $1', [clientId])).rows[0]!.id;
    const job = await getJob(kb.baseUrl, jobId);
    expect(job.status).toBe('completed');
    expect(job.progress).toMatchObject({ embeddingsFailed: docs, embeddingsDone: 0, embeddingTokens: 0 });
    expect(job.notes.join(' ')).toMatch(/Embedding failed: HTTP 500/);
    expect(await count(pool, "SELECT count(*) AS n FROM usage WHERE client_id = $1 AND kind = 'embedding'", [clientId])).toBe(0);

    fake.reset();
    const gen = await generate(clientId);
    expect(gen).toMatchObject({ success: true, processed: docs, skipped: 0 });
    expect(await count(pool, 'SELECT count(*) AS n FROM documents WHERE client_id = $1 AND embedding IS NULL', [clientId])).toBe(0);
    const again = await generate(clientId);
    expect(again).toMatchObject({ success: true, processed: 0, skipped: docs });
    expect(again.message).toMatch(/Nothing to do/);
  });

  it('a model change re-embeds everything with the new model; skipped counts the current model only; other clients untouched', async () => {
    const a = await createClient(kb.baseUrl);
    const b = await createClient(kb.baseUrl);
    await seeder.seed(a.clientId, [{ url: 'https://m.example/', title: 'M', chunks: ['alpha', 'beta', 'gamma', 'delta'] }], {
      embed: false,
    });
    await seeder.seed(b.clientId, [{ url: 'https://m.example/', title: 'M', chunks: ['epsilon', 'zeta'] }], { embed: false });
    expect(await generate(a.clientId)).toMatchObject({ processed: 4, skipped: 0 });

    const large = await startKbchat({ env: env('text-embedding-3-large'), services: ['gateway', 'embedder'] });
    try {
      fake.reset();
      const res = await generate(a.clientId, large.baseUrl);
      expect(res).toMatchObject({ success: true, processed: 4, skipped: 0 });
      expect(fake.requests.embeddings.every((r) => r.model === 'text-embedding-3-large')).toBe(true);
      const models = await pool.query<{ embedding_model: string }>('SELECT DISTINCT embedding_model FROM documents WHERE client_id = $1', [
        a.clientId,
      ]);
      expect(models.rows).toEqual([{ embedding_model: 'text-embedding-3-large' }]);
      expect(await generate(a.clientId, large.baseUrl)).toMatchObject({ processed: 0, skipped: 4 });
      // Back on the small model: nothing counts as embedded with it any more.
      expect(await generate(a.clientId)).toMatchObject({ processed: 4, skipped: 0 });
    } finally {
      await large.stop();
    }
    // Client b was never asked: its documents are as they were.
    expect(await count(pool, 'SELECT count(*) AS n FROM documents WHERE client_id = $1 AND embedding IS NULL', [b.clientId])).toBe(2);
  });

  it('a self-hosted model of 768 dimensions: stored padded to the column, and questions are embedded and answered with it', async () => {
    const small = await startKbchat({ env: env('nomic-embed-text'), services: ['gateway', 'embedder'] });
    try {
      const { clientId } = await createClient(small.baseUrl);
      await seeder.seed(
        clientId,
        [
          { url: 'https://n.example/apricots', title: 'Apricots', chunks: ['Apricots ripen in June and are picked by hand.'] },
          { url: 'https://n.example/pears', title: 'Pears', chunks: ['Pears are stored cold for up to five months.'] },
        ],
        { embed: false },
      );
      expect(await generate(clientId, small.baseUrl)).toMatchObject({ success: true, processed: 2, skipped: 0 });
      const stored = await pool.query<{ dims: number; tail: number; head: number }>(
        `SELECT vector_dims(embedding) AS dims,
                (SELECT count(*) FROM unnest((embedding::real[])[769:1536]) x WHERE x <> 0)::int AS tail,
                (SELECT count(*) FROM unnest((embedding::real[])[1:768]) x WHERE x <> 0)::int AS head
           FROM documents WHERE client_id = $1`,
        [clientId],
      );
      expect(stored.rows).toHaveLength(2);
      for (const row of stored.rows) expect(row).toMatchObject({ dims: 1536, tail: 0, head: expect.any(Number) });
      expect(stored.rows.every((r) => r.head > 0)).toBe(true);

      fake.reset();
      const chat = await api<{ sources: { url: string }[] }>(small.baseUrl, 'POST', '/api/chat', {
        clientId,
        message: 'When do apricots ripen?',
      });
      expect(chat.status, JSON.stringify(chat.body)).toBe(200);
      expect(chat.body.sources[0]?.url).toBe('https://n.example/apricots');
      // The question went through the same model.
      expect(fake.requests.embeddings.map((r) => r.model)).toEqual(['nomic-embed-text']);
    } finally {
      await small.stop();
    }
  });

  it('generate-embeddings: wait:false answers 202 and the job reports the spec body; 400 and 404 bodies', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    await seeder.seed(clientId, [{ url: 'https://g.example/', title: 'G', chunks: ['one', 'two'] }], { embed: false });
    const res = await api<{ jobId: string; statusUrl: string; status: string }>(kb.baseUrl, 'POST', '/api/admin/generate-embeddings', {
      clientId,
      wait: false,
    });
    expect(res.status).toBe(202);
    expect(res.body.statusUrl).toBe(`${kb.baseUrl}/api/admin/jobs/${res.body.jobId}`);
    const { final } = await pollJob(kb.baseUrl, res.body.jobId);
    expect(final.kind).toBe('generate-embeddings');
    expect(final.options).toEqual({ model: expect.any(String) });
    expect(final.result).toEqual({ success: true, processed: 2, skipped: 0, message: expect.any(String) });

    const missing = await api<{ error: string; details: string[] }>(kb.baseUrl, 'POST', '/api/admin/generate-embeddings', {});
    expect(missing.status).toBe(400);
    expect(missing.body.details).toEqual(['clientId is required']);
    const badWait = await api<{ details: string[] }>(kb.baseUrl, 'POST', '/api/admin/generate-embeddings', { clientId, wait: 1 });
    expect(badWait.status).toBe(400);
    expect(badWait.body.details).toEqual(['wait must be true or false']);
    for (const id of ['not-a-uuid', '7a0f3c52-0d7e-4c8e-9d3a-2f0e6b1c9a11']) {
      const nf = await api<{ error: string; details: string[] }>(kb.baseUrl, 'POST', '/api/admin/generate-embeddings', { clientId: id });
      expect(nf.status).toBe(404);
      expect(Array.isArray(nf.body.details)).toBe(true);
    }
  });
});
