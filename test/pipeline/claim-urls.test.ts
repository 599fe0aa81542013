// claimUrls directly: a page whose links are all in the frontier already returns without the job
// row lock (a transaction holding that lock does not make it wait), and claims stay exact around it:
// each URL once, within maxPages, skipped URLs recorded and counted once.
import { claimUrls } from '@kbchat/shared/db/crawl-urls';
import { withTransaction } from '@kbchat/shared/db/pool';
import { findJob, insertJob, lockJob } from '@kbchat/shared/jobs/job-store';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { count, testPool } from './support/pipeline.ts';

describe('claimUrls', () => {
  let pool: pg.Pool;
  let clientId: string;

  beforeAll(async () => {
    pool = testPool();
    const { rows } = await pool.query<{ id: string }>(
      "INSERT INTO clients (name, webhook_secret) VALUES ('claim test', 'whsec_test') RETURNING id",
    );
    clientId = (rows[0] as { id: string }).id;
  });

  afterAll(async () => {
    await pool.query('DELETE FROM clients WHERE id = $1', [clientId]);
    await pool.end();
  });

  async function activeJob(): Promise<string> {
    const job = await insertJob(pool, {
      clientId,
      sourceId: null,
      kind: 'crawl',
      options: { url: 'https://claim.example/', startUrl: 'https://claim.example/', maxPages: 3, render: 'auto' },
    });
    await pool.query("UPDATE jobs SET status = 'active' WHERE id = $1", [job.id]);
    return job.id;
  }

  const urls = (...paths: string[]) => paths.map((p) => ({ url: `https://claim.example${p}`, depth: 1 }));

  it('claims each URL once, within maxPages, and returns at once for links already claimed', async () => {
    const jobId = await activeJob();
    const first = await claimUrls(pool, jobId, { candidates: urls('/a', '/b', '/a'), parent: 'seed', maxPages: 3 });
    expect(first.claimed.map((c) => c.url)).toEqual(['https://claim.example/a', 'https://claim.example/b']);

    // Nothing new: no lock needed, so a transaction holding the job row does not hold this up (were
    // it to wait for the lock, lock_timeout would fail it). The embedded database has one session
    // for every connection, so there is no second transaction to wait for there.
    const known = {
      candidates: urls('/b', '/a'),
      skipped: [{ url: 'https://claim.example/a', depth: 1, reason: 'robots' }],
      parent: 'https://claim.example/a',
      maxPages: 3,
    };
    if (inject('infraMode') === 'embedded') {
      expect(await claimUrls(pool, jobId, known)).toEqual({ claimed: [], dropped: 0 });
    } else {
      const impatient = new pg.Pool({ connectionString: inject('databaseUrl'), max: 1, options: '-c lock_timeout=2000' });
      try {
        const blocked = await withTransaction(pool, async (tx) => {
          await lockJob(tx, jobId);
          return claimUrls(impatient, jobId, known);
        });
        expect(blocked).toEqual({ claimed: [], dropped: 0 });
      } finally {
        await impatient.end();
      }
    }

    // One new URL among known ones: claimed (the budget has room for one), the other new one dropped.
    const mixed = await claimUrls(pool, jobId, { candidates: urls('/a', '/c', '/d'), parent: 'https://claim.example/b', maxPages: 3 });
    expect(mixed).toEqual({ claimed: [{ url: 'https://claim.example/c', depth: 1 }], dropped: 1 });

    // A new robots-skipped URL alone still goes through the locked path and is counted once.
    const skippedOnly = { url: 'https://claim.example/private', depth: 1, reason: 'robots' };
    await claimUrls(pool, jobId, { candidates: urls('/a'), skipped: [skippedOnly], parent: 'https://claim.example/c', maxPages: 3 });
    await claimUrls(pool, jobId, { candidates: urls('/a'), skipped: [skippedOnly], parent: 'https://claim.example/c', maxPages: 3 });

    const job = await findJob(pool, jobId);
    expect(job).toMatchObject({ frontier_size: 3, frontier_capped: true, pages_discovered: 4, pages_skipped: 1 });
    expect(job?.skip_reasons).toEqual({ robots: 1 });
    expect(await count(pool, 'SELECT count(*) AS n FROM crawl_urls WHERE job_id = $1', [jobId])).toBe(4);
  });

  it('claims nothing for a job that is no longer active', async () => {
    const jobId = await activeJob();
    await pool.query("UPDATE jobs SET status = 'completed' WHERE id = $1", [jobId]);
    expect(await claimUrls(pool, jobId, { candidates: urls('/x'), parent: 'seed', maxPages: 10 })).toEqual({ claimed: [], dropped: 0 });
    expect(await count(pool, 'SELECT count(*) AS n FROM crawl_urls WHERE job_id = $1', [jobId])).toBe(0);
  });
});
