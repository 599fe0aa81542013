import { compileScope } from '@kbchat/shared/crawl/scope';
import { isSameSite, normalizeUrl } from '@kbchat/shared/crawl/url';
import { type Candidate, claimChildren, isFrontierDrained } from '@kbchat/shared/db/crawl-urls';
import type { CrawlJobRow } from '@kbchat/shared/jobs/job-data';
import { finishJobId, pageJobId } from '@kbchat/shared/pipeline/job-ids';
import type { CrawlContext } from './context.ts';

/**
 * Links → frontier: normalise, keep the same site, drop what is plainly not a page, ask robots.txt,
 * claim (atomically, within maxPages) and enqueue with deterministic BullMQ job ids, so a URL
 * enqueued twice (a retried page, the watchdog) is still one job.
 */

/** File types that are never HTML pages: not worth a fetch or a slot of the maxPages budget. */
const NOT_A_PAGE =
  /\.(?:pdf|zip|gz|tgz|bz2|xz|rar|7z|tar|jpe?g|png|gif|webp|avif|svg|ico|bmp|tiff?|heic|mp[34]|m4[av]|wav|flac|aac|ogg|oga|ogv|webm|avi|mov|mkv|wmv|exe|dmg|msi|pkg|deb|rpm|apk|iso|bin|css|js|mjs|map|json|xml|rss|atom|woff2?|ttf|eot|otf|docx?|xlsx?|pptx?|odt|ods|odp|csv|tsv|txt|epub|ics|vcf)$/i;
const MAX_URL_LENGTH = 2000;

export interface PartitionedLinks {
  candidates: Candidate[];
  disallowed: (Candidate & { reason: string })[];
}

/** Same-site page links of a page, normalised and split by robots.txt; each URL once, in page order. */
export async function partitionLinks(
  ctx: CrawlContext,
  job: CrawlJobRow,
  links: readonly string[],
  depth: number,
): Promise<PartitionedLinks> {
  const { startUrl } = job.options;
  const inScope = scopeOf(job);
  const seen = new Set<string>();
  const out: PartitionedLinks = { candidates: [], disallowed: [] };
  for (const raw of links) {
    const url = normalizeUrl(raw);
    if (!url || seen.has(url) || url.length > MAX_URL_LENGTH) continue;
    seen.add(url);
    if (!isSameSite(startUrl, url)) continue;
    if (NOT_A_PAGE.test(new URL(url).pathname) || !inScope(url)) continue;
    const robots = await ctx.robots(job.id, url);
    if (robots.isAllowed(url)) out.candidates.push({ url, depth });
    else out.disallowed.push({ url, depth, reason: 'robots' });
  }
  return out;
}

/** The crawl's include / exclude patterns. The start URL is always fetched: the operator named it. */
function scopeOf(job: CrawlJobRow): (url: string) => boolean {
  const inScope = compileScope({ include: job.options.include, exclude: job.options.exclude });
  return (url) => url === job.options.startUrl || inScope(url);
}

/** Same-site links normalised (what pages.links keeps for a 304 on the next crawl). */
export function sameSiteLinks(job: CrawlJobRow, links: readonly string[]): string[] {
  const { startUrl } = job.options;
  const out = new Set<string>();
  for (const raw of links) {
    const url = normalizeUrl(raw);
    if (url && url.length <= MAX_URL_LENGTH && isSameSite(startUrl, url) && !NOT_A_PAGE.test(new URL(url).pathname)) out.add(url);
  }
  return [...out];
}

/**
 * Claims the links a page (or the seed) found and enqueues every URL that page claimed and that
 * still waits — including ones claimed by an earlier run of the same page that died before
 * enqueueing them.
 */
export async function claimAndEnqueue(ctx: CrawlContext, job: CrawlJobRow, parent: string, links: PartitionedLinks): Promise<void> {
  const queued = await claimChildren(ctx.rt.pool, job.id, {
    candidates: links.candidates,
    skipped: links.disallowed,
    parent,
    maxPages: job.options.maxPages,
  });
  await enqueuePages(ctx, job, queued);
}

export async function enqueuePages(ctx: CrawlContext, job: Pick<CrawlJobRow, 'id' | 'client_id'>, urls: Candidate[]): Promise<void> {
  for (let i = 0; i < urls.length; i += 500) {
    await ctx.rt.queues.crawl.addBulk(
      urls.slice(i, i + 500).map((u) => ({
        name: 'crawl.page' as const,
        data: { jobId: job.id, clientId: job.client_id, url: u.url, depth: u.depth },
        opts: { jobId: pageJobId(job.id, u.url) },
      })),
    );
  }
}

/** When nothing of the crawl waits or runs any more, queue its end (once: deterministic id). */
export async function finishIfDrained(ctx: CrawlContext, job: Pick<CrawlJobRow, 'id' | 'client_id'>): Promise<boolean> {
  if (!(await isFrontierDrained(ctx.rt.pool, job.id))) return false;
  await ctx.rt.queues.crawl.add('crawl.finish', { jobId: job.id, clientId: job.client_id }, { jobId: finishJobId(job.id) });
  return true;
}
