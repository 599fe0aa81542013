import { isFrontierDrained, staleOpenUrls, touchCrawlUrl } from '@kbchat/shared/db/crawl-urls';
import { staleRelatedWords } from '@kbchat/shared/db/lsa';
import { failCrawl } from '@kbchat/shared/jobs/finish-job';
import type { JobRow } from '@kbchat/shared/jobs/job-data';
import { listUnfinishedJobs } from '@kbchat/shared/jobs/job-store';
import type { Logger } from '@kbchat/shared/logger';
import { finishJobId, pageJobId, startJobId } from '@kbchat/shared/pipeline/job-ids';
import { startPeriodic } from '@kbchat/shared/pipeline/periodic';
import type { CrawlContext } from './context.ts';
import { enqueuePages } from './frontier.ts';
import { rebuildRelatedWords } from './related-words.ts';
import { settleNotIndexed } from './store-page.ts';

/**
 * Heals what a crash or a Redis outage can leave between Postgres (the truth: crawl_urls, jobs)
 * and BullMQ (the work): a claimed URL whose job never reached Redis or was lost, a page job that
 * failed for good without settling its URL (stalled too often), a drained crawl whose crawl.finish
 * never ran, a crawl whose crawl.start was lost, a completed crawl whose related words were never
 * learnt. Every repair is an idempotent re-enqueue with the same deterministic job id, a conditional
 * settle, or a rebuild that replaces what it rebuilds.
 */
export function startCrawlWatchdog(ctx: CrawlContext): { stop(): Promise<void> } {
  const { config, log } = ctx.rt;
  // Old enough that normal processing would have touched it; BullMQ's own state is what decides.
  const staleMs = Math.max(2 * config.PIPELINE_WATCHDOG_MS, 2 * config.WORKER_LOCK_MS);
  return startPeriodic({
    name: 'crawl-watchdog',
    redis: ctx.rt.redis,
    redisPrefix: config.REDIS_PREFIX,
    intervalMs: config.PIPELINE_WATCHDOG_MS,
    log,
    tick: () => crawlWatchdogTick(ctx, staleMs),
  });
}

export async function crawlWatchdogTick(ctx: CrawlContext, staleMs: number): Promise<void> {
  const { pool, log } = ctx.rt;
  const queue = ctx.rt.queues.crawl.queue;

  for (const row of await staleOpenUrls(pool, ctx.rt.config.REDIS_PREFIX, staleMs)) {
    const bull = await queue.getJob(pageJobId(row.job_id, row.url));
    const state = bull ? await bull.getState() : 'missing';
    const job = { id: row.job_id, client_id: row.client_id };
    if (state === 'failed') {
      // Failed for good without settling (e.g. stalled more than maxStalledCount): count it as failed.
      await settleNotIndexed(pool, row.job_id, row.url, { state: 'failed', reason: 'worker-lost', fetched: false });
      await maybeQueueFinish(ctx, job);
      log.warn({ jobId: row.job_id, url: row.url }, 'watchdog: page job failed without settling; counted as failed');
      continue;
    }
    if (state === 'missing' || state === 'completed' || state === 'unknown') {
      if (bull) await bull.remove().catch(removeFailed(log, row.job_id));
      await enqueuePages(ctx, job, [{ url: row.url, depth: row.depth }]);
      log.warn({ jobId: row.job_id, url: row.url, state }, 'watchdog: re-enqueued a claimed page');
    }
    await touchCrawlUrl(pool, row.job_id, row.url);
  }

  for (const job of await listUnfinishedJobs(pool, ctx.rt.config.REDIS_PREFIX, 'crawl')) {
    if (job.kind !== 'crawl') continue; // the query lists crawls only; this tells the type
    const age = Date.now() - job.updated_at.getTime();
    if (job.phase === 'pending' && age > staleMs) {
      const bull = await queue.getJob(startJobId(job.id));
      const state = bull ? await bull.getState() : 'missing';
      if (state === 'failed') {
        await failCrawl(ctx.rt.pool, job, 'the crawl could not be started (crawl.start failed)');
      } else if (state === 'missing' || state === 'completed') {
        if (bull) await bull.remove().catch(removeFailed(log, job.id));
        await ctx.rt.queues.crawl.add('crawl.start', { jobId: job.id, clientId: job.client_id }, { jobId: startJobId(job.id) });
        log.warn({ jobId: job.id, state }, 'watchdog: re-enqueued crawl.start');
      }
    } else if (job.phase === 'crawling') {
      await maybeQueueFinish(ctx, job);
    }
  }

  // Related words a completed crawl wanted and nobody learnt (the crawler stopped in between, or the
  // learn failed): learnt here, one client after another.
  for (const clientId of await staleRelatedWords(pool, staleMs)) {
    log.warn({ clientId }, 'watchdog: related words older than the last crawl; learning them');
    await rebuildRelatedWords(ctx, { client_id: clientId });
  }
}

/** Like finishIfDrained, but replaces a finish job that already ran (its result was "not ready"). */
async function maybeQueueFinish(ctx: CrawlContext, job: Pick<JobRow, 'id' | 'client_id'>): Promise<void> {
  if (!(await isFrontierDrained(ctx.rt.pool, job.id))) return;
  const queue = ctx.rt.queues.crawl.queue;
  const existing = await queue.getJob(finishJobId(job.id));
  const state = existing ? await existing.getState() : 'missing';
  if (state === 'waiting' || state === 'active' || state === 'delayed' || state === 'prioritized') return;
  if (existing) await existing.remove().catch(removeFailed(ctx.rt.log, job.id));
  await ctx.rt.queues.crawl.add('crawl.finish', { jobId: job.id, clientId: job.client_id }, { jobId: finishJobId(job.id) });
}

/**
 * A stale queue job that cannot be removed (a worker holds its lock, or Redis is away) keeps its id,
 * so the re-enqueue that follows is a no-op this tick and the next tick tries again. Logged so a
 * repair that keeps failing can be seen.
 */
function removeFailed(log: Logger, jobId: string): (err: Error) => void {
  return (err) => log.warn({ jobId, err: { message: err.message } }, 'watchdog: stale queue job not removed');
}
