import { addJobCounters, lockJob, reserveFrontier } from '../jobs/job-store.ts';
import { type Pool, type Queryable, withTransaction } from './pool.ts';

/**
 * The crawl frontier. A URL is claimed once per crawl by inserting (job_id, url): the primary key
 * makes the claim atomic across any number of crawler processes. Only what a claim returns may be
 * enqueued, so a URL is fetched at most once per crawl.
 *
 *   queued → active → done | skipped | failed      (alias: claimed without a fetch of its own)
 */
export type CrawlUrlState = 'queued' | 'active' | 'done' | 'skipped' | 'failed' | 'alias';

/** discovered_from of the URLs crawl.start seeds (start URL, sitemaps). */
export const SEED_PARENT = 'seed';

export interface CrawlUrlRow {
  job_id: string;
  url: string;
  depth: number;
  state: CrawlUrlState;
  attempts: number;
  reason: string | null;
  discovered_from: string | null;
  /** The sitemap's <lastmod> for the URL when this crawl's sitemaps listed one. */
  lastmod: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface Candidate {
  url: string;
  depth: number;
  /** The sitemap's <lastmod> for the URL (seeds from sitemaps only). */
  lastmod?: string | null;
}

export interface ClaimResult {
  /** Newly claimed for fetching, in the order given. */
  claimed: Candidate[];
  /** New URLs left out because the maxPages budget is spent. */
  dropped: number;
}

/**
 * Claims candidates for fetching within the job's maxPages budget, and records `skipped` ones
 * (e.g. disallowed by robots.txt) once each, outside the budget. The job row is locked for the
 * duration, so concurrent claimers see each other's claims and the budget is exact.
 */
export async function claimUrls(
  pool: Pool,
  jobId: string,
  input: { candidates: Candidate[]; skipped?: (Candidate & { reason: string })[]; parent: string; maxPages: number },
): Promise<ClaimResult> {
  if (input.candidates.length === 0 && (input.skipped?.length ?? 0) === 0) return { claimed: [], dropped: 0 };
  // Most pages link only to URLs the crawl has already claimed (navigation, sidebars): then there is
  // nothing to claim or record, and neither the transaction nor the job row lock (which every
  // claimer and every page's counters queue behind) is needed. A frontier row is never deleted
  // while its job lives, so "already there", read without the lock, still holds under it.
  const { rows: unseen } = await pool.query<{ any: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM unnest($2::text[]) AS u(url)
                     WHERE NOT EXISTS (SELECT 1 FROM crawl_urls c WHERE c.job_id = $1 AND c.url = u.url)) AS any`,
    [jobId, [...input.candidates.map((c) => c.url), ...(input.skipped ?? []).map((s) => s.url)]],
  );
  if (!unseen[0]?.any) return { claimed: [], dropped: 0 };
  return withTransaction(pool, async (tx) => {
    const job = await lockJob(tx, jobId);
    if (!job || (job.status !== 'active' && job.status !== 'queued')) return { claimed: [], dropped: 0 };

    let skippedCount = 0;
    const reasons: Record<string, number> = {};
    if (input.skipped && input.skipped.length > 0) {
      const { rows } = await tx.query<{ reason: string }>(
        `INSERT INTO crawl_urls (job_id, url, depth, state, reason, discovered_from)
         SELECT $1, u.url, u.depth, 'skipped', u.reason, $5
           FROM unnest($2::text[], $3::int[], $4::text[]) AS u(url, depth, reason)
         ON CONFLICT (job_id, url) DO NOTHING
         RETURNING reason`,
        [jobId, input.skipped.map((s) => s.url), input.skipped.map((s) => s.depth), input.skipped.map((s) => s.reason), input.parent],
      );
      skippedCount = rows.length;
      for (const r of rows) reasons[r.reason] = (reasons[r.reason] ?? 0) + 1;
    }

    const { rows: fresh } = await tx.query<Candidate>(
      `SELECT u.url, min(u.depth) AS depth, max(u.lastmod) AS lastmod
         FROM unnest($2::text[], $3::int[], $4::text[]) WITH ORDINALITY AS u(url, depth, lastmod, ord)
        WHERE NOT EXISTS (SELECT 1 FROM crawl_urls c WHERE c.job_id = $1 AND c.url = u.url)
        GROUP BY u.url
        ORDER BY min(u.ord)`,
      [jobId, input.candidates.map((c) => c.url), input.candidates.map((c) => c.depth), input.candidates.map((c) => c.lastmod ?? null)],
    );
    const room = Math.max(0, input.maxPages - job.frontier_size);
    const take = fresh.slice(0, room);
    let claimed: Candidate[] = [];
    if (take.length > 0) {
      const { rows } = await tx.query<Candidate>(
        `INSERT INTO crawl_urls (job_id, url, depth, discovered_from, lastmod)
         SELECT $1, u.url, u.depth, $4, u.lastmod FROM unnest($2::text[], $3::int[], $5::text[]) AS u(url, depth, lastmod)
         ON CONFLICT (job_id, url) DO NOTHING
         RETURNING url, depth`,
        [jobId, take.map((c) => c.url), take.map((c) => c.depth), input.parent, take.map((c) => c.lastmod ?? null)],
      );
      // RETURNING order is not guaranteed: keep the caller's (breadth-first) order.
      const got = new Set(rows.map((r) => r.url));
      claimed = take.filter((c) => got.has(c.url)).map((c) => ({ url: c.url, depth: c.depth }));
    }
    const dropped = fresh.length - take.length;
    if (claimed.length > 0 || dropped > 0) await reserveFrontier(tx, jobId, claimed.length, dropped > 0);
    if (skippedCount > 0) await addJobCounters(tx, jobId, { pages_discovered: skippedCount, pages_skipped: skippedCount }, reasons);
    return { claimed, dropped };
  });
}

/**
 * Claims a URL a fetched page turned out to live at (redirect target, rel=canonical) so nobody
 * fetches it again. False when it was already claimed: the page is then a duplicate.
 */
export async function claimAlias(db: Queryable, jobId: string, url: string, parent: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO crawl_urls (job_id, url, depth, state, reason, discovered_from)
     VALUES ($1, $2, 0, 'alias', 'alias', $3)
     ON CONFLICT (job_id, url) DO NOTHING`,
    [jobId, url, parent],
  );
  return (rowCount ?? 0) > 0;
}

