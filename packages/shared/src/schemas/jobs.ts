import { z } from 'zod';
import { crawlJobOptions, generateEmbeddingsJobOptions, type JobRow, publicJobOptions } from '../jobs/job-data.ts';
import { crawlResult } from './crawl.ts';
import { generateEmbeddingsResult } from './embeddings.ts';

/** GET /api/admin/jobs/:jobId — what admins poll. */
export const jobProgress = z.object({
  pagesDiscovered: z.number(),
  pagesFetched: z.number(),
  pagesIndexed: z.number(),
  pagesUnchanged: z.number(),
  pagesSkipped: z.number(),
  skipReasons: z.record(z.string(), z.number()),
  pagesFailed: z.number(),
  pagesRemoved: z.number(),
  documentsCreated: z.number(),
  documentsSkipped: z.number(),
  embeddingsDone: z.number(),
  embeddingsFailed: z.number(),
  embeddingTokens: z.number(),
});

export const jobView = z.object({
  jobId: z.string(),
  kind: z.enum(['crawl', 'generate-embeddings']),
  clientId: z.string(),
  sourceId: z.string().nullable(),
  status: z.enum(['queued', 'active', 'completed', 'failed']),
  /** pending → crawling → embedding → done. */
  phase: z.enum(['pending', 'crawling', 'embedding', 'done']),
  /** What the admin asked for (url, maxPages, render, scope; or the model); internal fields are not shown. */
  options: z.union([crawlJobOptions, generateEmbeddingsJobOptions]),
  progress: jobProgress,
  /** The endpoint's 200 body once the job has finished. */
  result: z.union([crawlResult, generateEmbeddingsResult]).nullable(),
  message: z.string().nullable(),
  error: z.string().nullable(),
  notes: z.array(z.string()),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
});
export type JobView = z.output<typeof jobView>;

export const jobParams = z.object({ jobId: z.string() });

export function toJobView(row: JobRow): JobView {
  return {
    jobId: row.id,
    kind: row.kind,
    clientId: row.client_id,
    sourceId: row.source_id,
    status: row.status,
    phase: row.phase,
    options: publicJobOptions(row),
    progress: {
      pagesDiscovered: row.pages_discovered,
      pagesFetched: row.pages_fetched,
      pagesIndexed: row.pages_indexed,
      pagesUnchanged: row.pages_unchanged,
      pagesSkipped: row.pages_skipped,
      skipReasons: row.skip_reasons,
      pagesFailed: row.pages_failed,
      pagesRemoved: row.pages_removed,
      documentsCreated: row.documents_created,
      documentsSkipped: row.documents_skipped,
      embeddingsDone: row.embeddings_done,
      embeddingsFailed: row.embeddings_failed,
      embeddingTokens: Number(row.embedding_tokens),
    },
    result: row.result,
    message: row.message ?? liveMessage(row),
    error: row.error,
    notes: row.notes,
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString() ?? null,
    finishedAt: row.finished_at?.toISOString() ?? null,
  };
}

/** While a job runs, a one-line account of where it is. */
function liveMessage(row: JobRow): string {
  if (row.status === 'queued' || row.phase === 'pending') return 'Queued: waiting for a crawler worker.';
  if (row.kind === 'crawl' && row.phase === 'crawling') {
    return `Crawling: ${row.pages_fetched} of ${row.pages_discovered} pages fetched, ${row.pages_indexed} indexed, ${row.documents_created} documents.`;
  }
  return `Embedding: ${row.embeddings_done} documents embedded${row.embeddings_failed ? `, ${row.embeddings_failed} failed` : ''}.`;
}
