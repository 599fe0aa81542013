import { type Pool, toVector, withTransaction } from './pool.ts';

/**
 * Candidate search for hybrid retrieval (docs/retrieval.md): a vector top-k and a full-text top-k
 * over one client's documents, returned together with the signals the chat service ranks and
 * filters on. Everything runs in one transaction so the `hnsw.*` settings are transaction-local:
 * the embedded PGlite shares session state between connections, so a plain SET would leak.
 */

/**
 * Break-even of exact scan (cost ∝ n rows read and compared) against a filtered HNSW walk (cost ∝
 * k·N/n tuples visited, each dearer than a sequential comparison): n² = factor·k·N. Measured on
 * native Postgres 15 + pgvector 0.8 (docs/retrieval.md).
 */
export const EXACT_SCAN_FACTOR = 1;
/** Below this, reading the tenant's rows costs about a millisecond: always exact. */
export const EXACT_SCAN_MIN_DOCS = 200;

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
  /**
   * Exact scan or HNSW: a tenant of at most EXACT_SCAN_MIN_DOCS documents is scanned exactly, one
   * of more than exactScanMaxDocs through HNSW; between them, exactly when n² ≤ EXACT_SCAN_FACTOR·k·N
   * (N: rows in the table), i.e. when the tenant is too small a share of the graph for an HNSW
   * walk (which visits about k·N/n tuples) to beat reading its n rows. 0 forces HNSW.
   */
  exactScanMaxDocs: number;
  efSearch: number;
  /** false: no full-text list (RETRIEVAL_MODE=vector, for measuring the vector list alone). */
  fullText?: boolean;
}

export interface CandidateResult {
  candidates: RetrievalCandidate[];
  /** Distinct lexemes of the query after stemming and stop words (English configuration). */
  queryTerms: string[];
  /** How many of queryTerms no document of the tenant contains. */
  absentTerms: number;
  scan: 'exact' | 'hnsw' | 'hnsw+exact' | 'none';
}

// The vector list, as ids best first. Exact: `(embedding <=> q) + 0` is not an index-orderable
// expression, so the planner walks the tenant's rows (btree on client_id) and sorts: k rows
// whenever the tenant has k. HNSW: plain `ORDER BY embedding <=> q` with iterative scan set for
// this transaction, so filtering by client keeps walking the graph until k rows of this tenant
// are found (relaxed_order may return them slightly out of order: array_agg re-sorts).
// This statement is planned with enable_sort off when the HNSW branch was chosen (see prep), and
// switches it back on once it has run (an InitPlan, evaluated once): planning the full-text and
// details statement with sorts penalised turns 4 ms into a second.
const VECTOR_EXACT = `
  SELECT coalesce(array_agg(id ORDER BY dist, id), '{}') AS ids, (SELECT set_config('enable_sort', 'on', true)) AS sort
    FROM (SELECT id, (embedding <=> $3::vector) + 0 AS dist FROM documents
           WHERE client_id = $1 AND embedding_model = $2 AND embedding IS NOT NULL
           ORDER BY (embedding <=> $3::vector) + 0
           LIMIT $4) s`;
const VECTOR_HNSW = `
  SELECT coalesce(array_agg(id ORDER BY dist, id), '{}') AS ids, (SELECT set_config('enable_sort', 'on', true)) AS sort
    FROM (SELECT id, embedding <=> $3::vector AS dist FROM documents
           WHERE client_id = $1 AND embedding_model = $2 AND embedding IS NOT NULL
           ORDER BY embedding <=> $3::vector
           LIMIT $4) s`;

