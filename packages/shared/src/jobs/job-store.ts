import { isUuid } from '../db/clients.ts';
import type { Queryable } from '../db/pool.ts';
import {
  type CrawlJobRow,
  type GenerateEmbeddingsJobRow,
  type JobPhase,
  type JobRow,
  type JobRowBase,
  parseJobRow,
  type RawJobRow,
} from './job-data.ts';

/**
 * The `jobs` table: admin jobs (a crawl, a generate-embeddings run), what GET /api/admin/jobs/:jobId
 * reports. Every read parses the row's options and result by its kind (job-data.ts).
 * Counters only ever grow, by statements that run exactly once per event (each guarded by a state
 * transition of the row that caused it), so retried BullMQ jobs never count twice.
 * A job ends only through finish-job.ts.
 */

export interface JobCounters {
  pages_discovered?: number;
  pages_fetched?: number;
  pages_indexed?: number;
  pages_unchanged?: number;
  pages_skipped?: number;
  pages_failed?: number;
  pages_removed?: number;
  documents_created?: number;
  documents_skipped?: number;
  embeddings_done?: number;
  embeddings_failed?: number;
  embedding_tokens?: number;
}

const COUNTER_COLUMNS = [
  'pages_discovered',
  'pages_fetched',
  'pages_indexed',
  'pages_unchanged',
  'pages_skipped',
  'pages_failed',
  'pages_removed',
  'documents_created',
  'documents_skipped',
  'embeddings_done',
  'embeddings_failed',
  'embedding_tokens',
] as const satisfies readonly (keyof JobCounters)[];

/** A new job's kind and options (with the internal ones: job-data.ts). */
export type NewJob = Pick<CrawlJobRow, 'kind' | 'options'> | Pick<GenerateEmbeddingsJobRow, 'kind' | 'options'>;

export async function insertJob(
  db: Queryable,
  input: NewJob & { clientId: string; sourceId: string | null; phase?: JobPhase },
): Promise<JobRow> {
  const { rows } = await db.query<RawJobRow>(
    `INSERT INTO jobs (client_id, source_id, kind, options, phase)
     VALUES ($1, $2, $3, $4, $5)
     RETURNING *`,
    [input.clientId, input.sourceId, input.kind, JSON.stringify(input.options), input.phase ?? 'pending'],
  );
  return parseJobRow(rows[0] as RawJobRow);
}

export async function findJob(db: Queryable, jobId: string): Promise<JobRow | undefined> {
  if (!isUuid(jobId)) return undefined;
  const { rows } = await db.query<RawJobRow>('SELECT * FROM jobs WHERE id = $1', [jobId]);
  return firstJob(rows);
}

/** The job if it is a crawl: what the crawl workers read. */
export async function findCrawlJob(db: Queryable, jobId: string): Promise<CrawlJobRow | undefined> {
  const job = await findJob(db, jobId);
  return job?.kind === 'crawl' ? job : undefined;
}

/** The crawl of this source that has not finished yet, if any (at most one: migration 0010). */
export async function findUnfinishedCrawl(db: Queryable, sourceId: string): Promise<CrawlJobRow | undefined> {
  const { rows } = await db.query<RawJobRow>(
    `SELECT * FROM jobs WHERE source_id = $1 AND kind = 'crawl' AND status IN ('queued', 'active')
      ORDER BY created_at DESC LIMIT 1`,
    [sourceId],
  );
  const job = firstJob(rows);
  return job?.kind === 'crawl' ? job : undefined;
}

/**
 * Row-locks the job inside a transaction: every decision about the job's end is taken under it.
 * FOR NO KEY UPDATE, not FOR UPDATE: rows referencing the job (crawl_urls, documents.embed_job_id)
 * take FOR KEY SHARE on it when written, and FOR UPDATE would deadlock against those writers.
 */
export async function lockJob(db: Queryable, jobId: string): Promise<JobRow | undefined> {
  const { rows } = await db.query<RawJobRow>('SELECT * FROM jobs WHERE id = $1 FOR NO KEY UPDATE', [jobId]);
  return firstJob(rows);
}

/** queued → active; a no-op (returning the row) when it already is active, undefined when finished or gone. */
export async function activateJob(db: Queryable, jobId: string, phase: JobPhase): Promise<JobRow | undefined> {
  const { rows } = await db.query<RawJobRow>(
    `UPDATE jobs SET
       status = 'active',
       phase = CASE WHEN status = 'queued' THEN $2 ELSE phase END,
       started_at = coalesce(started_at, now()),
       updated_at = now()
     WHERE id = $1 AND status IN ('queued', 'active')
     RETURNING *`,
    [jobId, phase],
  );
  return firstJob(rows);
}

