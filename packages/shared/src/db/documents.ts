import { type Queryable, toVectorBinary, vectorArrayParams } from './pool.ts';

/**
 * The chunks of crawled pages and their embeddings.
 *
 * embed_job_id marks a document an admin job is waiting on; it is cleared exactly once, when the
 * embedding is written or given up on — the job's embedding counters move with that clear, so they
 * stay exact however often embed jobs are retried. embed_lease is which embed job holds the
 * document right now: two embed jobs never pay for the same document.
 */
export interface ChunkInput {
  index: number;
  heading: string | null;
  content: string;
  /** sha256 of content. */
  hash: string;
}

/** A chunk with the vector of the store's model already computed (the local model: see withLocalEmbeddings). */
export interface EmbeddedChunkInput extends ChunkInput {
  embedding: ArrayLike<number>;
  /** cl100k tokens of what was embedded. */
  tokens: number;
}

/** A page's chunks as the four parallel arrays the store functions take (unnest in SQL). */
export function chunkColumns(chunks: readonly ChunkInput[]): [number[], (string | null)[], string[], string[]] {
  return [chunks.map((c) => c.index), chunks.map((c) => c.heading), chunks.map((c) => c.content), chunks.map((c) => c.hash)];
}

/**
 * The chunks' own vectors and tokens as the store functions' last two arguments, their parameters
 * numbered from `first`: each vector a binary parameter in an ARRAY[…], so one statement per chunk
 * count (`name` is suffixed with it). Nothing when the chunks were not embedded.
 */
export function chunkEmbeddingArgs(
  chunks: readonly (ChunkInput | EmbeddedChunkInput)[],
  first: number,
): { sql: string; values: unknown[]; nameSuffix: string } {
  if (chunks.length === 0 || !chunks.every((c): c is EmbeddedChunkInput => 'embedding' in c))
    return { sql: '', values: [], nameSuffix: '' };
  const vectors = vectorArrayParams(
    chunks.map((c) => c.embedding),
    first + 1,
  );
  return {
    sql: `, ${vectors.sql}, $${first}::int[]`,
    values: [chunks.map((c) => c.tokens), ...vectors.values],
    nameSuffix: `_${chunks.length}`,
  };
}

/**
 * Swaps a page's chunks (call inside the page's storing transaction). A new chunk whose title,
 * heading and content equal an old one's keeps that embedding: an edit to one paragraph costs
 * the tokens of the chunks it touched, not the page's. Failing that, an identical chunk embedded
 * with the current model on another page of the client lends its vector (boilerplate blocks, a
 * page that moved to a new URL). Returns how many documents were created and the ids of those that
 * wait for an embedding (embed_job_id = jobId), so the caller can enqueue them without reading
 * them back. The statement is kbchat_replace_page_documents (packages/shared/sql/store-page.sql),
 * which the crawler's one-call page store runs too.
 */
export async function replacePageDocuments(
  db: Queryable,
  input: {
    clientId: string;
    sourceId: string;
    pageId: string;
    jobId: string;
    url: string;
    title: string;
    /** With their vectors when the caller embedded them (withLocalEmbeddings: the local model). */
    chunks: ChunkInput[] | EmbeddedChunkInput[];
    model: string;
  },
): Promise<{ created: number; embedded: number; embeddingTokens: number; pendingIds: string[] }> {
  const own = chunkEmbeddingArgs(input.chunks, 12);
  const { rows } = await db.query<{ created: number; embedded: number; embedding_tokens: number; pending_ids: string[] }>({
    name: `kbchat_replace_page_documents${own.nameSuffix}`,
    text: `SELECT created, embedded, embedding_tokens, pending_ids
             FROM kbchat_replace_page_documents($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11${own.sql})`,
    values: [
      input.pageId,
      input.clientId,
      input.sourceId,
      input.url,
      input.title,
      input.jobId,
      ...chunkColumns(input.chunks),
      input.model,
      ...own.values,
    ],
  });
  const row = rows[0];
  return {
    created: row?.created ?? 0,
    embedded: row?.embedded ?? 0,
    embeddingTokens: row?.embedding_tokens ?? 0,
    pendingIds: row?.pending_ids ?? [],
  };
}

export async function pageDocumentsAwaiting(db: Queryable, pageId: string, jobId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM documents WHERE page_id = $1 AND embed_job_id = $2 ORDER BY chunk_index',
    [pageId, jobId],
  );
  return rows.map((r) => r.id);
}

/**
 * generate-embeddings: puts every document of the client without an embedding of `model` on the
 * job's list. skipped = documents that already have one.
 */
export async function markClientDocumentsForEmbedding(
  db: Queryable,
  input: { clientId: string; jobId: string; model: string },
): Promise<{ marked: number; skipped: number }> {
  const { rows } = await db.query<{ marked: string; skipped: string }>(
    `WITH marked AS (
       UPDATE documents SET embed_job_id = $2
        WHERE client_id = $1 AND (embedding IS NULL OR embedding_model IS DISTINCT FROM $3)
        RETURNING 1
     )
     SELECT (SELECT count(*) FROM marked) AS marked,
            (SELECT count(*) FROM documents WHERE client_id = $1 AND embedding IS NOT NULL AND embedding_model = $3) AS skipped`,
    [input.clientId, input.jobId, input.model],
  );
  return { marked: Number(rows[0]?.marked ?? 0), skipped: Number(rows[0]?.skipped ?? 0) };
}

