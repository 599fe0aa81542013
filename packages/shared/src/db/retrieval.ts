import { type Pool, toVector, withTransaction } from './pool.ts';

/**
 * Candidate search for hybrid retrieval (docs/retrieval.md): a vector top-k and a full-text top-k
 * over one client's documents, returned together with the signals the chat service ranks and
 * filters on. Everything runs in one transaction so the `hnsw.*` settings are transaction-local:
 * the embedded PGlite shares session state between connections, so a plain SET would leak.
 */

export interface RetrievalCandidate {
  id: string;
  pageId: string | null;
  url: string;
  title: string;
  heading: string | null;
  content: string;
  contentHash: string;
  /** 1-based rank in the vector list, null when not in it. */
  vectorRank: number | null;
  /** 1-based rank in the full-text list, null when not in it. */
  ftsRank: number | null;
  /** Cosine similarity to the query (null when the chunk has no embedding of the current model). */
  similarity: number | null;
  /** How many distinct query lexemes the chunk contains (title and heading included). */
  matchedTerms: number;
  /** Chunks of the chunk's page: the more specific page wins between near-duplicates. */
  pageChunks: number;
}

export interface CandidateSearch {
  clientId: string;
  /** Only documents embedded by this model are comparable with the query vector. */
  embeddingModel: string;
  /** Undefined when the query could not be embedded: full-text only. */
  embedding: readonly number[] | undefined;
  query: string;
  /** Rows per list. */
  k: number;
  /** A tenant with at most this many documents is scanned exactly; above it, HNSW with iterative scan. */
  exactScanMaxDocs: number;
  efSearch: number;
}

export interface CandidateResult {
  candidates: RetrievalCandidate[];
  /** Distinct lexemes of the query after stemming and stop words (English configuration). */
  queryTerms: string[];
  scan: 'exact' | 'hnsw' | 'hnsw+exact' | 'none';
}

// The vector list. Exact: `(embedding <=> q) + 0` is not an index-orderable expression, so the
// planner walks the tenant's rows (btree on client_id) and sorts: k rows whenever the tenant has k.
// HNSW: plain `ORDER BY embedding <=> q`, with iterative scan set for this transaction, so
// filtering by client keeps scanning the graph until k rows of this tenant are found.
const VECTOR_EXACT = `
  v AS (
    SELECT id, row_number() OVER (ORDER BY dist, id) AS rank FROM (
      SELECT id, (embedding <=> $3::vector) + 0 AS dist FROM documents
       WHERE client_id = $1 AND embedding_model = $2 AND embedding IS NOT NULL
       ORDER BY (embedding <=> $3::vector) + 0
       LIMIT $4) s)`;
const VECTOR_HNSW = `
  v AS (
    SELECT id, row_number() OVER (ORDER BY dist, id) AS rank FROM (
      SELECT id, embedding <=> $3::vector AS dist FROM documents
       WHERE client_id = $1 AND embedding_model = $2 AND embedding IS NOT NULL
       ORDER BY embedding <=> $3::vector
       LIMIT $4) s)`;
const VECTOR_NONE = `
  v AS (SELECT NULL::uuid AS id, NULL::bigint AS rank WHERE false)`;

// The full-text list, with OR semantics: plainto_tsquery ANDs every lexeme, which misses any chunk
// that lacks one word of a conversational question. Postgres prints the tsquery with correctly
// quoted lexemes, so swapping its & for | is safe. ts_rank orders by how often and where (title
// and heading weigh A) the lexemes occur.
const FTS = `
  q AS (SELECT replace(plainto_tsquery('english', $5)::text, ' & ', ' | ')::tsquery AS tsq),
  f AS (
    SELECT id, row_number() OVER (ORDER BY score DESC, id) AS rank FROM (
      SELECT d.id, ts_rank(d.fts, q.tsq) AS score FROM documents d, q
       WHERE d.client_id = $1 AND d.fts @@ q.tsq
       ORDER BY score DESC
       LIMIT $4) s)`;

