import { z } from 'zod';
import { crawlResult } from '../schemas/crawl.ts';
import { generateEmbeddingsResult } from '../schemas/embeddings.ts';

/**
 * What an admin job (a `jobs` row: a crawl, a generate-embeddings run) holds in its JSON columns,
 * one zod schema per kind for its options and its result. The row crosses services — the gateway
 * writes it, the workers read it, the gateway shows it — so it is parsed where it is read
 * (job-store.ts), like a queue payload, and the rest of the code gets typed fields instead of casts.
 */

export type JobKind = 'crawl' | 'generate-embeddings';
export type JobStatus = 'queued' | 'active' | 'completed' | 'failed';
export type JobPhase = 'pending' | 'crawling' | 'embedding' | 'done';

export const renderMode = z.enum(['auto', 'never', 'always']);
export type RenderMode = z.output<typeof renderMode>;

/** A crawl's options as the admin asked for them: what the job view shows. */
export const crawlJobOptions = z.object({
  /** As the admin sent it. */
  url: z.string(),
  /** Normalised: the source's identity and the first URL of the frontier. */
  startUrl: z.string(),
  maxPages: z.number().int(),
  render: renderMode,
  /** URL patterns of the crawl's scope (crawl/scope.ts); absent on jobs from before scopes. */
  include: z.array(z.string()).optional(),
  exclude: z.array(z.string()).optional(),
});
export type CrawlJobOptions = z.output<typeof crawlJobOptions>;

/** A generate-embeddings run's options: what the job view shows. */
export const generateEmbeddingsJobOptions = z.object({
  /** The embedding model the documents are to have. */
  model: z.string(),
});
export type GenerateEmbeddingsJobOptions = z.output<typeof generateEmbeddingsJobOptions>;

/**
 * Kept in the row for the workers only, never shown: the queue namespace (REDIS_PREFIX) the job's
 * work runs in, so each deployment's watchdogs heal only their own jobs (listUnfinishedJobs).
 * Absent on jobs from before it was kept.
 */
const internalOptions = z.object({ queue: z.string().optional() });
export type InternalJobOptions = z.output<typeof internalOptions>;

const storedCrawlOptions = crawlJobOptions.extend(internalOptions.shape);
const storedGenerateEmbeddingsOptions = generateEmbeddingsJobOptions.extend(internalOptions.shape);

/** The result: the admin endpoint's 200 body once the job has finished (null before). */
export type CrawlJobResult = z.output<typeof crawlResult>;
export type GenerateEmbeddingsJobResult = z.output<typeof generateEmbeddingsResult>;

/** The columns every job has, whatever its kind. */
export interface JobRowBase {
  id: string;
  client_id: string;
  source_id: string | null;
  status: JobStatus;
  phase: JobPhase;
  pages_discovered: number;
  pages_fetched: number;
  pages_indexed: number;
  pages_unchanged: number;
  pages_skipped: number;
  pages_failed: number;
  pages_removed: number;
  skip_reasons: Record<string, number>;
  documents_created: number;
  documents_skipped: number;
  embeddings_done: number;
  embeddings_failed: number;
  /** bigint: pg returns it as a string. */
  embedding_tokens: string;
  frontier_size: number;
  frontier_capped: boolean;
  notes: string[];
  robots: { crawlDelayMs: number | null; sitemaps: string[]; error?: string } | null;
  message: string | null;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  updated_at: Date;
}

export interface CrawlJobRow extends JobRowBase {
  kind: 'crawl';
  options: CrawlJobOptions & InternalJobOptions;
  result: CrawlJobResult | null;
}

/** A crawl of a known source: every crawl the gateway starts has one; the page worker needs it. */
export type SourcedCrawlJobRow = CrawlJobRow & { source_id: string };

export function hasSource(job: CrawlJobRow): job is SourcedCrawlJobRow {
  return job.source_id !== null;
}

export interface GenerateEmbeddingsJobRow extends JobRowBase {
  kind: 'generate-embeddings';
  options: GenerateEmbeddingsJobOptions & InternalJobOptions;
  result: GenerateEmbeddingsJobResult | null;
}

/** A job row with its options and result parsed: `kind` says which. */
export type JobRow = CrawlJobRow | GenerateEmbeddingsJobRow;

/** A row as pg returns it, JSON columns unparsed. */
export type RawJobRow = JobRowBase & { kind: string; options: unknown; result: unknown };

/** Parses a row's JSON columns by its kind. A row that does not match is a bug: it throws. */
export function parseJobRow(raw: RawJobRow): JobRow {
  if (raw.kind === 'crawl') {
    return {
      ...raw,
      kind: 'crawl',
      options: storedCrawlOptions.parse(raw.options),
      result: raw.result === null ? null : crawlResult.parse(raw.result),
    };
  }
  if (raw.kind === 'generate-embeddings') {
    return {
      ...raw,
      kind: 'generate-embeddings',
      options: storedGenerateEmbeddingsOptions.parse(raw.options),
      result: raw.result === null ? null : generateEmbeddingsResult.parse(raw.result),
    };
  }
  throw new Error(`job ${raw.id} has an unknown kind: ${raw.kind}`);
}

/** The options as the job view shows them: what the admin asked for, no internal field. */
export function publicJobOptions(job: JobRow): CrawlJobOptions | GenerateEmbeddingsJobOptions {
  return job.kind === 'crawl' ? crawlJobOptions.parse(job.options) : generateEmbeddingsJobOptions.parse(job.options);
}
