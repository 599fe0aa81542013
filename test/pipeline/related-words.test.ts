// A crawl reported done answers with the client's related words (docs/retrieval.md "Related words"):
// the latent vectors are learnt when the frontier drains, before the job can complete, and a re-crawl
// relearns them from what the pages then hold.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeneratedSite } from '../support/fixture-site.ts';
import { api, createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';
import { count, PIPELINE_ENV, pollJob, testPool } from './support/pipeline.ts';

describe('related words after a crawl', () => {
  let kb: Kbchat;
  let site: Awaited<ReturnType<typeof startGeneratedSite>>;
  let pool: pg.Pool;

  beforeAll(async () => {
    kb = await startKbchat({ env: PIPELINE_ENV });
    site = await startGeneratedSite({ pages: 120 });
    pool = testPool();
  });
  afterAll(async () => {
    await kb?.stop();
    await site?.close();
    await pool?.end();
  });

  it('are there for every chunk when the crawl completes', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    const crawl = async () => {
      const res = await api<{ jobId: string }>(kb.baseUrl, 'POST', '/api/admin/crawl', {
        clientId,
        url: `${site.url}/`,
        maxPages: 200,
        wait: false,
      });
      expect(res.status).toBe(202);
      const { final } = await pollJob(kb.baseUrl, res.body.jobId);
      expect(final.status).toBe('completed');
    };
    await crawl();
    // Read at once, as a visitor would ask at once. (The job enters its embedding phase only after the
    // vectors are written, so completion cannot overtake them; here the embedder's own pace hides
    // that order, and what this checks is the state a completed crawl leaves.)
    const chunks = await count(pool, 'SELECT count(*) AS n FROM documents WHERE client_id = $1', [clientId]);
    expect(chunks).toBeGreaterThanOrEqual(100);
    expect(
      await count(
        pool,
        'SELECT count(*) AS n FROM documents d WHERE client_id = $1 AND NOT EXISTS (SELECT 1 FROM lsa_chunks c WHERE c.document_id = d.id)',
        [clientId],
      ),
    ).toBe(0);
    const terms = await count(pool, 'SELECT count(*) AS n FROM lsa_terms WHERE client_id = $1', [clientId]);
    expect(terms).toBeGreaterThan(0);

    // A re-crawl relearns (same pages: same vectors, so the same questions keep their answers).
    const before = await pool.query(
      'SELECT document_id, vec::text AS v FROM lsa_chunks WHERE client_id = $1 ORDER BY document_id LIMIT 3',
      [clientId],
    );
    await crawl();
    const after = await pool.query('SELECT document_id, vec::text AS v FROM lsa_chunks WHERE client_id = $1 ORDER BY document_id LIMIT 3', [
      clientId,
    ]);
    expect(after.rows).toEqual(before.rows);
    expect(await count(pool, 'SELECT count(*) AS n FROM lsa_terms WHERE client_id = $1', [clientId])).toBe(terms);
  });
});
