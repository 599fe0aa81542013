import { normalizeUrl } from '@kbchat/shared/crawl/url';
import { isFrontierDrained, SEED_PARENT } from '@kbchat/shared/db/crawl-urls';
import { markRelatedWordsWanted } from '@kbchat/shared/db/lsa';
import { deleteGonePages } from '@kbchat/shared/db/pages';
import { withTransaction } from '@kbchat/shared/db/pool';
import { refreshTermStats } from '@kbchat/shared/db/retrieval';
import { touchSourceCrawled } from '@kbchat/shared/db/sources';
import { settleJobIfDone } from '@kbchat/shared/jobs/finish-job';
import { activateJob, addJobCounters, addJobNote, lockJob, setJobPhase, setJobRobots } from '@kbchat/shared/jobs/job-store';
import { collectSitemapUrls } from '../web/sitemap.ts';
import type { CrawlContext } from './context.ts';
import { claimAndEnqueue, finishIfDrained, partitionLinks } from './frontier.ts';
import { rebuildRelatedWords } from './related-words.ts';

/**
 * The two ends of a crawl. crawl.start reads robots.txt and the sitemaps and seeds the frontier;
 * crawl.finish (queued by whichever page drained the frontier) removes what vanished from the site
 * and hands the job to the embedding phase; the job completes when its last document is embedded
 * (settleJobIfDone). Both are idempotent: a retry finds the work done and does nothing twice.
 */

/** Sitemaps can list far more URLs than a crawl may take; reading more than this is wasted. */
const SITEMAP_URLS_PER_PAGE_OF_BUDGET = 2;

export async function startCrawl(ctx: CrawlContext, data: { jobId: string; clientId: string }): Promise<{ outcome: string }> {
  const { pool } = ctx.rt;
  // Phase stays 'pending' until the seeds are claimed: an empty frontier must not look finished.
  const job = await activateJob(pool, data.jobId, 'pending');
  if (job?.kind !== 'crawl' || job.client_id !== data.clientId) return { outcome: 'gone' };
  if (job.phase !== 'pending') return { outcome: 'already-started' };
  const { startUrl, maxPages } = job.options;

  const robots = await ctx.robots(job.id, startUrl);
  await setJobRobots(pool, job.id, {
    crawlDelayMs: robots.crawlDelayMs,
    sitemaps: robots.sitemaps,
    ...(robots.error ? { error: robots.error } : {}),
  });
  if (robots.error) await addJobNote(pool, job.id, `robots.txt could not be read (${robots.error}); crawled as if it allowed everything.`);

  const sitemapList = [...new Set([...robots.sitemaps, new URL('/sitemap.xml', startUrl).toString()])];
  let sitemapUrls: string[] = [];
  const lastmods = new Map<string, string>();
  try {
    // Sitemaps are read one after another: one slot of the host covers them all.
    sitemapUrls = await ctx.politeness.withSlot(new URL(startUrl).host, robots.crawlDelayMs, () =>
      collectSitemapUrls(ctx.http, sitemapList, Math.min(maxPages * SITEMAP_URLS_PER_PAGE_OF_BUDGET, 50_000), {
        timeoutMs: ctx.rt.config.CRAWL_FETCH_TIMEOUT_MS,
        lastmods,
        onError: (url, err) => ctx.rt.log.info({ jobId: job.id, sitemap: url, err: { message: err.message } }, 'sitemap not read'),
      }),
    );
  } catch (err) {
    ctx.rt.log.warn({ jobId: job.id, err: { message: (err as Error).message } }, 'sitemaps could not be read');
  }

  // The start URL first (whatever its extension: the fetch decides whether it is a page), then the sitemaps'.
  const fromSitemaps = await partitionLinks(ctx, job, sitemapUrls, 1);
  // A page's <lastmod>, kept with its frontier row: a re-crawl skips the page when it is unchanged.
  const lastmodOf = new Map<string, string>();
  for (const [url, lastmod] of lastmods) {
    const normalized = normalizeUrl(url);
    if (normalized) lastmodOf.set(normalized, lastmod);
  }
  for (const c of fromSitemaps.candidates) c.lastmod = lastmodOf.get(c.url) ?? null;
  const seeds = robots.isAllowed(startUrl)
    ? { candidates: [{ url: startUrl, depth: 0 }, ...fromSitemaps.candidates], disallowed: fromSitemaps.disallowed }
    : { candidates: fromSitemaps.candidates, disallowed: [{ url: startUrl, depth: 0, reason: 'robots' }, ...fromSitemaps.disallowed] };
  await claimAndEnqueue(ctx, job, SEED_PARENT, seeds);

  await setJobPhase(pool, job.id, 'crawling');
  await finishIfDrained(ctx, job);
  ctx.rt.log.info({ jobId: job.id, startUrl, sitemapUrls: sitemapUrls.length }, 'crawl started');
  return { outcome: 'started' };
}

export async function finishCrawl(ctx: CrawlContext, data: { jobId: string; clientId: string }): Promise<{ outcome: string }> {
  const drained = await withTransaction(ctx.rt.pool, async (tx) => {
    const job = await lockJob(tx, data.jobId);
    if (job?.status !== 'active' || job.phase !== 'crawling') return undefined;
    if (!(await isFrontierDrained(tx, job.id))) return undefined;
    // A crawl that indexed nothing (site down, robots.txt closed) is no evidence the pages are gone.
    if (job.pages_indexed > 0 && job.source_id) {
      const removed = await deleteGonePages(tx, { sourceId: job.source_id, jobId: job.id, capped: job.frontier_capped });
      if (removed > 0) await addJobCounters(tx, job.id, { pages_removed: removed });
      await touchSourceCrawled(tx, job.source_id);
    }
    return job;
  });
  if (!drained) return { outcome: 'not-ready' };
  const learnt = drained.pages_indexed > 0 && drained.source_id !== null;
  // The full-text ranking's word weights follow what this crawl left before the job moves on: a crawl
  // reported done ranks with them. Until then it stays "crawling": a finish retried after a crash
  // redoes this step, which is idempotent.
  if (learnt) await refreshTermStats(ctx.rt.pool, drained.client_id);
  const done = await withTransaction(ctx.rt.pool, async (tx) => {
    const job = await lockJob(tx, data.jobId);
    if (job?.status !== 'active' || job.phase !== 'crawling') return undefined;
    await setJobPhase(tx, job.id, 'embedding');
    // Wanted in the transaction that lets the job complete: a crawler that stops before it learns
    // them leaves them stale, and the crawl watchdog learns them (staleRelatedWords).
    if (learnt) await markRelatedWordsWanted(tx, job.client_id);
    return (await settleJobIfDone(tx, job.id)) ?? job;
  });
  if (!done) return { outcome: 'not-ready' };
  ctx.rt.log.info({ jobId: done.id, status: done.status, pagesIndexed: done.pages_indexed }, 'crawl frontier drained');
  // The related words are learnt after the job may have completed: seconds of CPU for a large site
  // (docs/performance.md 1a) during which the pages already answer by their words and vectors.
  if (learnt) await rebuildRelatedWords(ctx, done);
  return { outcome: done.status };
}
