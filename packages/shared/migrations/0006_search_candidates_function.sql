-- Up Migration
-- Candidate search for hybrid retrieval (packages/shared/src/db/retrieval.ts, docs/retrieval.md) as one
-- function: the tenant-size probe, the off-topic probes, the vector list (exact or HNSW) and the
-- full-text list with every candidate's signals, in ONE round trip instead of five (BEGIN, probe,
-- vector list, candidates, COMMIT). On this kind of machine a round trip costs ~0.2 ms of the
-- gateway's CPU in socket writes alone; the function took the chat request's Node CPU from ~2.5 to
-- ~1.6 ms (bench/chat.ts). PL/pgSQL also keeps each statement's plan cached per backend, which the
-- embedded PGlite (one backend behind a connection multiplexer) cannot do with named statements.
--
-- Settings are transaction-local (set_config(..., true)): gone when the calling statement's
-- transaction ends. enable_sort is off only while the HNSW statement is planned and run: with sorts
-- allowed the planner reads the tenant's TOASTed vectors exactly (~10 µs a row), and planning the
-- full-text statement with sorts penalised turns 4 ms into a second.
--
-- With no documents for the tenant, one row of NULL candidate columns carries scan 'none' and the
-- query's lexemes; otherwise every row carries the same scan/query_terms/absent_terms.
CREATE FUNCTION kbchat_search_candidates(
  p_client uuid,
  p_model text,
  p_vector vector,
  p_k int,
  p_query text,
  p_fulltext boolean,
  p_exact_max int,
  p_exact_factor float8,
  p_exact_min int,
  p_ef_search int)
RETURNS TABLE (
  id uuid, page_id uuid, url text, title text, heading text, content text, content_hash text,
  vector_rank bigint, fts_rank bigint, similarity float8, matched_terms int, page_chunks int,
  scan text, query_terms text[], absent_terms int)
LANGUAGE plpgsql
-- Each statement is planned once per backend and the plan reused: with the default, the statements
-- whose custom plans look cheaper (the HNSW list, the probes) were re-planned on every call, ~0.8 ms
-- of backend CPU a search (median of 6 alternating runs of 300 searches: 4.80 -> 3.97 ms). Each plan
-- is built under the settings its statement always runs with (enable_sort off for the HNSW list only).
SET plan_cache_mode = force_generic_plan
AS $fn$
#variable_conflict use_column
DECLARE
  v_n int;
  v_exact boolean;
  v_terms text[];
  v_absent int;
  v_ids uuid[] := '{}';
  v_dists float8[] := '{}';
  v_scan text := 'none';
