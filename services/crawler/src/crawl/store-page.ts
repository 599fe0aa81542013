import { createHash } from 'node:crypto';
import type { Chunk } from '@kbchat/shared/crawl/chunker';
import { settleNotIndexedRow, storeIndexedPageRow, storeNotModifiedPageRow } from '@kbchat/shared/db/page-store';
import type { PageRow } from '@kbchat/shared/db/pages';
import type { Pool } from '@kbchat/shared/db/pool';
import type { SourcedCrawlJobRow } from '@kbchat/shared/jobs/job-data';

/**
 * The storing side of one page, each a single transaction that also settles the page's frontier
 * row. The settle is conditional (queued|active → done/skipped/failed), and everything else in the
 * transaction happens only when it succeeded: a page re-run after a crash or a lost lock changes
 * nothing and counts nothing a second time. Each transaction is one call of a PL/pgSQL function
 * (packages/shared/sql/store-page.sql): one round trip per page instead of ten.
 */

/**
 * The extraction a stored page was read with, kept as its content hash's prefix. Raise it when the
 * extraction (web/extract.ts) or the chunker changes what a page yields: a re-crawl then fetches every
 * page stored before in full — no conditional GET, no sitemap <lastmod> skip — so an unchanged page
 * is read again the new way (its unchanged chunks keep their embeddings). 2: the start page keeps the
 * site's footer; a short page keeps what the heuristic found.
 */
export const EXTRACTION = 'x2';

/** Whether a stored page's content was read with the current extraction. */
export function extractedNow(contentHash: string): boolean {
  return contentHash.startsWith(`${EXTRACTION}:`);
}

/**
 * Identity of a page's content: the title and every chunk (heading and text), under the extraction's
 * tag. Hashing the chunks rather than the raw text means a changed chunker re-chunks pages on the next
 * crawl, while the chunks it leaves as they were keep their embeddings (replacePageDocuments reuses them).
 */
export function pageContentHash(title: string, chunks: Chunk[]): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([title, chunks.map((c) => [c.heading, c.hash])]))
    .digest('hex');
  return `${EXTRACTION}:${digest}`;
}

export type StoreResult =
  | { stored: false; duplicate?: boolean }
  | {
      stored: true;
      pageId: string;
      unchanged: boolean;
      created: number;
      /** The page's documents waiting for an embedding on this job's list (to enqueue after the commit). */
      pendingIds: string[];
    };

export async function storeIndexedPage(
  pool: Pool,
  job: SourcedCrawlJobRow,
  input: {
    /** The frontier URL that was fetched. */
    crawlUrl: string;
    /** Where the content lives (after redirects and rel=canonical). */
    pageUrl: string;
    title: string;
    /** With their vectors when the crawler embedded them (withLocalEmbeddings: the local model). */
    chunks: Chunk[];
    links: string[];
    etag: string | null;
    lastModified: string | null;
    httpStatus: number;
    /** The sitemap <lastmod> of crawlUrl in this crawl (kept only when the page lives at crawlUrl). */
    sitemapLastmod: string | null;
    model: string;
  },
): Promise<StoreResult> {
  const sitemapLastmod = input.pageUrl === input.crawlUrl ? input.sitemapLastmod : null;
  // Under the page's row lock and a (job, content hash) lock: a page this crawl already stored (this
  // URL from another frontier URL, or the same content under another URL) is skipped as a duplicate —
  // one copy in the knowledge base, not two sources for one answer. Content equal to what is stored
  // (with its documents) keeps the page's documents; anything else replaces them.
  const stored = await storeIndexedPageRow(pool, {
    clientId: job.client_id,
    sourceId: job.source_id,
    jobId: job.id,
    crawlUrl: input.crawlUrl,
    pageUrl: input.pageUrl,
    title: input.title,
    contentHash: pageContentHash(input.title, input.chunks),
    etag: input.etag,
    lastModified: input.lastModified,
    httpStatus: input.httpStatus,
    links: input.links,
    sitemapLastmod,
    model: input.model,
    chunks: input.chunks,
  });
  if (!stored.stored) return stored.outcome === 'duplicate' ? { stored: false, duplicate: true } : { stored: false };
  return {
    stored: true,
    pageId: stored.pageId,
    unchanged: stored.outcome === 'unchanged',
    created: stored.created,
    pendingIds: stored.pendingIds,
  };
}

/**
 * A 304 to our conditional GET, or (fetched: false) a sitemap lastmod equal to the one the stored
 * content was fetched under: the stored page and its documents stand.
 */
export async function storeNotModifiedPage(
  pool: Pool,
  job: SourcedCrawlJobRow,
  input: { crawlUrl: string; page: PageRow; model: string; fetched: boolean; sitemapLastmod: string | null },
): Promise<StoreResult> {
  const stored = await storeNotModifiedPageRow(pool, {
    pageId: input.page.id,
    sourceId: job.source_id,
    jobId: job.id,
    crawlUrl: input.crawlUrl,
    httpStatus: input.fetched ? 304 : null,
    sitemapLastmod: input.sitemapLastmod,
    model: input.model,
  });
  if (!stored.stored) return { stored: false };
  return { stored: true, pageId: input.page.id, unchanged: true, created: 0, pendingIds: stored.pendingIds };
}

/** A page not indexed: skipped for a reason (robots, noindex, 404 …) or failed after its retries. */
export async function settleNotIndexed(
  pool: Pool,
  jobId: string,
  url: string,
  outcome: { state: 'skipped' | 'failed'; reason: string; fetched: boolean },
): Promise<boolean> {
  return settleNotIndexedRow(pool, {
    jobId,
    crawlUrl: url,
    state: outcome.state,
    reason: outcome.reason.slice(0, 300),
    skipReason: shortReason(outcome.reason),
    fetched: outcome.fetched,
  });
}

/** skipReasons keys stay few and stable: "network: ECONNRESET" counts as "network". */
function shortReason(reason: string): string {
  return reason.split(':')[0]?.trim() || 'other';
}
