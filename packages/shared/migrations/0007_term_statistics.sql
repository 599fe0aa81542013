-- Up Migration
-- Term statistics per tenant, and a full-text list ranked by them (docs/retrieval.md, docs/performance.md).
--
-- ts_rank knows nothing of how common a word is: on the Node.js docs eval its full-text list found
-- the answering page in the top 5 for 0.528 of the questions, plain BM25 for 0.750, and a question's
-- common words ("use", "file", "node") made hundreds of chunks candidates.
-- BM25's idf needs each lexeme's document frequency in the tenant's chunks: kept in term_stats,
-- refreshed when a crawl's frontier drains (services/crawler crawl-run.ts) from ts_stat over the
-- tenant's tsvectors. Between crawls nothing changes the documents' text, so the statistics hold;
-- while a re-crawl runs, words it brings count as absent and the weights are the last crawl's until
-- its frontier drains. A tenant without statistics yet (its first crawl running) is ranked by
-- ts_rank and probed through the GIN index, as before.
CREATE TABLE term_stats (
  client_id uuid NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
  lexeme    text NOT NULL,
  ndoc      integer NOT NULL,
  PRIMARY KEY (client_id, lexeme)
);

CREATE TABLE term_stats_totals (
  client_id    uuid PRIMARY KEY REFERENCES clients(id) ON DELETE CASCADE,
  documents    integer NOT NULL,
  avg_length   double precision NOT NULL,
  refreshed_at timestamptz NOT NULL DEFAULT now()
);

-- Replaces the tenant's statistics with what its documents hold now. Refreshes of one tenant are
-- serialised (a transaction-scoped advisory lock): two crawls draining at once would otherwise
-- insert the same keys.
CREATE FUNCTION kbchat_refresh_term_stats(p_client uuid) RETURNS void
LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('kbchat_term_stats:' || p_client::text, 0));
  DELETE FROM term_stats WHERE client_id = p_client;
  INSERT INTO term_stats (client_id, lexeme, ndoc)
  SELECT p_client, s.word, s.ndoc FROM ts_stat(format('SELECT fts FROM documents WHERE client_id = %L', p_client)) s;
  INSERT INTO term_stats_totals (client_id, documents, avg_length, refreshed_at)
  SELECT p_client, count(*)::int, coalesce(avg(length(d.fts)), 0), now() FROM documents d WHERE d.client_id = p_client
  ON CONFLICT (client_id) DO UPDATE
    SET documents = EXCLUDED.documents, avg_length = EXCLUDED.avg_length, refreshed_at = EXCLUDED.refreshed_at;
END
$fn$;

-- kbchat_search_candidates of 0006 with the full-text list ranked by the statistics above, which also
-- answer the off-topic probes (which of the question's lexemes the tenant's chunks never hold). The
-- size probe, the vector list and the returned columns are unchanged.
CREATE OR REPLACE FUNCTION kbchat_search_candidates(
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
  -- Term statistics (kbchat_refresh_term_stats): the tenant's documents and mean distinct lexemes
  -- per chunk at the last refresh; NULL before the first one (then ts_rank ranks, as before 0007).
  v_docs int;
  v_avglen float8;
  -- The question's lexemes in four bands of document frequency (share of the tenant's chunks that
  -- hold them: ≤ 1 %, ≤ 5 %, ≤ 20 %, more), each weighed by its lexemes' mean BM25 idf.
  v_b1 text[] := '{}'; v_b2 text[] := '{}'; v_b3 text[] := '{}'; v_b4 text[] := '{}';
  v_w1 float8 := 0; v_w2 float8 := 0; v_w3 float8 := 0; v_w4 float8 := 0;
  v_candidates tsquery;
