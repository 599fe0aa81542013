import { chunkSections } from '@kbchat/shared/crawl/chunker';
import { isSameSite, normalizeUrl } from '@kbchat/shared/crawl/url';
import { claimAlias, findCrawlUrl, startCrawlPage } from '@kbchat/shared/db/crawl-urls';
import { pageDocumentsAwaiting } from '@kbchat/shared/db/documents';
import { findPage, type PageRow } from '@kbchat/shared/db/pages';
import { withLocalEmbeddings } from '@kbchat/shared/embedding/embed-documents';
import { enqueueEmbedding } from '@kbchat/shared/embedding/enqueue';
import { type CrawlJobRow, hasSource, type SourcedCrawlJobRow } from '@kbchat/shared/jobs/job-data';
import { addJobNote } from '@kbchat/shared/jobs/job-store';
import { findOutboundBlockedError } from '@kbchat/shared/net/outbound';
import { isFinalAttempt } from '@kbchat/shared/queue/attempts';
import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import { extractPageWithin, ParseError } from '../web/extract-pool.ts';
import { type FetchOutcome, fetchPage } from '../web/fetch-page.ts';
import { needsRender } from '../web/render.ts';
import { type CrawlContext, ROBOTS_TOKEN } from './context.ts';
import { claimAndEnqueue, finishIfDrained, partitionLinks, sameSiteLinks } from './frontier.ts';
import type { HostSlot } from './politeness.ts';
import { extractedNow, settleNotIndexed, storeIndexedPage, storeNotModifiedPage } from './store-page.ts';

/**
 * One page of a crawl (a crawl.page job). Safe to run any number of times for one URL: the URL's
 * frontier row says whether it still needs doing, every write is idempotent or guarded by that
 * row's state, and the follow-up work (children, embeddings, the crawl's end) is re-issued with
 * deterministic job ids.
 *
 * Order matters for crash safety: links are claimed and enqueued *before* the page is settled, so
 * a crawl cannot look finished while a page's children are still unclaimed.
 */
export const NOTE_NO_CHROMIUM = 'Chromium not available: JS pages were indexed from static HTML.';
const EMBED_COALESCE_MS = 1_000;
export const NOTE_RENDER_FAILED = 'Some pages could not be rendered in Chromium and were indexed from static HTML.';

export type PageResult = { outcome: string; reason?: string; documents?: number };

interface PageData {
  jobId: string;
  clientId: string;
  url: string;
  depth: number;
}

/** Raised to have BullMQ retry the page (counts an attempt, exponential backoff). */
class RetryablePageError extends Error {
  readonly reason: string;
  readonly fetched: boolean;
  constructor(reason: string, fetched: boolean) {
    super(`retryable: ${reason}`);
    this.reason = reason;
    this.fetched = fetched;
  }
}

export async function processPage(ctx: CrawlContext, data: PageData, bullJob: Job): Promise<PageResult> {
  const { pool } = ctx.rt;
  // The crawl, the URL marked active (only when the crawl is active and this client's) and the page
  // stored for it: one statement.
  const start = await startCrawlPage(pool, { jobId: data.jobId, clientId: data.clientId, url: data.url });
  const { job } = start;
  // The crawl ended or its client was deleted meanwhile: nothing left to do.
  if (job?.status !== 'active' || job.client_id !== data.clientId || !hasSource(job)) return { outcome: 'gone' };

  if (!start.active) {
    await reissueFollowUps(ctx, job, data.url);
    return { outcome: 'already-settled' };
  }

  // Conditional GET (or none at all) only when we hold what it cannot give: the page's content, read
  // the way pages are read now, and its links.
  const found = start.page;
  const known =
    found?.status === 'indexed' && found.links !== null && found.content_hash !== null && extractedNow(found.content_hash)
      ? found
      : undefined;
  const lastmod = start.lastmod;
  if (known && lastmod !== null && known.sitemap_lastmod === lastmod) {
    // The sitemap says the page has not changed since its stored content was fetched: no request at all.
    const result = await storeUnchanged(ctx, job, data, known, { fetched: false, lastmod });
    await finishIfDrained(ctx, job);
    return result;
  }

  const finalAttempt = isFinalAttempt(bullJob);
  let slot: HostSlot | undefined;
  try {
    slot = await acquireHostSlot(ctx, job, data.url, bullJob);
    const result = await fetchAndStore(ctx, job, { ...data, known, lastmod }, () => slot?.release());
    await finishIfDrained(ctx, job);
    return result;
  } catch (err) {
    if (err instanceof DelayedError) throw err;
    if (findOutboundBlockedError(err)) {
      await settleNotIndexed(pool, job.id, data.url, { state: 'skipped', reason: 'blocked', fetched: false });
      await finishIfDrained(ctx, job);
      return { outcome: 'skipped', reason: 'blocked' };
    }
    const retryable = !(err instanceof UnrecoverableError) && (err as { retryable?: boolean }).retryable !== false;
    if (retryable && !finalAttempt) throw err;
    const reason = err instanceof RetryablePageError ? err.reason : failureReason(err);
    ctx.rt.log.warn({ jobId: job.id, url: data.url, reason, attempts: bullJob.attemptsMade + 1 }, 'page failed');
    await settleNotIndexed(pool, job.id, data.url, {
      state: 'failed',
      reason,
      fetched: err instanceof RetryablePageError ? err.fetched : false,
    });
    await finishIfDrained(ctx, job);
    return { outcome: 'failed', reason };
  } finally {
    await slot?.release();
  }
}

