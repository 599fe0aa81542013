import type { Config } from '../config.ts';
import { normalizeUrl } from '../crawl/url.ts';
import { findClient } from '../db/clients.ts';
import { documentIdsAwaiting, markClientDocumentsForEmbedding } from '../db/documents.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { setSourceCrawlOptions, upsertSource } from '../db/sources.ts';
import { enqueueEmbedding } from '../embedding/enqueue.ts';
import { BadRequestError, ClientNotFoundError, ConflictError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { startJobId } from '../pipeline/job-ids.ts';
import type { Queues } from '../runtime.ts';
import { settleJobIfDone } from './finish-job.ts';
import type { JobRow, RenderMode } from './job-data.ts';
import { activateJob, addJobCounters, findJob, findUnfinishedCrawl, insertJob } from './job-store.ts';

/**
 * What the admin endpoints start: a crawl, a generate-embeddings run. The job row is committed
 * first; the queue is told second. If Redis is away at that moment the job is still there and the
 * watchdogs enqueue it when Redis is back — the caller gets a 202 with a statusUrl, never a lost job.
 */
export interface PipelineDeps {
  config: Config;
  pool: Pool;
  queues: Queues;
  log: Logger;
}

const clientNotFound = (details: string | string[]) => new ClientNotFoundError(details);

/**
 * Starts a crawl of the source at `url`, or joins the one already running: one crawl per source at
 * a time, since a finishing crawl removes the pages it did not see and would delete what a second
 * crawl of the same source had just stored. The source row's lock (taken by the upsert) orders
 * concurrent requests; the partial unique index of migration 0010 stands behind it.
 * `joined` says the returned job is the one already running (nothing new was enqueued).
 */
export async function startCrawlJob(
  deps: PipelineDeps,
  input: { clientId: string; url: string; maxPages: number; render: RenderMode; include?: string[]; exclude?: string[] },
  notFoundDetails: string | string[],
): Promise<{ job: JobRow; enqueued: boolean; joined: boolean }> {
  const client = await findClient(deps.pool, input.clientId);
  if (!client) throw clientNotFound(notFoundDetails);
  const startUrl = normalizeUrl(input.url);
  if (!startUrl) throw new BadRequestError('Invalid request', 'url must be a valid HTTP or HTTPS URL');

  const { job, joined } = await withTransaction(deps.pool, async (tx) => {
    const source = await upsertSource(tx, client.id, startUrl);
    if (source.type !== 'website') {
      throw new ConflictError('Source exists', [
        `url is what this client's ${source.type} source ${source.id} cites; it is not a website to crawl`,
      ]);
    }
    const running = await findUnfinishedCrawl(tx, source.id);
    if (running) return { job: running, joined: true };
    // The scope is kept with the source: a crawl that names none reuses the last one given.
    const include = input.include ?? source.crawl_options.include ?? [];
    const exclude = input.exclude ?? source.crawl_options.exclude ?? [];
    await setSourceCrawlOptions(tx, source.id, { maxPages: input.maxPages, render: input.render, include, exclude });
    const created = await insertJob(tx, {
      clientId: client.id,
      sourceId: source.id,
      kind: 'crawl',
      options: {
        queue: deps.config.REDIS_PREFIX,
        url: input.url,
        startUrl,
        maxPages: input.maxPages,
        render: input.render,
        include,
        exclude,
      },
    });
    return { job: created, joined: false };
  });
  if (joined) {
    deps.log.info({ jobId: job.id, sourceId: job.source_id }, 'crawl requested while one of the same source runs: joined it');
    return { job, enqueued: true, joined };
  }
  let enqueued = true;
  try {
    await deps.queues.crawl.add('crawl.start', { jobId: job.id, clientId: client.id }, { jobId: startJobId(job.id) });
  } catch (err) {
    enqueued = false;
    deps.log.warn({ jobId: job.id, err: { message: (err as Error).message } }, 'crawl.start not enqueued; the watchdog will enqueue it');
  }
  return { job, enqueued, joined };
}

export async function startGenerateEmbeddingsJob(
  deps: PipelineDeps,
  input: { clientId: string; model: string },
  notFoundDetails: string | string[],
): Promise<{ job: JobRow; enqueued: boolean }> {
  const client = await findClient(deps.pool, input.clientId);
  if (!client) throw clientNotFound(notFoundDetails);

  // One transaction: a job that exists has its documents listed, so it can always be settled.
  const { job, marked } = await withTransaction(deps.pool, async (tx) => {
    const created = await insertJob(tx, {
      clientId: client.id,
      sourceId: null,
      kind: 'generate-embeddings',
      options: { queue: deps.config.REDIS_PREFIX, model: input.model },
      phase: 'embedding',
    });
    await activateJob(tx, created.id, 'embedding');
    const counts = await markClientDocumentsForEmbedding(tx, { clientId: client.id, jobId: created.id, model: input.model });
    await addJobCounters(tx, created.id, { documents_skipped: counts.skipped });
    if (counts.marked === 0) await settleJobIfDone(tx, created.id);
    return { job: created, marked: counts.marked };
  });
  if (marked === 0) return { job, enqueued: true };
  try {
    const ids = await documentIdsAwaiting(deps.pool, job.id);
    await enqueueEmbedding(deps.queues, { clientId: client.id, jobId: job.id, documentIds: ids, key: `gen-${job.id}` });
    return { job, enqueued: true };
  } catch (err) {
    deps.log.warn({ jobId: job.id, err: { message: (err as Error).message } }, 'embed jobs not enqueued; the watchdog will enqueue them');
    return { job, enqueued: false };
  }
}

/**
 * Waits for a job to finish (completed or failed), up to timeoutMs or until the signal aborts
 * (the caller hung up). Polls the row: cheap, and it cannot miss an end the way a lost pub/sub
 * message could.
 */
export async function waitForJob(pool: Pool, jobId: string, timeoutMs: number, signal?: AbortSignal): Promise<JobRow | undefined> {
  const deadline = Date.now() + timeoutMs;
  let interval = 100;
  for (;;) {
    const job = await findJob(pool, jobId);
    if (!job) return undefined;
    if (job.status === 'completed' || job.status === 'failed') return job;
    const left = deadline - Date.now();
    if (left <= 0 || signal?.aborted) return undefined;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.min(interval, left));
      signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
    interval = Math.min(interval * 1.5, 1_000);
  }
}

/** `Prefer: respond-async` (RFC 7240), among other preferences or alone. */
export function prefersAsync(prefer: string | string[] | undefined): boolean {
  const values = Array.isArray(prefer) ? prefer : prefer ? [prefer] : [];
  return values.some((v) =>
    v
      .split(',')
      .map((p) => p.trim().split(/[;=]/)[0]?.trim().toLowerCase())
      .includes('respond-async'),
  );
}