export async function setJobPhase(db: Queryable, jobId: string, phase: JobPhase): Promise<void> {
  await db.query('UPDATE jobs SET phase = $2, updated_at = now() WHERE id = $1', [jobId, phase]);
}

/** Adds to the job's counters (and skip reasons). Zero deltas are left out of the statement. */
export async function addJobCounters(
  db: Queryable,
  jobId: string,
  delta: JobCounters,
  skipReasons: Record<string, number> = {},
): Promise<void> {
  const sets: string[] = [];
  const values: unknown[] = [jobId];
  for (const column of COUNTER_COLUMNS) {
    const n = delta[column];
    if (!n) continue;
    values.push(n);
    sets.push(`${column} = ${column} + $${values.length}`);
  }
  const reasons = Object.entries(skipReasons).filter(([, n]) => n > 0);
  if (reasons.length > 0) {
    values.push(JSON.stringify(Object.fromEntries(reasons)));
    // Merge: each reason's count is added to what is there.
    sets.push(
      `skip_reasons = skip_reasons || (SELECT coalesce(jsonb_object_agg(k, coalesce((skip_reasons ->> k)::int, 0) + v::int), '{}'::jsonb)
                                         FROM jsonb_each_text($${values.length}::jsonb) AS r(k, v))`,
    );
  }
  if (sets.length === 0) return;
  await db.query(`UPDATE jobs SET ${sets.join(', ')}, updated_at = now() WHERE id = $1`, values);
}

/** Appends an operator-facing note once (the same note from many pages is kept once). */
export async function addJobNote(db: Queryable, jobId: string, note: string): Promise<void> {
  await db.query(
    `UPDATE jobs SET notes = array_append(notes, $2::text), updated_at = now()
      WHERE id = $1 AND NOT ($2::text = ANY (notes)) AND cardinality(notes) < 20`,
    [jobId, note.slice(0, 500)],
  );
}

export async function setJobRobots(db: Queryable, jobId: string, robots: JobRowBase['robots']): Promise<void> {
  await db.query('UPDATE jobs SET robots = $2, updated_at = now() WHERE id = $1', [jobId, JSON.stringify(robots)]);
}

/** Reserves up to `wanted` slots of the maxPages budget; returns how many were granted. Call with the job row locked. */
export async function reserveFrontier(db: Queryable, jobId: string, granted: number, capped: boolean): Promise<void> {
  await db.query(
    `UPDATE jobs SET frontier_size = frontier_size + $2, pages_discovered = pages_discovered + $2,
                     frontier_capped = frontier_capped OR $3, updated_at = now()
      WHERE id = $1`,
    [jobId, granted, capped],
  );
}

/**
 * Unfinished jobs of one queue namespace (REDIS_PREFIX, kept in options.queue), oldest first: the
 * watchdogs' work list. A deployment heals only its own jobs — another one sharing the database
 * (a second environment, a test run) has its own queues and its own watchdogs.
 */
export async function listUnfinishedJobs(db: Queryable, queue: string, kind: JobRow['kind'] | undefined, limit = 200): Promise<JobRow[]> {
  const { rows } = await db.query<RawJobRow>(
    `SELECT * FROM jobs WHERE status IN ('queued', 'active') AND ($1::text IS NULL OR kind = $1)
        AND coalesce(options ->> 'queue', $3) = $3
      ORDER BY created_at LIMIT $2`,
    [kind ?? null, limit, queue],
  );
  return rows.map(parseJobRow);
}

/** The most recent job of each source (for the sources listing). */
export async function lastJobsBySource(db: Queryable, clientId: string): Promise<Map<string, JobRow>> {
  const { rows } = await db.query<RawJobRow & { source_id: string }>(
    `SELECT DISTINCT ON (source_id) * FROM jobs
      WHERE client_id = $1 AND source_id IS NOT NULL AND kind = 'crawl'
      ORDER BY source_id, created_at DESC`,
    [clientId],
  );
  return new Map(rows.map((r) => [r.source_id, parseJobRow(r)]));
}

function firstJob(rows: RawJobRow[]): JobRow | undefined {
  const row = rows[0];
  return row ? parseJobRow(row) : undefined;
}

/** Crawl jobs of every client by status, whichever process ran them (the gateway's /metrics). */
export async function countCrawlsByStatus(db: Queryable): Promise<Map<string, number>> {
  const { rows } = await db.query<{ status: string; n: string }>(
    `SELECT status, count(*) AS n FROM jobs WHERE kind = 'crawl' GROUP BY status`,
  );
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}