async function fetchAndStore(
  ctx: CrawlContext,
  job: SourcedCrawlJobRow,
  data: PageData & { known: PageRow | undefined; lastmod: string | null },
  releaseSlot: () => unknown,
): Promise<PageResult> {
  const { config, pool } = ctx.rt;
  const { startUrl } = job.options;
  const skip = async (reason: string, fetched = true): Promise<PageResult> => {
    await settleNotIndexed(pool, job.id, data.url, { state: 'skipped', reason, fetched });
    return { outcome: 'skipped', reason };
  };

  const conditional = data.known;
  const fetched: FetchOutcome = await fetchPage(ctx.http, data.url, {
    maxBytes: config.CRAWL_MAX_PAGE_BYTES,
    timeoutMs: config.CRAWL_FETCH_TIMEOUT_MS,
    etag: conditional?.etag ?? null,
    lastModified: conditional?.last_modified ?? null,
  });

  if (fetched.kind === 'not-modified') {
    await releaseSlot();
    if (!conditional) return skip('http-304');
    return storeUnchanged(ctx, job, data, conditional, { fetched: true, lastmod: data.lastmod });
  }
  if (fetched.kind === 'skipped') {
    if (fetched.retryable) throw new RetryablePageError(fetched.reason, fetched.status !== null);
    return skip(fetched.reason, fetched.status !== null);
  }

  // Where the content really lives: after redirects…
  let pageUrl = normalizeUrl(fetched.finalUrl) ?? data.url;
  if (pageUrl !== data.url) {
    if (!isSameSite(startUrl, pageUrl)) return skip('off-site');
    if (!(await ctx.robots(job.id, pageUrl)).isAllowed(pageUrl)) return skip('robots');
    if (!(await claimAsAlias(ctx, job, pageUrl, data.url))) return skip('duplicate');
  }

  // The start page keeps the site's footer (its address, phone and hours), once for the whole site.
  const extractOptions = { xRobotsTag: fetched.xRobotsTag ?? null, robotsToken: ROBOTS_TOKEN, keepFooter: data.depth === 0 };
  // Parsed on a worker thread with a deadline: a page whose parse runs away is skipped, the crawl goes on.
  const extract = (html: string, url: string) => extractPageWithin(html, url, extractOptions, config.CRAWL_PARSE_TIMEOUT_MS);
  let extracted: Awaited<ReturnType<typeof extract>>;
  try {
    extracted = await extract(fetched.html, fetched.finalUrl);
  } catch (err) {
    if (!(err instanceof ParseError)) throw err;
    await releaseSlot();
    ctx.rt.log.warn({ jobId: job.id, url: data.url, reason: err.reason }, err.message);
    return skip(err.reason);
  }
  const mode = job.options.render;
  if (mode === 'always' || (mode === 'auto' && needsRender(extracted))) {
    const renderer = await ctx.renderer();
    if (!renderer) {
      await addJobNote(pool, job.id, NOTE_NO_CHROMIUM);
    } else {
      try {
        const rendered = await renderer.render(fetched.finalUrl, { timeoutMs: config.CRAWL_RENDER_TIMEOUT_MS });
        extracted = await extract(rendered.html, rendered.finalUrl);
      } catch (err) {
        ctx.rt.log.warn({ jobId: job.id, url: data.url, err: { message: (err as Error).message } }, 'render failed');
        await addJobNote(pool, job.id, NOTE_RENDER_FAILED);
      }
    }
  }
  await releaseSlot();

  // …and after rel=canonical: the canonical URL is indexed once, its duplicates are skipped.
  const canonical = extracted.canonical ? normalizeUrl(extracted.canonical, fetched.finalUrl) : undefined;
  if (canonical && canonical !== pageUrl && isSameSite(startUrl, canonical) && (await ctx.robots(job.id, canonical)).isAllowed(canonical)) {
    if (!(await claimAsAlias(ctx, job, canonical, data.url))) return skip('duplicate');
    pageUrl = canonical;
  }

  const links = extracted.nofollow ? [] : extracted.links;
  await claimAndEnqueue(ctx, job, data.url, await partitionLinks(ctx, job, links, data.depth + 1));

  if (extracted.noindex) return skip('noindex');
  const chunks = chunkSections(extracted.sections);
  if (chunks.length === 0) return skip('empty');
  const title = (extracted.title || pageUrl).slice(0, 1000);

  const stored = await storeIndexedPage(pool, job, {
    crawlUrl: data.url,
    pageUrl,
    title,
    chunks: await withLocalEmbeddings(ctx.embeddingModel, title, chunks),
    links: extracted.nofollow ? [] : sameSiteLinks(job, links),
    etag: fetched.etag,
    lastModified: fetched.lastModified,
    httpStatus: fetched.status,
    sitemapLastmod: data.lastmod,
    model: ctx.embeddingModel,
  });
  if (!stored.stored)
    return { outcome: stored.duplicate ? 'skipped' : 'already-settled', reason: stored.duplicate ? 'duplicate' : undefined };
  await enqueuePageEmbedding(ctx, job, stored.pageId, stored.pendingIds);
  return { outcome: stored.unchanged ? 'unchanged' : 'indexed', documents: stored.created };
}