BEGIN
  -- Counting stops past the threshold, so a big tenant costs no more than a small one here.
  SELECT count(*)::int INTO v_n FROM (SELECT 1 FROM documents d WHERE d.client_id = p_client LIMIT p_exact_max + 1) x;
  -- The question's lexemes (English configuration: stemmed, stop words dropped), and how many of
  -- them no document of the tenant contains (one GIN probe each): the off-topic gate's signal.
  v_terms := tsvector_to_array(to_tsvector('english', p_query));
  SELECT count(*)::int INTO v_absent FROM unnest(v_terms) AS t(lexeme)
   WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.client_id = p_client AND d.fts @@ quote_literal(t.lexeme)::tsquery);
  IF v_n = 0 THEN
    RETURN QUERY SELECT NULL::uuid, NULL::uuid, NULL::text, NULL::text, NULL::text, NULL::text, NULL::text,
      NULL::bigint, NULL::bigint, NULL::float8, NULL::int, NULL::int, 'none'::text, v_terms, v_absent;
    RETURN;
  END IF;
  -- Exact scan or HNSW: at most p_exact_min documents, exact; more than p_exact_max, HNSW; between,
  -- exact when n² ≤ factor·N (N: rows in the table; factor = EXACT_SCAN_FACTOR·k), i.e. when the tenant
  -- is too small a share of the graph for an HNSW walk (~k·N/n tuples visited) to beat reading n rows.
  SELECT v_n <= p_exact_max AND (v_n <= p_exact_min OR v_n::float8 * v_n <= p_exact_factor * greatest(c.reltuples, 0))
    INTO v_exact FROM pg_class c WHERE c.oid = 'documents'::regclass;
  IF p_vector IS NOT NULL THEN
    IF NOT v_exact THEN
      -- Iterative scan: filtering by client keeps walking the graph until k rows of this tenant are
      -- found (relaxed_order may return them slightly out of order: array_agg re-sorts).
      PERFORM set_config('hnsw.iterative_scan', 'relaxed_order', true),
              set_config('hnsw.ef_search', p_ef_search::text, true),
              set_config('enable_sort', 'off', true);
      SELECT coalesce(array_agg(s.id ORDER BY s.dist, s.id), '{}'), coalesce(array_agg(s.dist ORDER BY s.dist, s.id), '{}')
        INTO v_ids, v_dists
        FROM (SELECT d.id, d.embedding <=> p_vector AS dist FROM documents d
               WHERE d.client_id = p_client AND d.embedding_model = p_model AND d.embedding IS NOT NULL
               ORDER BY d.embedding <=> p_vector
               LIMIT p_k) s;
      PERFORM set_config('enable_sort', 'on', true);
      v_scan := 'hnsw';
    END IF;
    -- Exact: `(embedding <=> q) + 0` is not index-orderable, so the planner reads the tenant's rows
    -- (btree on client_id) and sorts. Also when HNSW found fewer than k: the graph ran out
    -- (hnsw.max_scan_tuples) before k rows of this tenant, or the tenant has fewer than k embedded
    -- with this model; the exact scan settles which.
    IF v_exact OR cardinality(v_ids) < p_k THEN
      SELECT coalesce(array_agg(s.id ORDER BY s.dist, s.id), '{}'), coalesce(array_agg(s.dist ORDER BY s.dist, s.id), '{}')
        INTO v_ids, v_dists
        FROM (SELECT d.id, (d.embedding <=> p_vector) + 0 AS dist FROM documents d
               WHERE d.client_id = p_client AND d.embedding_model = p_model AND d.embedding IS NOT NULL
               ORDER BY (d.embedding <=> p_vector) + 0
               LIMIT p_k) s;
      v_scan := CASE WHEN v_exact THEN 'exact' ELSE 'hnsw+exact' END;
    END IF;
  END IF;
  -- The full-text list, with OR semantics: plainto_tsquery ANDs every lexeme, which misses any chunk
  -- that lacks one word of a conversational question; Postgres prints the tsquery with correctly
  -- quoted lexemes, so swapping its & for | is safe. ts_rank orders by how often and where (title and
  -- heading weigh A) the lexemes occur. Only chunks with at least two of the query's lexemes are
  -- ranked (`pairs`: any two, through the GIN index; NULL for a one-lexeme query, which then matches
  -- on its word): ranking every chunk that shares one common word was most of a chat request's
  -- database time. Equal scores (common: ts_rank of short chunks) go by page URL and chunk order, not
  -- by the random ids a re-crawl changes, so the same question keeps its list across crawls and
  -- databases. Then both lists' chunks with the signals ranking needs.
  RETURN QUERY
  WITH v AS (SELECT u.id, u.dist, u.rank FROM unnest(v_ids, v_dists) WITH ORDINALITY AS u(id, dist, rank)),
  q AS (SELECT replace(plainto_tsquery('english', p_query)::text, ' & ', ' | ')::tsquery AS tsq,
              (SELECT string_agg(quote_literal(a) || ' & ' || quote_literal(b), ' | ')
                 FROM unnest(v_terms) a, unnest(v_terms) b WHERE a < b)::tsquery AS pairs),
  f AS (
    SELECT s.id, row_number() OVER (ORDER BY s.score DESC, s.url, s.chunk_index) AS rank FROM (
      SELECT d.id, d.url, d.chunk_index, ts_rank(d.fts, q.tsq) AS score FROM documents d, q
       WHERE p_fulltext AND d.client_id = p_client AND d.fts @@ coalesce(q.pairs, q.tsq)
       ORDER BY score DESC, d.url, d.chunk_index
       LIMIT p_k) s)
  SELECT d.id, d.page_id, d.url, d.title, d.heading, d.content, d.content_hash,
         v.rank, f.rank,
         -- The vector list's chunks carry their distance; only full-text-only ones are compared here
         -- (each comparison reads a TOASTed 6 KB vector).
         CASE WHEN v.dist IS NOT NULL THEN 1 - v.dist
              WHEN d.embedding_model = p_model AND p_vector IS NOT NULL THEN 1 - (d.embedding <=> p_vector) END,
         -- Lexemes the chunk holds of the query's: ts_delete drops them, length counts what went.
         length(d.fts) - length(ts_delete(d.fts, v_terms)),
         coalesce((SELECT max(x.chunk_index) + 1 FROM documents x WHERE x.page_id = d.page_id), 1)::int,
         v_scan, v_terms, v_absent
    FROM documents d
    LEFT JOIN v ON v.id = d.id
    LEFT JOIN f ON f.id = d.id
   WHERE d.client_id = p_client AND d.id IN (SELECT v.id FROM v UNION SELECT f.id FROM f);
END
$fn$;

-- Down Migration
DROP FUNCTION IF EXISTS kbchat_search_candidates(uuid, text, vector, int, text, boolean, int, float8, int, int);