// The full-text list, with OR semantics: plainto_tsquery ANDs every lexeme, which misses any chunk
// that lacks one word of a conversational question. Postgres prints the tsquery with correctly
// quoted lexemes, so swapping its & for | is safe. ts_rank orders by how often and where (title
// and heading weigh A) the lexemes occur. Only chunks with at least two of the query's lexemes
// are ranked (`pairs`: any two, found through the GIN index; NULL for a one-lexeme query, which
// then matches on its word): ranking every chunk that shares one common word was most of a chat
// request's database time (bench/chat.ts). Then both lists' chunks with the signals ranking needs.
const CANDIDATES = `
  WITH v AS (SELECT u.id, u.rank FROM unnest($7::uuid[]) WITH ORDINALITY AS u(id, rank)),
  q AS (SELECT replace(plainto_tsquery('english', $5)::text, ' & ', ' | ')::tsquery AS tsq,
              (SELECT string_agg(quote_literal(a) || ' & ' || quote_literal(b), ' | ')
                 FROM unnest($6::text[]) a, unnest($6::text[]) b WHERE a < b)::tsquery AS pairs),
  f AS (
    SELECT id, row_number() OVER (ORDER BY score DESC, id) AS rank FROM (
      SELECT d.id, ts_rank(d.fts, q.tsq) AS score FROM documents d, q
       WHERE $8::boolean AND d.client_id = $1 AND d.fts @@ coalesce(q.pairs, q.tsq)
       ORDER BY score DESC
       LIMIT $4) s)
  SELECT d.id, d.page_id, d.url, d.title, d.heading, d.content, d.content_hash,
         v.rank AS vector_rank, f.rank AS fts_rank,
         CASE WHEN d.embedding_model = $2 AND $3::vector IS NOT NULL THEN 1 - (d.embedding <=> $3::vector) END AS similarity,
         -- Lexemes the chunk holds of the query's: ts_delete drops them, length counts what went
         -- (a third of the cost of intersecting the unnested lexeme arrays).
         length(d.fts) - length(ts_delete(d.fts, $6::text[])) AS matched_terms,
         coalesce((SELECT max(x.chunk_index) + 1 FROM documents x WHERE x.page_id = d.page_id), 1) AS page_chunks
    FROM documents d
    LEFT JOIN v ON v.id = d.id
    LEFT JOIN f ON f.id = d.id
   WHERE d.client_id = $1 AND d.id IN (SELECT id FROM v UNION SELECT id FROM f)`;

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
    // Counting stops past the threshold, so a big tenant costs no more than a small one here.
    // absent: the question's lexemes that no document of the tenant contains (one GIN probe each).
    const { rows: prep } = await tx.query<{ n: number; exact: boolean; terms: string[]; absent: number }>(
      `WITH t AS (SELECT count(*)::int AS n FROM (SELECT 1 FROM documents WHERE client_id = $1 LIMIT $3) x),
            c AS (SELECT t.n, t.n < $3 AND (t.n <= $6::int OR t.n::float8 * t.n <= $5::float8 * greatest(reltuples, 0)) AS exact
                    FROM t, pg_class WHERE pg_class.oid = 'documents'::regclass)
       SELECT c.n, c.exact,
              set_config('hnsw.iterative_scan', 'relaxed_order', true),
              set_config('hnsw.ef_search', $2::text, true),
              set_config('enable_sort', CASE WHEN c.exact THEN 'on' ELSE 'off' END, true),
              tsvector_to_array(to_tsvector('english', $4)) AS terms,
              (SELECT count(*)::int FROM unnest(tsvector_to_array(to_tsvector('english', $4))) AS t(lexeme)
                WHERE NOT EXISTS (SELECT 1 FROM documents WHERE client_id = $1 AND fts @@ quote_literal(t.lexeme)::tsquery)) AS absent
         FROM c`,
      [s.clientId, s.efSearch, s.exactScanMaxDocs + 1, s.query, EXACT_SCAN_FACTOR * s.k, EXACT_SCAN_MIN_DOCS],
    );
    const tenantDocs = prep[0]?.n ?? 0;
    const queryTerms = prep[0]?.terms ?? [];
    const absentTerms = prep[0]?.absent ?? 0;
    if (tenantDocs === 0) return { candidates: [], queryTerms, absentTerms, scan: 'none' };

    const vector = s.embedding ? toVector(s.embedding) : null;
    const params = [s.clientId, s.embeddingModel, vector, s.k];
    let ids: string[] = [];
    let scan: CandidateResult['scan'] = 'none';
    if (vector) {
      const exact = prep[0]?.exact === true;
      ids = (await tx.query<{ ids: string[] }>(exact ? VECTOR_EXACT : VECTOR_HNSW, params)).rows[0]?.ids ?? [];
      scan = exact ? 'exact' : 'hnsw';
      if (!exact && ids.length < s.k) {
        // The graph ran out (hnsw.max_scan_tuples) before finding k rows of this tenant, or the
        // tenant has fewer than k embedded with this model: the exact scan settles which.
        ids = (await tx.query<{ ids: string[] }>(VECTOR_EXACT, params)).rows[0]?.ids ?? [];
        scan = 'hnsw+exact';
      }
    } else if (prep[0]?.exact !== true) {
      await tx.query("SELECT set_config('enable_sort', 'on', true)");
    }
    const { rows } = await tx.query<CandidateRow>(CANDIDATES, [...params, s.query, queryTerms, ids, s.fullText !== false]);
    return { candidates: rows.map(toCandidate), queryTerms, absentTerms, scan };
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
