// HNSW only where it pays (docs/retrieval.md): a tenant past RETRIEVAL_EXACT_SCAN_MAX_DOCS gets a
// graph of its own from the embedder's sweep once its crawl is done, and the chat answers through it.

import { vectorIndexName } from '@kbchat/shared/db/vector-index';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startGeneratedSite } from '../support/fixture-site.ts';
import { api, createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';
import { count, PIPELINE_ENV, pollJob, testPool } from './support/pipeline.ts';

describe.skipIf(inject('infraMode') === 'embedded')('a tenant’s own vector index, built by the service', () => {
  let kb: Kbchat;
  let site: Awaited<ReturnType<typeof startGeneratedSite>>;
  let pool: pg.Pool;

  beforeAll(async () => {
    kb = await startKbchat({ env: { ...PIPELINE_ENV, RETRIEVAL_EXACT_SCAN_MAX_DOCS: '20', VECTOR_INDEX_SWEEP_MS: '1000' } });
    site = await startGeneratedSite({ pages: 40 });
    pool = testPool();
  });
  afterAll(async () => {
    await kb?.stop();
    await site?.close();
    await pool?.end();
  });

  const validIndex = (name: string) =>
    count(pool, 'SELECT count(*) AS n FROM pg_index i WHERE i.indexrelid = to_regclass($1) AND i.indisvalid AND i.indisready', [name]);

  it('appears once the crawl is done, and the chat is answered through it', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    const small = (await createClient(kb.baseUrl)).clientId;
    const res = await api<{ jobId: string }>(kb.baseUrl, 'POST', '/api/admin/crawl', {
      clientId,
      url: `${site.url}/`,
      maxPages: 40,
      wait: false,
    });
    expect(res.status).toBe(202);
    const { final } = await pollJob(kb.baseUrl, res.body.jobId);
    expect(final.status).toBe('completed');
    expect(await count(pool, 'SELECT count(*) AS n FROM documents WHERE client_id = $1', [clientId])).toBeGreaterThan(20);

    const name = vectorIndexName(clientId);
    const deadline = Date.now() + 30_000;
    while ((await validIndex(name)) === 0) {
      if (Date.now() > deadline) throw new Error(`no valid ${name} 30 s after the crawl completed`);
      await new Promise((r) => setTimeout(r, 200));
    }
    // A tenant with nothing stored gets none.
    expect(await validIndex(vectorIndexName(small))).toBe(0);

    const chat = await api<{ answer: string; sources: { url: string }[] }>(kb.baseUrl, 'POST', '/api/chat', {
      clientId,
      message: site.pageText(7).split(/\s+/).slice(0, 12).join(' '),
    });
    expect(chat.status).toBe(200);
    expect(chat.body.sources.length).toBeGreaterThan(0);
  });
});