export async function findCrawlUrl(db: Queryable, jobId: string, url: string): Promise<CrawlUrlRow | undefined> {
  const { rows } = await db.query<CrawlUrlRow>('SELECT * FROM crawl_urls WHERE job_id = $1 AND url = $2', [jobId, url]);
  return rows[0];
}

/** queued|active → active, counting the attempt. Undefined when the URL is already settled. */
export async function markUrlActive(db: Queryable, jobId: string, url: string): Promise<CrawlUrlRow | undefined> {
  const { rows } = await db.query<CrawlUrlRow>(
    `UPDATE crawl_urls SET state = 'active', attempts = attempts + 1, updated_at = now()
      WHERE job_id = $1 AND url = $2 AND state IN ('queued', 'active')
      RETURNING *`,
    [jobId, url],
  );
  return rows[0];
}

/**
 * Settles a URL. True only for the one call that moved it out of queued/active: the caller
 * counts the outcome only then, so a page re-run after a crash is never counted twice.
 */
export async function settleUrl(
  db: Queryable,
  jobId: string,
  url: string,
  state: 'done' | 'skipped' | 'failed',
  reason: string | null,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE crawl_urls SET state = $3, reason = $4, updated_at = now()
      WHERE job_id = $1 AND url = $2 AND state IN ('queued', 'active')`,
    [jobId, url, state, reason?.slice(0, 300) ?? null],
  );
  return (rowCount ?? 0) > 0;
}

/** The URLs a page claimed that are still waiting: re-enqueued (idempotently) when the page is re-run. */
export async function queuedChildren(db: Queryable, jobId: string, parent: string): Promise<Candidate[]> {
  const { rows } = await db.query<Candidate>(
    `SELECT url, depth FROM crawl_urls WHERE job_id = $1 AND discovered_from = $2 AND state = 'queued' ORDER BY created_at, url`,
    [jobId, parent],
  );
  return rows;
}

/** True when no URL of the crawl is waiting or being fetched. */
export async function isFrontierDrained(db: Queryable, jobId: string): Promise<boolean> {
  const { rows } = await db.query<{ open: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM crawl_urls WHERE job_id = $1 AND state IN ('queued', 'active')) AS open`,
    [jobId],
  );
  return !rows[0]?.open;
}

/** Open URLs of active crawls not touched for a while: the watchdog checks their BullMQ jobs. */
export async function staleOpenUrls(
  db: Queryable,
  queue: string,
  olderThanMs: number,
  limit = 500,
): Promise<(CrawlUrlRow & { client_id: string })[]> {
  const { rows } = await db.query<CrawlUrlRow & { client_id: string }>(
    `SELECT c.*, j.client_id FROM crawl_urls c JOIN jobs j ON j.id = c.job_id
      WHERE c.state IN ('queued', 'active') AND c.updated_at < now() - make_interval(secs => $1::double precision / 1000)
        AND j.status = 'active' AND coalesce(j.options ->> 'queue', $3) = $3
      ORDER BY c.updated_at LIMIT $2`,
    [olderThanMs, limit, queue],
  );
  return rows;
}

export async function touchCrawlUrl(db: Queryable, jobId: string, url: string): Promise<void> {
  await db.query('UPDATE crawl_urls SET updated_at = now() WHERE job_id = $1 AND url = $2', [jobId, url]);
}