async function storeUnchanged(
  ctx: CrawlContext,
  job: SourcedCrawlJobRow,
  data: PageData,
  page: PageRow,
  how: { fetched: boolean; lastmod: string | null },
): Promise<PageResult> {
  await claimAndEnqueue(ctx, job, data.url, await partitionLinks(ctx, job, page.links ?? [], data.depth + 1));
  const stored = await storeNotModifiedPage(ctx.rt.pool, job, {
    crawlUrl: data.url,
    page,
    model: ctx.embeddingModel,
    fetched: how.fetched,
    sitemapLastmod: how.lastmod,
  });
  if (stored.stored) await enqueuePageEmbedding(ctx, job, stored.pageId, stored.pendingIds);
  return { outcome: stored.stored ? 'unchanged' : 'already-settled' };
}

/**
 * Claims the URL a fetched page really lives at. True when it is ours: newly claimed, or claimed by
 * an earlier run of this very page (a retry must not mistake its own claim for a duplicate).
 */
async function claimAsAlias(ctx: CrawlContext, job: CrawlJobRow, url: string, crawlUrl: string): Promise<boolean> {
  if (await claimAlias(ctx.rt.pool, job.id, url, crawlUrl)) return true;
  const row = await findCrawlUrl(ctx.rt.pool, job.id, url);
  return row?.state === 'alias' && row.discovered_from === crawlUrl;
}

/** ids: the page's documents waiting on the job, as its store returned them (read back when not given: a re-run). */
async function enqueuePageEmbedding(ctx: CrawlContext, job: CrawlJobRow, pageId: string, pendingIds?: string[]): Promise<void> {
  const ids = pendingIds ?? (await pageDocumentsAwaiting(ctx.rt.pool, pageId, job.id));
  if (ids.length === 0) return;
  await enqueueEmbedding(ctx.rt.queues, {
    clientId: job.client_id,
    jobId: job.id,
    documentIds: ids,
    key: `embed-${job.id}-${pageId}`,
    // A moment for the next pages' chunks to arrive: the embed job takes every document the crawl
    // waits for, so fewer, fuller requests (an API request is paid per token, but rate-limited per request).
    delayMs: EMBED_COALESCE_MS,
  });
}

/** A page settled by an earlier run that died before its follow-ups: issue them again (all idempotent). */
async function reissueFollowUps(ctx: CrawlContext, job: CrawlJobRow, url: string): Promise<void> {
  await claimAndEnqueue(ctx, job, url, { candidates: [], disallowed: [] });
  const page = await findPage(ctx.rt.pool, job.client_id, url);
  if (page?.last_job_id === job.id) await enqueuePageEmbedding(ctx, job, page.id);
  await finishIfDrained(ctx, job);
}

/**
 * A slot for the URL's host (per-host concurrency and Crawl-delay, across processes). Short waits
 * are slept; longer ones hand the worker slot back by delaying the BullMQ job.
 */
async function acquireHostSlot(ctx: CrawlContext, job: CrawlJobRow, url: string, bullJob: Job): Promise<HostSlot> {
  const host = new URL(url).host;
  const { crawlDelayMs } = await ctx.robots(job.id, url);
  for (let tries = 0; ; tries++) {
    const got = await ctx.politeness.tryAcquire(host, crawlDelayMs);
    if (got.ok) return got.slot;
    const wait = got.waitMs + Math.floor(Math.random() * 50);
    if (got.waitMs <= 1_000 && tries < 50) {
      await new Promise((r) => setTimeout(r, wait));
      continue;
    }
    await bullJob.moveToDelayed(Date.now() + wait, bullJob.token);
    throw new DelayedError();
  }
}

function failureReason(err: unknown): string {
  const e = err as { code?: string; name?: string; message?: string };
  if (e.name === 'TimeoutError' || e.code === 'ETIMEDOUT') return 'timeout';
  if (e.code && /^E[A-Z]+$/.test(e.code)) return `network: ${e.code}`;
  return `error: ${(e.message ?? String(err)).slice(0, 120)}`;
}