BEGIN
  -- Counting stops past the threshold, so a big tenant costs no more than a small one here.
  SELECT count(*)::int INTO v_n FROM (SELECT 1 FROM documents d WHERE d.client_id = p_client LIMIT p_exact_max + 1) x;
  -- The question's lexemes (English configuration: stemmed, stop words dropped).
  v_terms := tsvector_to_array(to_tsvector('english', p_query));
  -- Which chunks the full-text list ranks, and how. With the tenant's term statistics, common words
  -- ("use", "file", "node": in more than a fifth of its chunks) neither select candidates nor weigh
  -- much: a chunk is ranked when it holds two of the question's other lexemes, or one rare one
  -- (≤ 1 % of the chunks, or at most 3), and scored by the idf of what it holds (below).
  SELECT t.documents, t.avg_length INTO v_docs, v_avglen FROM term_stats_totals t WHERE t.client_id = p_client AND t.documents > 0;
  IF v_docs IS NOT NULL AND cardinality(v_terms) > 0 THEN
    WITH s AS (
      SELECT u.lexeme, coalesce(ts.ndoc, 0) AS ndoc, coalesce(ts.ndoc, 0)::float8 / v_docs AS share,
             ln(1 + (v_docs - least(coalesce(ts.ndoc, 0), v_docs) + 0.5) / (coalesce(ts.ndoc, 0) + 0.5)) AS idf
        FROM unnest(v_terms) AS u(lexeme)
        LEFT JOIN term_stats ts ON ts.client_id = p_client AND ts.lexeme = u.lexeme)
    SELECT coalesce(array_agg(s.lexeme) FILTER (WHERE s.share <= 0.01), '{}'), coalesce(avg(s.idf) FILTER (WHERE s.share <= 0.01), 0),
           coalesce(array_agg(s.lexeme) FILTER (WHERE s.share > 0.01 AND s.share <= 0.05), '{}'),
           coalesce(avg(s.idf) FILTER (WHERE s.share > 0.01 AND s.share <= 0.05), 0),
           coalesce(array_agg(s.lexeme) FILTER (WHERE s.share > 0.05 AND s.share <= 0.2), '{}'),
           coalesce(avg(s.idf) FILTER (WHERE s.share > 0.05 AND s.share <= 0.2), 0),
           coalesce(array_agg(s.lexeme) FILTER (WHERE s.share > 0.2), '{}'), coalesce(avg(s.idf) FILTER (WHERE s.share > 0.2), 0),
           (SELECT string_agg(x, ' | ') FROM (
              SELECT quote_literal(a.lexeme) || ' & ' || quote_literal(b.lexeme) AS x FROM s a, s b
               WHERE a.lexeme < b.lexeme AND a.share <= 0.2 AND b.share <= 0.2
              UNION ALL
              SELECT quote_literal(r.lexeme) FROM s r WHERE r.share <= 0.01 OR r.ndoc <= 3) y)::tsquery,
           -- The off-topic gate's signal: how many of the question's lexemes no chunk of the tenant
           -- holds (a primary-key lookup each, not a GIN probe of the documents).
           count(*) FILTER (WHERE s.ndoc = 0)::int
      INTO v_b1, v_w1, v_b2, v_w2, v_b3, v_w3, v_b4, v_w4, v_candidates, v_absent
      FROM s;
  ELSE
    -- No statistics yet: the same count, one GIN probe per lexeme.
    SELECT count(*)::int INTO v_absent FROM unnest(v_terms) AS t(lexeme)
     WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.client_id = p_client AND d.fts @@ quote_literal(t.lexeme)::tsquery);
  END IF;
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
  -- quoted lexemes, so swapping its & for | is safe. Candidates: with term statistics, v_candidates
  -- (above); without, chunks with at least two of the query's lexemes (`pairs`: any two, through the
  -- GIN index; NULL for a one-lexeme query, which then matches on its word) ranked by ts_rank: ranking
  -- every chunk that shares one common word was most of a chat request's database time. Equal scores (common: ts_rank of short chunks) go by page URL and chunk order, not
  -- by the random ids a re-crawl changes, so the same question keeps its list across crawls and
  -- databases. Then both lists' chunks with the signals ranking needs.
  RETURN QUERY
  WITH v AS (SELECT u.id, u.dist, u.rank FROM unnest(v_ids, v_dists) WITH ORDINALITY AS u(id, dist, rank)),
  q AS (SELECT replace(plainto_tsquery('english', p_query)::text, ' & ', ' | ')::tsquery AS tsq,
              (SELECT string_agg(quote_literal(a) || ' & ' || quote_literal(b), ' | ')
                 FROM unnest(v_terms) a, unnest(v_terms) b WHERE a < b)::tsquery AS pairs),
  f AS (
    SELECT s.id, row_number() OVER (ORDER BY s.score DESC, s.url, s.chunk_index) AS rank FROM (
      SELECT d.id, d.url, d.chunk_index,
             CASE WHEN v_docs IS NULL THEN ts_rank(d.fts, q.tsq)
             -- BM25 with a presence-only term frequency (k1 1.2, b 0.75 over distinct lexemes); a
             -- lexeme in the title or heading counts twice. Counting a band's lexemes in a chunk is
             -- two C calls (length, ts_delete): no per-row subquery.
             ELSE (v_w1 * (length(d.fts) - length(ts_delete(d.fts, v_b1)) + length(h.fts) - length(ts_delete(h.fts, v_b1)))
                 + v_w2 * (length(d.fts) - length(ts_delete(d.fts, v_b2)) + length(h.fts) - length(ts_delete(h.fts, v_b2)))
                 + v_w3 * (length(d.fts) - length(ts_delete(d.fts, v_b3)) + length(h.fts) - length(ts_delete(h.fts, v_b3)))
                 + v_w4 * (length(d.fts) - length(ts_delete(d.fts, v_b4)) + length(h.fts) - length(ts_delete(h.fts, v_b4))))
                  * 2.2 / (1 + 1.2 * (0.25 + 0.75 * length(d.fts) / greatest(v_avglen, 1)))
             END AS score
        FROM documents d CROSS JOIN q
        -- The title-and-heading lexemes (weight A) of the chunk.
        CROSS JOIN LATERAL (SELECT ts_filter(d.fts, '{a}') AS fts) h
       WHERE p_fulltext AND d.client_id = p_client AND d.fts @@ coalesce(v_candidates, q.pairs, q.tsq)
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
-- 0006's function as it was.
CREATE OR REPLACE FUNCTION kbchat_search_candidates(
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

DROP FUNCTION IF EXISTS kbchat_refresh_term_stats(uuid);
DROP TABLE IF EXISTS term_stats_totals;
DROP TABLE IF EXISTS term_stats;
