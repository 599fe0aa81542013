import { findCrawlUrl } from '../db/crawl-urls.ts';
import { hasDocumentsAwaiting } from '../db/documents.ts';
import type { Queryable } from '../db/pool.ts';
import {
  type CrawlJobResult,
  type CrawlJobRow,
  type GenerateEmbeddingsJobResult,
  type GenerateEmbeddingsJobRow,
  type JobRow,
  parseJobRow,
  type RawJobRow,
} from './job-data.ts';
import { lockJob } from './job-store.ts';

/**
 * The end of an admin job: the one place its result and message are written. A crawl is settled
 * when its frontier is drained (phase 'embedding') and no document waits on it any more; a
 * generate-embeddings run when no document waits on it. Whoever makes the last change (crawl.finish,
 * or the embed job that wrote the last embedding) calls settleJobIfDone inside its transaction:
 * the job row lock serialises them, and the conditional UPDATE ends the job exactly once.
 * A crawl that cannot even start is ended by failCrawl, through the same UPDATE and result.
 */
export async function settleJobIfDone(tx: Queryable, jobId: string): Promise<JobRow | undefined> {
  const job = await lockJob(tx, jobId);
  if (job?.status !== 'active' || job.phase !== 'embedding') return undefined;
  if (await hasDocumentsAwaiting(tx, jobId)) return undefined;
  const outcome = job.kind === 'crawl' ? await crawlOutcome(tx, job) : embeddingsOutcome(job);
  return finishJob(tx, jobId, outcome);
}

/** Ends a crawl as failed before it indexed anything (its start failed for good); `why` in words for the operator. */
export async function failCrawl(db: Queryable, job: CrawlJobRow, why: string): Promise<JobRow | undefined> {
  const message = `${nothingIndexed(job)}: ${why}.`;
  return finishJob(db, job.id, { status: 'failed', result: crawlResultOf(job, false, message), message, error: message });
}

type Outcome = {
  status: 'completed' | 'failed';
  result: CrawlJobResult | GenerateEmbeddingsJobResult;
  message: string;
  error: string | null;
};

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** Why a URL was not indexed, in words an operator can act on. */
export function describeReason(reason: string | null | undefined): string {
  const r = reason ?? '';
  if (r === 'robots') return 'robots.txt does not allow crawling it';
  if (r === 'noindex') return 'it asks not to be indexed (meta robots noindex)';
  if (r === 'duplicate') return 'it is a duplicate of another page (rel=canonical or redirect)';
  if (r === 'off-site') return 'it redirects to another site';
  if (r === 'not-html') return 'it is not an HTML page';
  if (r === 'binary') return 'it is binary content, not HTML';
  if (r === 'too-large') return 'it is larger than the page size limit';
  if (r === 'empty') return 'it has no readable text';
  if (r === 'parse-timeout') return 'its HTML took longer than CRAWL_PARSE_TIMEOUT_MS to read';
  if (r === 'parse-failed') return 'its HTML needed more memory to read than a page may take';
  if (r === 'blocked') return 'its address is not public (OUTBOUND_ALLOW_PRIVATE_NETWORKS=true allows it for local sites)';
  const http = /^http-(\d{3})$/.exec(r);
  if (http) return `it answered HTTP ${http[1]}`;
  if (r.startsWith('network')) return `it could not be fetched (${r.replace(/^network:?\s*/, '') || 'network error'})`;
  if (r.startsWith('timeout')) return 'it did not answer in time';
  return r ? `it was skipped (${r})` : 'it could not be fetched';
}

function skipSummary(reasons: Record<string, number>): string {
  return Object.entries(reasons)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ');
}