export async function documentIdsAwaiting(db: Queryable, jobId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM documents WHERE embed_job_id = $1 ORDER BY page_id, chunk_index', [
    jobId,
  ]);
  return rows.map((r) => r.id);
}

export async function hasDocumentsAwaiting(db: Queryable, jobId: string): Promise<boolean> {
  const { rows } = await db.query<{ any: boolean }>('SELECT EXISTS (SELECT 1 FROM documents WHERE embed_job_id = $1) AS any', [jobId]);
  return Boolean(rows[0]?.any);
}

export interface ClaimedDocument {
  id: string;
  title: string;
  heading: string | null;
  content: string;
  embed_job_id: string | null;
}

/*
 * Row locks on documents are FOR NO KEY UPDATE, never FOR UPDATE: writing a row that references a
 * document (lsa_chunks when the related words are rebuilt, while embeddings are still being written)
 * takes FOR KEY SHARE on it, which FOR UPDATE conflicts with — that deadlocked the embedder against
 * the rebuild, and made SKIP LOCKED pass over leased documents so an embed job ended with them unwritten.
 */

/**
 * Leases documents for embedding: those of `ids`, and — when jobId is given — any other document
 * the same admin job waits on (so many small per-page jobs coalesce into full API batches).
 * Only documents still awaiting that job (embed_job_id = jobId, or NULL without a jobId) and still
 * lacking a `model` embedding; never one another live lease holds. A retry of the same owner
 * takes its own leases back.
 */
export async function leaseDocumentsForEmbedding(
  db: Queryable,
  input: { clientId: string; ids: string[]; jobId: string | null; owner: string; leaseMs: number; model: string; limit: number },
): Promise<ClaimedDocument[]> {
  const { rows } = await db.query<ClaimedDocument>(
    `UPDATE documents d SET embed_lease = $4, embed_lease_until = now() + make_interval(secs => $5::double precision / 1000)
      WHERE d.id IN (
        SELECT id FROM documents
         WHERE client_id = $1
           -- Spelt out per case so the planner uses documents_embed_job_idx for a job's documents
           -- (IS NOT DISTINCT FROM cannot use an index: every lease read the whole tenant).
           AND (($3::uuid IS NOT NULL AND embed_job_id = $3::uuid) OR ($3::uuid IS NULL AND embed_job_id IS NULL AND id = ANY ($2::uuid[])))
           AND (embedding IS NULL OR embedding_model IS DISTINCT FROM $6)
           AND (embed_lease IS NULL OR embed_lease = $4 OR embed_lease_until < now())
         ORDER BY (id = ANY ($2::uuid[])) DESC, page_id, chunk_index
         LIMIT $7
         FOR NO KEY UPDATE SKIP LOCKED)
      RETURNING d.id, d.title, d.heading, d.content, d.embed_job_id`,
    [input.clientId, input.ids, input.jobId, input.owner, input.leaseMs, input.model, input.limit],
  );
  return rows;
}

export interface EmbeddingWrite {
  id: string;
  vector: readonly number[];
  tokens: number;
}

/**
 * Stores embeddings of documents this owner still holds, and takes them off their job's list.
 * Returns, per admin job, how many documents and tokens were written (for its counters).
 */
export async function writeEmbeddings(
  db: Queryable,
  input: { clientId: string; owner: string; model: string; rows: EmbeddingWrite[] },
): Promise<Map<string | null, { documents: number; tokens: number }>> {
  if (input.rows.length === 0) return new Map();
  // One (id, vector, tokens) row of parameters per document, the vector a binary parameter.
  const values: unknown[] = [input.clientId, input.owner, input.rows.map((r) => r.id), input.model];
  const tuples = input.rows.map((r) => {
    values.push(r.id, toVectorBinary(r.vector), r.tokens);
    const n = values.length;
    return `($${n - 2}::uuid, $${n - 1}::vector, $${n}::int)`;
  });
  const { rows } = await db.query<{ job_id: string | null; tokens: number }>(
    // id = ANY: the rows are found through the primary key. A join with the input made the
    // planner read every row of the tenant (by client_id) for each batch of 256.
    `WITH input (id, vec, tokens) AS (
       VALUES ${tuples.join(', ')}
     ), held AS (
       SELECT d.id, d.embed_job_id FROM documents d
        WHERE d.id = ANY ($3::uuid[]) AND d.client_id = $1 AND d.embed_lease = $2
        FOR NO KEY UPDATE OF d
     )
     UPDATE documents d SET embedding = i.vec, embedding_model = $4, token_count = i.tokens,
                            embed_job_id = NULL, embed_lease = NULL, embed_lease_until = NULL
       FROM input i, held h
      WHERE d.id = i.id AND h.id = d.id
      RETURNING h.embed_job_id AS job_id, i.tokens`,
    values,
  );
  return groupByJob(rows);
}

