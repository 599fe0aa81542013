import { type CrawlJobRow, parseJobRow, type RawJobRow } from '../jobs/job-data.ts';
import { addJobCounters, lockJob, reserveFrontier } from '../jobs/job-store.ts';
import { isUuid } from './clients.ts';
import type { PageRow } from './pages.ts';
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
    [jobId, claimedUrls(input)],
  );
  if (!unseen[0]?.any) return { claimed: [], dropped: 0 };
  return claimUnseen(pool, jobId, input);
}

/**
 * A page's links → the frontier (claimUrls), then the URLs that page claimed and that still wait —
 * including ones claimed by an earlier run of the same page that died before enqueueing them. When
 * every link is claimed already (most pages), that is one statement: the check and the list together.
 */
export async function claimChildren(
  pool: Pool,
  jobId: string,
  input: { candidates: Candidate[]; skipped?: (Candidate & { reason: string })[]; parent: string; maxPages: number },
): Promise<Candidate[]> {
  const { rows } = await pool.query<{ any: boolean; queued: Candidate[] }>({
    name: 'kbchat_unclaimed_and_queued',
    text: `SELECT EXISTS (SELECT 1 FROM unnest($2::text[]) AS u(url)
                          WHERE NOT EXISTS (SELECT 1 FROM crawl_urls c WHERE c.job_id = $1 AND c.url = u.url)) AS any,
                  coalesce((SELECT json_agg(json_build_object('url', c.url, 'depth', c.depth) ORDER BY c.created_at, c.url)
                              FROM crawl_urls c WHERE c.job_id = $1 AND c.discovered_from = $3 AND c.state = 'queued'), '[]') AS queued`,
    values: [jobId, claimedUrls(input), input.parent],
  });
  const row = rows[0];
  if (row && !row.any) return row.queued;
  await claimUnseen(pool, jobId, input);
  return queuedChildren(pool, jobId, input.parent);
}

function claimedUrls(input: { candidates: Candidate[]; skipped?: Candidate[] }): string[] {
  return [...input.candidates.map((c) => c.url), ...(input.skipped ?? []).map((s) => s.url)];
}

/** claimUrls' claim itself, under the job's row lock. */
async function claimUnseen(
  pool: Pool,
  jobId: string,
  input: { candidates: Candidate[]; skipped?: (Candidate & { reason: string })[]; parent: string; maxPages: number },
): Promise<ClaimResult> {
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

export interface StartedPage {
  /** The crawl, when the job is one (whatever its state). */
  job: CrawlJobRow | undefined;
  /** The URL was queued|active and is now active (its attempt counted); false: the crawl is not
   *  active, is another client's or has no source, or the URL is settled already. */
  active: boolean;
  /** The sitemap's <lastmod> for the URL in this crawl (when active). */
  lastmod: string | null;
  /** The page stored for the URL, if any (when active). */
  page: PageRow | undefined;
}

/**
 * The start of a page job in one statement: the crawl's row, the URL marked active (queued|active →
 * active, its attempt counted) only when the crawl is active, the client's and has a source, and the page stored for the URL.
 * Three round trips were one each; in one statement they also read one snapshot.
 */
export async function startCrawlPage(db: Queryable, input: { jobId: string; clientId: string; url: string }): Promise<StartedPage> {
  if (!isUuid(input.jobId)) return { job: undefined, active: false, lastmod: null, page: undefined };
  const { rows } = await db.query<
    RawJobRow & { url_active: boolean; url_lastmod: string | null; url_page: Record<string, unknown> | null }
  >(
    `WITH j AS (
       SELECT * FROM jobs WHERE id = $1
     ), u AS (
       UPDATE crawl_urls c SET state = 'active', attempts = c.attempts + 1, updated_at = now()
        WHERE c.job_id = $1 AND c.url = $2 AND c.state IN ('queued', 'active')
          AND EXISTS (SELECT 1 FROM j WHERE j.kind = 'crawl' AND j.status = 'active' AND j.client_id::text = $3 AND j.source_id IS NOT NULL)
        RETURNING c.lastmod
     )
     SELECT j.*, EXISTS (SELECT 1 FROM u) AS url_active, (SELECT u.lastmod FROM u) AS url_lastmod,
            (SELECT to_jsonb(p) FROM pages p WHERE p.client_id = j.client_id AND p.url = $2 AND EXISTS (SELECT 1 FROM u)) AS url_page
       FROM j`,
    [input.jobId, input.url, input.clientId],
  );
  const row = rows[0];
  if (!row) return { job: undefined, active: false, lastmod: null, page: undefined };
  const { url_active, url_lastmod, url_page, ...raw } = row;
  const job = parseJobRow(raw);
  return {
    job: job.kind === 'crawl' ? job : undefined,
    active: url_active,
    lastmod: url_lastmod,
    page: url_page ? pageFromJson(url_page) : undefined,
  };
}

/** A pages row as to_jsonb gave it: its timestamps back to Dates. */
function pageFromJson(json: Record<string, unknown>): PageRow {
  const date = (v: unknown) => (typeof v === 'string' ? new Date(v) : null);
  return {
    ...(json as unknown as PageRow),
    fetched_at: date(json.fetched_at),
    created_at: date(json.created_at) as Date,
    updated_at: date(json.updated_at) as Date,
  };
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
  // Named (pool.ts): run after every page, so parsed and planned once per connection.
  const { rows } = await db.query<{ open: boolean }>({
    name: 'kbchat_frontier_open',
    text: `SELECT EXISTS (SELECT 1 FROM crawl_urls WHERE job_id = $1 AND state IN ('queued', 'active')) AS open`,
    values: [jobId],
  });
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
