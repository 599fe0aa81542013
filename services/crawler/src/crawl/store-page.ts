import { createHash } from 'node:crypto';
import type { Chunk } from '@kbchat/shared/crawl/chunker';
import { settleUrl } from '@kbchat/shared/db/crawl-urls';
import { keepPageDocuments, pageDocumentCount, replacePageDocuments } from '@kbchat/shared/db/documents';
import {
  findSameContentInJob,
  lockContentHash,
  lockPage,
  markPageSeen,
  type PageRow,
  recordPageChange,
  upsertIndexedPage,
} from '@kbchat/shared/db/pages';
import { type Pool, withTransaction } from '@kbchat/shared/db/pool';
import type { SourcedCrawlJobRow } from '@kbchat/shared/jobs/job-data';
import { addJobCounters } from '@kbchat/shared/jobs/job-store';

/**
 * The storing side of one page, each a single transaction that also settles the page's frontier
 * row. The settle is conditional (queued|active → done/skipped/failed), and everything else in the
 * transaction happens only when it succeeded: a page re-run after a crash or a lost lock changes
 * nothing and counts nothing a second time.
 */

/**
 * Identity of a page's content: the title and every chunk (heading and text). Hashing the chunks
 * rather than the raw text means a changed chunker re-chunks pages on the next crawl, while the
 * chunks it leaves as they were keep their embeddings (replacePageDocuments reuses them).
 */
export function pageContentHash(title: string, chunks: Chunk[]): string {
  return createHash('sha256')
    .update(JSON.stringify([title, chunks.map((c) => [c.heading, c.hash])]))
    .digest('hex');
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
  const contentHash = pageContentHash(input.title, input.chunks);
  return withTransaction(pool, async (tx) => {
    const existing = await lockPage(tx, job.client_id, input.pageUrl);
    await lockContentHash(tx, job.id, contentHash);
    const duplicate =
      (existing && existing.last_job_id === job.id && existing.url !== input.crawlUrl) ||
      (await findSameContentInJob(tx, { clientId: job.client_id, jobId: job.id, contentHash, url: input.pageUrl })) !== undefined;
    if (duplicate) {
      // This crawl already stored this page (under this URL from another frontier URL, or the same
      // content under another URL): one copy in the knowledge base, not two sources for one answer.
      const settled = await settleUrl(tx, job.id, input.crawlUrl, 'skipped', 'duplicate');
      if (settled) await addJobCounters(tx, job.id, { pages_fetched: 1, pages_skipped: 1 }, { duplicate: 1 });
      return { stored: false, duplicate: true };
    }
    if (!(await settleUrl(tx, job.id, input.crawlUrl, 'done', null))) return { stored: false };
    const sourceId = job.source_id;

    if (existing && existing.content_hash === contentHash && (await pageDocumentCount(tx, existing.id)) > 0) {
      await markPageSeen(tx, existing.id, {
        sourceId,
        jobId: job.id,
        etag: input.etag,
        lastModified: input.lastModified,
        httpStatus: input.httpStatus,
        sitemapLastmod,
        title: input.title,
        links: input.links,
      });
      const pendingIds = await keepPageDocuments(tx, { pageId: existing.id, sourceId, jobId: job.id, model: input.model });
      await addJobCounters(tx, job.id, { pages_fetched: 1, pages_indexed: 1, pages_unchanged: 1 });
      return { stored: true, pageId: existing.id, unchanged: true, created: 0, pendingIds };
    }

    const pageId = await upsertIndexedPage(tx, {
      clientId: job.client_id,
      sourceId,
      jobId: job.id,
      url: input.pageUrl,
      title: input.title,
      contentHash,
      etag: input.etag,
      lastModified: input.lastModified,
      httpStatus: input.httpStatus,
      links: input.links,
      sitemapLastmod,
    });
    await recordPageChange(tx, { jobId: job.id, sourceId, url: input.pageUrl, change: existing ? 'changed' : 'added' });
    const docs = await replacePageDocuments(tx, {
      clientId: job.client_id,
      sourceId,
      pageId,
      jobId: job.id,
      url: input.pageUrl,
      title: input.title,
      chunks: input.chunks,
      model: input.model,
    });
    await addJobCounters(tx, job.id, { pages_fetched: 1, pages_indexed: 1, documents_created: docs.created });
    return { stored: true, pageId, unchanged: false, created: docs.created, pendingIds: docs.pendingIds };
  });
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
  return withTransaction(pool, async (tx) => {
    if (!(await settleUrl(tx, job.id, input.crawlUrl, 'done', null))) return { stored: false };
    const sourceId = job.source_id;
    await markPageSeen(tx, input.page.id, {
      sourceId,
      jobId: job.id,
      httpStatus: input.fetched ? 304 : null,
      sitemapLastmod: input.sitemapLastmod,
    });
    const pendingIds = await keepPageDocuments(tx, { pageId: input.page.id, sourceId, jobId: job.id, model: input.model });
    await addJobCounters(tx, job.id, { pages_fetched: input.fetched ? 1 : 0, pages_indexed: 1, pages_unchanged: 1 });
    return { stored: true, pageId: input.page.id, unchanged: true, created: 0, pendingIds };
  });
}

/** A page not indexed: skipped for a reason (robots, noindex, 404 …) or failed after its retries. */
export async function settleNotIndexed(
  pool: Pool,
  jobId: string,
  url: string,
  outcome: { state: 'skipped' | 'failed'; reason: string; fetched: boolean },
): Promise<boolean> {
  return withTransaction(pool, async (tx) => {
    if (!(await settleUrl(tx, jobId, url, outcome.state, outcome.reason))) return false;
    const fetched = outcome.fetched ? 1 : 0;
    if (outcome.state === 'skipped') {
      await addJobCounters(tx, jobId, { pages_fetched: fetched, pages_skipped: 1 }, { [shortReason(outcome.reason)]: 1 });
    } else {
      await addJobCounters(tx, jobId, { pages_fetched: fetched, pages_failed: 1 });
    }
    return true;
  });
}

/** skipReasons keys stay few and stable: "network: ECONNRESET" counts as "network". */
function shortReason(reason: string): string {
  return reason.split(':')[0]?.trim() || 'other';
}
