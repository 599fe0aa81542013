// A crawl's related words (docs/retrieval.md "Related words"): learnt right after the crawl completes
// (its pages already answer by their words and vectors), for every chunk; a re-crawl relearns them from
// what the pages then hold; and a crawler that stopped before learning them is made good by the
// crawl watchdog.
import { relatedWordsFresh } from '@kbchat/shared/db/lsa';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeneratedSite } from '../support/fixture-site.ts';
import { api, createClient, type Kbchat, startKbchat, waitFor } from '../support/kbchat.ts';
import { count, PIPELINE_ENV, pollJob, testPool } from './support/pipeline.ts';

/** Waits until the client's related words were learnt after the last crawl that wanted them. */
async function relatedWordsLearnt(pool: pg.Pool, clientId: string): Promise<void> {
  await waitFor(
    async () => {
      const { rows } = await pool.query('SELECT 1 FROM lsa_state WHERE client_id = $1', [clientId]);
      return rows.length === 1 && (await relatedWordsFresh(pool, clientId)) ? true : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 100, what: 'the related words to be learnt' },
  );
}

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

  it('are learnt for every chunk once the crawl completes, and again after a re-crawl', async () => {
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
      // Completing marked them wanted; they follow.
      expect(await count(pool, 'SELECT count(*) AS n FROM lsa_state WHERE client_id = $1', [clientId])).toBe(1);
      await relatedWordsLearnt(pool, clientId);
    };
    await crawl();
    const chunks = await count(pool, 'SELECT count(*) AS n FROM documents WHERE client_id = $1', [clientId]);
    expect(chunks).toBeGreaterThanOrEqual(100);
    const withoutVector = () =>
      count(
        pool,
        'SELECT count(*) AS n FROM documents d WHERE client_id = $1 AND NOT EXISTS (SELECT 1 FROM lsa_chunks c WHERE c.document_id = d.id)',
        [clientId],
      );
    expect(await withoutVector()).toBe(0);
    const terms = await count(pool, 'SELECT count(*) AS n FROM lsa_terms WHERE client_id = $1', [clientId]);
    expect(terms).toBeGreaterThan(0);

    // A re-crawl relearns (same pages: same vectors, so the same questions keep their answers).
    const sample = () =>
      pool.query('SELECT document_id, vec::text AS v FROM lsa_chunks WHERE client_id = $1 ORDER BY document_id LIMIT 3', [clientId]);
    const before = await sample();
    await crawl();
    expect((await sample()).rows).toEqual(before.rows);
    expect(await count(pool, 'SELECT count(*) AS n FROM lsa_terms WHERE client_id = $1', [clientId])).toBe(terms);

    // The crawler stopped after completing a crawl and before learning its related words: wanted since
    // a while, never built, none stored. The crawl watchdog learns them.
    await pool.query('DELETE FROM lsa_chunks WHERE client_id = $1', [clientId]);
    await pool.query('DELETE FROM lsa_terms WHERE client_id = $1', [clientId]);
    await pool.query("UPDATE lsa_state SET wanted_at = now() - interval '1 hour', built_at = NULL WHERE client_id = $1", [clientId]);
    await relatedWordsLearnt(pool, clientId);
    expect(await withoutVector()).toBe(0);
    expect((await sample()).rows).toEqual(before.rows);
  });
});