const DETAILS = `
  SELECT d.id, d.page_id, d.url, d.title, d.heading, d.content, d.content_hash,
         v.rank AS vector_rank, f.rank AS fts_rank,
         CASE WHEN d.embedding_model = $2 AND $3::vector IS NOT NULL THEN 1 - (d.embedding <=> $3::vector) END AS similarity,
         cardinality(ARRAY(SELECT unnest(tsvector_to_array(d.fts)) INTERSECT SELECT unnest($6::text[]))) AS matched_terms,
         coalesce((SELECT max(x.chunk_index) + 1 FROM documents x WHERE x.page_id = d.page_id), 1) AS page_chunks
    FROM documents d
    LEFT JOIN v ON v.id = d.id
    LEFT JOIN f ON f.id = d.id
   WHERE d.client_id = $1 AND d.id IN (SELECT id FROM v UNION SELECT id FROM f)`;

const sql = (vector: string) => `WITH ${vector},${FTS}\n${DETAILS}`;
const SEARCH_EXACT = sql(VECTOR_EXACT);
const SEARCH_HNSW = sql(VECTOR_HNSW);
const SEARCH_FTS_ONLY = sql(VECTOR_NONE);

interface CandidateRow {
  id: string;
  page_id: string | null;
  url: string;
  title: string;
  heading: string | null;
  content: string;
  content_hash: string;
  vector_rank: string | null;
  fts_rank: string | null;
  similarity: number | null;
  matched_terms: number;
  page_chunks: number;
}

export async function searchCandidates(pool: Pool, s: CandidateSearch): Promise<CandidateResult> {
  return withTransaction(pool, async (tx) => {
    // set_config(..., true) is SET LOCAL: gone at COMMIT, invisible to other transactions.
    // Counting stops at the threshold, so a big tenant costs no more than a small one here.
    // Above the threshold the HNSW index must be used even where the planner's estimate for this
    // client would pick the btree and sort every row: enable_sort off makes the ordered index
    // scan the only plan without a penalised sort (the full-text list and the window functions
    // must sort anyway, so their plans do not change).
    const { rows: prep } = await tx.query<{ n: number; terms: string[] }>(
      `WITH t AS (SELECT count(*)::int AS n FROM (SELECT 1 FROM documents WHERE client_id = $1 LIMIT $3) x)
       SELECT t.n,
              set_config('hnsw.iterative_scan', 'relaxed_order', true),
              set_config('hnsw.ef_search', $2::text, true),
              set_config('enable_sort', CASE WHEN t.n >= $3 THEN 'off' ELSE 'on' END, true),
              tsvector_to_array(to_tsvector('english', $4)) AS terms
         FROM t`,
      [s.clientId, s.efSearch, s.exactScanMaxDocs + 1, s.query],
    );
    const tenantDocs = prep[0]?.n ?? 0;
    const queryTerms = prep[0]?.terms ?? [];
    if (tenantDocs === 0) return { candidates: [], queryTerms, scan: 'none' };

    const vector = s.embedding ? toVector(s.embedding) : null;
    const params = [s.clientId, s.embeddingModel, vector, s.k, s.query, queryTerms];
    if (!vector) {
      const { rows } = await tx.query<CandidateRow>(SEARCH_FTS_ONLY, params);
      return { candidates: rows.map(toCandidate), queryTerms, scan: 'none' };
    }
    if (tenantDocs <= s.exactScanMaxDocs) {
      const { rows } = await tx.query<CandidateRow>(SEARCH_EXACT, params);
      return { candidates: rows.map(toCandidate), queryTerms, scan: 'exact' };
    }
    const { rows } = await tx.query<CandidateRow>(SEARCH_HNSW, params);
    const vectorRows = rows.filter((r) => r.vector_rank !== null).length;
    if (vectorRows >= s.k) return { candidates: rows.map(toCandidate), queryTerms, scan: 'hnsw' };
    // The graph ran out (hnsw.max_scan_tuples) before finding k rows of this tenant, or the
    // tenant has fewer than k embedded with this model: the exact scan settles which.
    const { rows: exact } = await tx.query<CandidateRow>(SEARCH_EXACT, params);
    return { candidates: exact.map(toCandidate), queryTerms, scan: 'hnsw+exact' };
  });
}

function toCandidate(r: CandidateRow): RetrievalCandidate {
  return {
    id: r.id,
    pageId: r.page_id,
    url: r.url,
    title: r.title,
    heading: r.heading,
    content: r.content,
    contentHash: r.content_hash,
    vectorRank: r.vector_rank === null ? null : Number(r.vector_rank),
    ftsRank: r.fts_rank === null ? null : Number(r.fts_rank),
    similarity: r.similarity === null ? null : Number(r.similarity),
    matchedTerms: Number(r.matched_terms),
    pageChunks: Number(r.page_chunks),
  };
}
