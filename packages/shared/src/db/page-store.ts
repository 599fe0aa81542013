import { type ChunkInput, chunkColumns, chunkEmbeddingArgs, type EmbeddedChunkInput } from './documents.ts';
import type { PageWrite } from './pages.ts';
import type { Queryable } from './pool.ts';

/**
 * The crawler's storing transactions of one page, each one call of a PL/pgSQL function
 * (packages/shared/sql/store-page.sql, where the statements and their order are): one round trip
 * instead of a BEGIN, up to ten statements and a COMMIT. Named statements (pool.ts): bound and
 * executed, not parsed, on every call but a connection's first.
 */

export type StoreOutcome =
  | { stored: false; outcome: 'duplicate' | 'settled' }
  | { stored: true; outcome: 'unchanged' | 'indexed'; pageId: string; created: number; pendingIds: string[] };

interface StoreRow {
  outcome: 'duplicate' | 'settled' | 'unchanged' | 'indexed';
  page_id: string | null;
  created: number;
  pending_ids: string[] | null;
}

export async function storeIndexedPageRow(
  db: Queryable,
  p: Omit<PageWrite, 'url'> & { crawlUrl: string; pageUrl: string; model: string; chunks: ChunkInput[] | EmbeddedChunkInput[] },
): Promise<StoreOutcome> {
  // Chunks the crawler embedded (the local model) bring their vectors.
  const own = chunkEmbeddingArgs(p.chunks, 18);
  const { rows } = await db.query<StoreRow>({
    name: `kbchat_store_indexed_page${own.nameSuffix}`,
    text: `SELECT outcome, page_id, created, pending_ids
             FROM kbchat_store_indexed_page($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17${own.sql})`,
    values: [
      p.clientId,
      p.sourceId,
      p.jobId,
      p.crawlUrl,
      p.pageUrl,
      p.title,
      p.contentHash,
      p.etag,
      p.lastModified,
      p.httpStatus,
      p.links,
      p.sitemapLastmod,
      p.model,
      ...chunkColumns(p.chunks),
      ...own.values,
    ],
  });
  return toOutcome(rows[0]);
}

export async function storeNotModifiedPageRow(
  db: Queryable,
  p: {
    pageId: string;
    sourceId: string;
    jobId: string;
    crawlUrl: string;
    httpStatus: number | null;
    sitemapLastmod: string | null;
    model: string;
  },
): Promise<StoreOutcome> {
  const { rows } = await db.query<{ outcome: 'settled' | 'unchanged'; pending_ids: string[] | null }>({
    name: 'kbchat_store_not_modified_page',
    text: 'SELECT outcome, pending_ids FROM kbchat_store_not_modified_page($1, $2, $3, $4, $5, $6, $7)',
    values: [p.pageId, p.sourceId, p.jobId, p.crawlUrl, p.httpStatus, p.sitemapLastmod, p.model],
  });
  const row = rows[0];
  return toOutcome(row && { outcome: row.outcome, page_id: p.pageId, created: 0, pending_ids: row.pending_ids });
}

/** True only for the call that settled the frontier row (and counted the page). */
export async function settleNotIndexedRow(
  db: Queryable,
  p: { jobId: string; crawlUrl: string; state: 'skipped' | 'failed'; reason: string; skipReason: string; fetched: boolean },
): Promise<boolean> {
  const { rows } = await db.query<{ settled: boolean }>({
    name: 'kbchat_settle_not_indexed',
    text: 'SELECT kbchat_settle_not_indexed($1, $2, $3, $4, $5, $6) AS settled',
    values: [p.jobId, p.crawlUrl, p.state, p.reason, p.skipReason, p.fetched],
  });
  return rows[0]?.settled === true;
}

function toOutcome(row: StoreRow | undefined): StoreOutcome {
  if (!row) throw new Error('page store returned no row');
  if (row.outcome === 'duplicate' || row.outcome === 'settled') return { stored: false, outcome: row.outcome };
  return { stored: true, outcome: row.outcome, pageId: row.page_id as string, created: row.created, pendingIds: row.pending_ids ?? [] };
}