/** Documents this owner leased and has not written (an embed job must not end while any are left). */
export async function leasedUnwritten(db: Queryable, clientId: string, owner: string, model: string): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM documents
      WHERE client_id = $1 AND embed_lease = $2 AND embed_lease_until > now()
        AND (embedding IS NULL OR embedding_model IS DISTINCT FROM $3)`,
    [clientId, owner, model],
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * Gives up on the documents this owner holds (and the listed ones no live lease holds): they stay
 * stored without an embedding, off their job's list. Returns the count per admin job.
 */
export async function releaseFailedDocuments(
  db: Queryable,
  input: { clientId: string; owner: string; ids: string[]; jobId: string | null },
): Promise<Map<string | null, { documents: number; tokens: number }>> {
  const { rows } = await db.query<{ job_id: string | null; tokens: number }>(
    `WITH held AS (
       SELECT id, embed_job_id FROM documents
        WHERE client_id = $1 AND embed_job_id IS NOT NULL
          AND (embed_lease = $2 OR (id = ANY ($3::uuid[]) AND embed_job_id IS NOT DISTINCT FROM $4::uuid
                                    AND (embed_lease IS NULL OR embed_lease_until < now())))
        FOR NO KEY UPDATE
     )
     UPDATE documents d SET embed_job_id = NULL, embed_lease = NULL, embed_lease_until = NULL
       FROM held h WHERE d.id = h.id
      RETURNING h.embed_job_id AS job_id, 0 AS tokens`,
    [input.clientId, input.owner, input.ids, input.jobId],
  );
  // Leases of documents that were not on a job's list (an embed job without an admin job).
  await db.query('UPDATE documents SET embed_lease = NULL, embed_lease_until = NULL WHERE client_id = $1 AND embed_lease = $2', [
    input.clientId,
    input.owner,
  ]);
  return groupByJob(rows);
}

function groupByJob(rows: { job_id: string | null; tokens: number }[]): Map<string | null, { documents: number; tokens: number }> {
  const out = new Map<string | null, { documents: number; tokens: number }>();
  for (const r of rows) {
    const e = out.get(r.job_id) ?? { documents: 0, tokens: 0 };
    e.documents += 1;
    e.tokens += Number(r.tokens);
    out.set(r.job_id, e);
  }
  return out;
}

/** Active admin jobs with documents no live lease holds (the embed watchdog re-enqueues them). */
export async function jobsWithUnleasedDocuments(
  db: Queryable,
  queue: string,
  limit = 100,
): Promise<{ job_id: string; client_id: string; document_id: string }[]> {
  const { rows } = await db.query<{ job_id: string; client_id: string; document_id: string }>(
    `SELECT DISTINCT ON (d.embed_job_id) d.embed_job_id AS job_id, d.client_id, d.id AS document_id
       FROM documents d JOIN jobs j ON j.id = d.embed_job_id
      WHERE d.embed_job_id IS NOT NULL AND j.status = 'active' AND coalesce(j.options ->> 'queue', $2) = $2
        AND (d.embed_lease IS NULL OR d.embed_lease_until < now())
      ORDER BY d.embed_job_id, d.id
      LIMIT $1`,
    [limit, queue],
  );
  return rows;
}

export interface DocumentStats {
  total: number;
  embedded: number;
  byModel: Record<string, number>;
}

export async function documentStats(db: Queryable, clientId: string): Promise<DocumentStats> {
  const { rows } = await db.query<{ model: string | null; n: string }>(
    `SELECT CASE WHEN embedding IS NULL THEN NULL ELSE embedding_model END AS model, count(*) AS n
       FROM documents WHERE client_id = $1 GROUP BY 1`,
    [clientId],
  );
  const stats: DocumentStats = { total: 0, embedded: 0, byModel: {} };
  for (const r of rows) {
    const n = Number(r.n);
    stats.total += n;
    if (r.model !== null) {
      stats.embedded += n;
      stats.byModel[r.model] = n;
    }
  }
  return stats;
}

export interface DocumentListRow {
  id: string;
  url: string;
  title: string;
  heading: string | null;
  chunk_index: number;
  token_count: number | null;
  embedding_model: string | null;
  content_preview: string;
  source_id: string | null;
}

export async function listDocuments(db: Queryable, clientId: string, page: { limit: number; offset: number }): Promise<DocumentListRow[]> {
  const { rows } = await db.query<DocumentListRow>(
    `SELECT id, url, title, heading, chunk_index, token_count, source_id,
            CASE WHEN embedding IS NULL THEN NULL ELSE embedding_model END AS embedding_model,
            left(content, 200) AS content_preview
       FROM documents WHERE client_id = $1
      ORDER BY url, chunk_index, id
      LIMIT $2 OFFSET $3`,
    [clientId, page.limit, page.offset],
  );
  return rows;
}