async function crawlOutcome(db: Queryable, job: CrawlJobRow): Promise<Outcome> {
  const startUrl = job.options.startUrl;
  const tokens = Number(job.embedding_tokens);
  const parts: string[] = [];
  let error: string | null = null;
  const success = job.pages_indexed > 0;

  if (success) {
    const unchanged = job.pages_unchanged > 0 ? ` (${job.pages_unchanged} unchanged)` : '';
    parts.push(
      `Indexed ${plural(job.pages_indexed, 'page')}${unchanged} from ${startUrl} and created ${plural(job.documents_created, 'document')}.`,
    );
    if (job.embeddings_done > 0 || job.embeddings_failed === 0) {
      parts.push(`${plural(job.embeddings_done, 'document')} embedded (${plural(tokens, 'token')}).`);
    }
  } else {
    const start = await findCrawlUrl(db, job.id, startUrl);
    let why: string;
    if (start && (start.state === 'skipped' || start.state === 'failed'))
      why = `the start URL was not indexed: ${describeReason(start.reason)}`;
    else if (job.pages_fetched === 0 && job.pages_failed > 0) why = 'no page could be fetched';
    else if (job.pages_skipped > 0) why = `every page found was skipped (${skipSummary(job.skip_reasons)})`;
    else why = 'no page with readable text was found';
    error = `${nothingIndexed(job)}: ${why}.`;
    parts.push(error);
  }
  if (job.pages_skipped > 0 && success) parts.push(`Skipped ${job.pages_skipped} (${skipSummary(job.skip_reasons)}).`);
  if (job.pages_failed > 0) parts.push(`${plural(job.pages_failed, 'page')} failed after retries and kept any earlier content.`);
  if (job.pages_removed > 0) parts.push(`Removed ${plural(job.pages_removed, 'page')} no longer on the site.`);
  if (job.frontier_capped) {
    parts.push(`Stopped at maxPages (${job.options.maxPages}): the site has more pages; pages beyond the limit were kept as they were.`);
  }
  if (job.embeddings_failed > 0) {
    parts.push(
      `${plural(job.embeddings_failed, 'document')} could not be embedded and ${job.embeddings_failed === 1 ? 'is' : 'are'} stored without ${job.embeddings_failed === 1 ? 'an embedding' : 'embeddings'}: run POST /api/admin/generate-embeddings to retry.`,
    );
  }
  parts.push(...job.notes);
  const message = parts.join(' ');
  return { status: success ? 'completed' : 'failed', result: crawlResultOf(job, success, message), message, error };
}

const nothingIndexed = (job: CrawlJobRow) => `No pages were indexed from ${job.options.startUrl}`;

/** POST /api/admin/crawl's 200 body. */
function crawlResultOf(job: CrawlJobRow, success: boolean, message: string): CrawlJobResult {
  return { success, sourceId: job.source_id ?? '', pagesIndexed: job.pages_indexed, documentsCreated: job.documents_created, message };
}

function embeddingsOutcome(job: GenerateEmbeddingsJobRow): Outcome {
  const model = job.options.model;
  const processed = job.embeddings_done;
  const skipped = job.documents_skipped;
  const failed = job.embeddings_failed;
  const tokens = Number(job.embedding_tokens);
  const parts: string[] = [];
  if (processed === 0 && failed === 0) {
    parts.push(
      skipped > 0
        ? `Nothing to do: all ${plural(skipped, 'document')} already have embeddings of ${model}.`
        : 'Nothing to do: this client has no documents yet; crawl a site first.',
    );
  } else {
    parts.push(`Embedded ${plural(processed, 'document')} with ${model} (${plural(tokens, 'token')}).`);
    if (skipped > 0) parts.push(`${plural(skipped, 'document')} already had embeddings of ${model}.`);
  }
  let error: string | null = null;
  if (failed > 0) {
    error = `${plural(failed, 'document')} could not be embedded.`;
    parts.push(`${error} Run generate-embeddings again to retry.`);
  }
  parts.push(...job.notes);
  const message = parts.join(' ');
  const result: GenerateEmbeddingsJobResult = { success: failed === 0, processed, skipped, message };
  return { status: failed === 0 ? 'completed' : 'failed', result, message, error };
}

/**
 * The UPDATE that ends a job: conditional, so however many workers race to finish it, exactly
 * one succeeds (and only that one may act on the end, e.g. log it).
 */
async function finishJob(db: Queryable, jobId: string, outcome: Outcome): Promise<JobRow | undefined> {
  const { rows } = await db.query<RawJobRow>(
    `UPDATE jobs SET status = $2, phase = 'done', result = $3, message = $4, error = $5,
                     finished_at = now(), updated_at = now()
      WHERE id = $1 AND status IN ('queued', 'active')
      RETURNING *`,
    [jobId, outcome.status, JSON.stringify(outcome.result), outcome.message, outcome.error],
  );
  const row = rows[0];
  return row ? parseJobRow(row) : undefined;
}
