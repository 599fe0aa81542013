-- kbchat_search_candidates: the current definition, re-applied after the numbered migrations whenever
-- this file's checksum changed (packages/shared/src/db/migrate.ts), so a change to it is a diff of this file.
-- docs/retrieval.md explains each step; the ranking itself is done in TypeScript
-- (packages/shared/src/chat/ranking.ts) from the signals returned here.
-- Earlier definitions had fewer arguments and columns.
DROP FUNCTION IF EXISTS kbchat_search_candidates(uuid, text, vector, int, text, boolean, int, float8, int, int);
DROP FUNCTION IF EXISTS kbchat_search_candidates(uuid, text, vector, int, text, boolean, int, float8, int, int, text, int);
DROP FUNCTION IF EXISTS kbchat_search_candidates(uuid, text, vector, int, text, boolean, int, float8, int, int, text, int, vector);
-- The columns changed (term_pos, query_pos): a new return type needs the function dropped first.
DROP FUNCTION IF EXISTS kbchat_search_candidates(uuid, text, vector, int, text, boolean, int, int, text, int, vector);
-- The latent vector and the typing slips came from two round trips of their own (p_latent, near_terms);
-- the candidate pages' links from a third (page_links). A new return type needs the function dropped.
DROP FUNCTION IF EXISTS kbchat_search_candidates(uuid, text, vector, int, text, boolean, int, int, text, int, vector, boolean);

-- The name of a tenant's own HNSW index (packages/shared/src/db/vector-index.ts builds and drops them).
CREATE OR REPLACE FUNCTION kbchat_vector_index_name(p_client uuid) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT 'documents_embedding_hnsw_' || replace(p_client::text, '-', '') $$;
-- The name of a tenant's graph of its related-words vectors (the same file builds and drops them).
CREATE OR REPLACE FUNCTION kbchat_lsa_index_name(p_client uuid) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT 'lsa_chunks_hnsw_' || replace(p_client::text, '-', '') $$;
-- Whether a tenant's graph exists and is usable: a build cut short leaves an invalid one behind.
CREATE OR REPLACE FUNCTION kbchat_index_ready(p_name text) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM pg_index i WHERE i.indexrelid = to_regclass(p_name) AND i.indisvalid AND i.indisready) $$;

-- The first definition took the question's text and parsed it again; the search has its lexemes.
DROP FUNCTION IF EXISTS kbchat_lsa_query_vector(uuid, text, text);
-- A question's latent vector (db/lsa.ts, lsaQueryVector): the sum of the vectors of its lexemes
-- (p_terms) that the client's model knows, each weighed by its idf, a follow-up's context words (not in
-- p_focus, the visitor's own lexemes) at half weight, normalised. NULL when the client has no model or
-- the question none of its words.
CREATE OR REPLACE FUNCTION kbchat_lsa_query_vector(p_client uuid, p_terms text[], p_focus text[]) RETURNS vector
LANGUAGE sql STABLE AS $$
  SELECT l2_normalize(sum(x.vec * array_fill(x.w, ARRAY[vector_dims(x.vec)])::vector))
    FROM (SELECT t.vec, (t.idf * CASE WHEN t.lexeme = ANY(p_focus) THEN 1 ELSE 0.5 END)::real AS w
            FROM lsa_terms t
           WHERE t.client_id = p_client AND t.lexeme = ANY(p_terms)) x
   WHERE x.w <> 0 $$;

-- Of p_lexemes (words of a question no chunk of the client holds), the client's words one letter
-- longer that start with the same two letters and are in 3 chunks at least (in every chunk of a client
-- of fewer: a site of two text sources has no word in three): each a possible typing slip ("strng" →
-- "string"), which db/retrieval.ts (missesOneLetter) confirms. The range keeps the look-up on the
-- term_stats primary key.
CREATE OR REPLACE FUNCTION kbchat_near_terms(p_client uuid, p_lexemes text[]) RETURNS TABLE (lex text, near text)
LANGUAGE sql STABLE AS $$
  SELECT a.lex, ts.lexeme
    FROM unnest(p_lexemes) AS a(lex)
    JOIN term_stats ts ON ts.client_id = p_client
     AND ts.ndoc >= least(3, (SELECT t.documents FROM term_stats_totals t WHERE t.client_id = p_client))
     AND ts.lexeme >= left(a.lex, 2) AND ts.lexeme < left(a.lex, 1) || chr(ascii(substr(a.lex, 2, 1)) + 1)
     AND length(ts.lexeme) = length(a.lex) + 1 $$;

CREATE OR REPLACE FUNCTION kbchat_search_candidates(
  p_client uuid,
  p_model text,
  p_vector vector,
  p_k int,
  p_query text,
  p_fulltext boolean,
  -- Tenants of at most this many chunks are searched by exact scan; larger ones through their own
  -- HNSW graph once it is built (exactly until then).
  p_exact_max int,
  p_ef_search int,
  -- The visitor's own words (p_query may have a follow-up's context put in front of them).
  p_focus text,
  -- Rows of the full-text list: it is re-ranked by term frequency and fields in TypeScript, so it is
  -- longer than the vector list.
  p_k_text int,
  -- The question's latent vector (db/lsa.ts), NULL when the client has none: a third list, the
  -- p_k chunks nearest it, by exact scan of the tenant's chunks or through its own graph of them.
  p_lsa vector,
  -- With p_lsa NULL: whether to fold the question's own latent vector here (kbchat_lsa_query_vector),
  -- saving the gateway a round trip.
  p_latent boolean)
RETURNS TABLE (
  id uuid, page_id uuid, url text, title text, heading text, content text, content_hash text,
  vector_rank bigint, fts_rank bigint, lsa_rank bigint, similarity float8, matched_terms int, page_chunks int,
  -- The question's own figures (scan, query_terms, absent_terms, term_df, term_focus, corpus_docs,
  -- avg_length, query_pos, near_terms) are on the first row only, whose id is NULL; a candidate's row
  -- has them NULL.
  scan text, query_terms text[], absent_terms int,
  -- Per query term (in query_terms' order): chunks of the tenant holding it, and whether the
  -- visitor's own message holds it; the tenant's chunk count and mean distinct lexemes per chunk.
  term_df int[], term_focus boolean[], corpus_docs int, avg_length float8,
  -- Per query term, for this chunk: occurrences in the body, in the title or heading (weight A), in
  -- the page title alone; and the chunk's distinct lexemes.
  term_tf int[], term_head int[], term_title int[], doc_length int,
  -- Per query term: its word positions in this chunk, and in the query ("3,17", '' when absent):
  -- how close the question's words stand in the chunk (ranking.ts, proximity).
  term_pos text[], query_pos text[],
  -- 'lexeme word' pairs: a question's lexeme no chunk holds (4 letters or more) and a word of the
  -- client's it may be a typing slip of (kbchat_near_terms).
  near_terms text[],
  -- The other candidate pages this chunk's page links to (pages.links, as the crawler found them):
  -- an overview defers to the page it links to (ranking.ts, deferToLinked). NULL when none.
  page_links uuid[])
LANGUAGE plpgsql
-- Each statement is planned once per backend and the plan reused (docs/performance.md, change 6).
SET plan_cache_mode = force_generic_plan
AS $fn$
#variable_conflict use_column
DECLARE
  v_n int;
  v_exact boolean;
  v_terms text[];
  v_focus text[];
  v_df int[];
  v_absent int;
  v_ids uuid[] := '{}';
  v_dists float8[] := '{}';
  v_lsa_ids uuid[] := '{}';
  v_scan text := 'none';
  v_docs int;
  v_avglen float8;
  v_b1 text[] := '{}'; v_b2 text[] := '{}'; v_b3 text[] := '{}'; v_b4 text[] := '{}';
  v_w1 float8 := 0; v_w2 float8 := 0; v_w3 float8 := 0; v_w4 float8 := 0;
  v_candidates tsquery;
  v_qpos text[];
  v_near text[];
  v_lsa vector := p_lsa;
  -- The question parsed once: its lexemes, and their positions below.
  v_query tsvector := to_tsvector('kbchat_english', p_query);
BEGIN
  -- Counting stops past the threshold, so a big tenant costs no more than a small one here.
  SELECT count(*)::int INTO v_n FROM (SELECT 1 FROM documents d WHERE d.client_id = p_client LIMIT p_exact_max + 1) x;
  v_terms := tsvector_to_array(v_query);
  v_focus := tsvector_to_array(to_tsvector('kbchat_english', coalesce(p_focus, p_query)));
  SELECT t.documents, t.avg_length INTO v_docs, v_avglen FROM term_stats_totals t WHERE t.client_id = p_client AND t.documents > 0;
  IF v_docs IS NOT NULL AND cardinality(v_terms) > 0 THEN
    -- Four bands of document frequency (≤ 1 %, ≤ 5 %, ≤ 20 %, more), each weighed by its lexemes'
    -- mean BM25 idf: the first-stage score that picks the full-text list, cheap C calls per row.
    WITH s AS (
      SELECT u.lexeme, u.ord, coalesce(ts.ndoc, 0) AS ndoc, coalesce(ts.ndoc, 0)::float8 / v_docs AS share,
             ln(1 + (v_docs - least(coalesce(ts.ndoc, 0), v_docs) + 0.5) / (coalesce(ts.ndoc, 0) + 0.5)) AS idf
        FROM unnest(v_terms) WITH ORDINALITY AS u(lexeme, ord)
        LEFT JOIN term_stats ts ON ts.client_id = p_client AND ts.lexeme = u.lexeme)
    SELECT coalesce(array_agg(s.lexeme) FILTER (WHERE s.share <= 0.01), '{}'), coalesce(avg(s.idf) FILTER (WHERE s.share <= 0.01), 0),
           coalesce(array_agg(s.lexeme) FILTER (WHERE s.share > 0.01 AND s.share <= 0.05), '{}'),
           coalesce(avg(s.idf) FILTER (WHERE s.share > 0.01 AND s.share <= 0.05), 0),
           coalesce(array_agg(s.lexeme) FILTER (WHERE s.share > 0.05 AND s.share <= 0.2), '{}'),
           coalesce(avg(s.idf) FILTER (WHERE s.share > 0.05 AND s.share <= 0.2), 0),
           coalesce(array_agg(s.lexeme) FILTER (WHERE s.share > 0.2), '{}'), coalesce(avg(s.idf) FILTER (WHERE s.share > 0.2), 0),
           -- Candidates from the question's most telling lexemes only: pairs among its 12 rarest
           -- non-common ones, and its 32 rarest rare ones (a 4,000-character message holds hundreds of
           -- lexemes, and all their pairs made a tsquery that took seconds to search).
           (SELECT string_agg(x, ' | ') FROM (
              SELECT quote_literal(a.lexeme) || ' & ' || quote_literal(b.lexeme) AS x
                FROM (SELECT i.lexeme FROM s i WHERE i.share <= 0.2 ORDER BY i.idf DESC, i.lexeme LIMIT 12) a,
                     (SELECT i.lexeme FROM s i WHERE i.share <= 0.2 ORDER BY i.idf DESC, i.lexeme LIMIT 12) b
               WHERE a.lexeme < b.lexeme
              UNION ALL
              SELECT quote_literal(r.lexeme)
                FROM (SELECT i.lexeme FROM s i WHERE i.share <= 0.01 OR i.ndoc <= 3 ORDER BY i.idf DESC, i.lexeme LIMIT 32) r) y)::tsquery,
           count(*) FILTER (WHERE s.ndoc = 0)::int,
           array_agg(s.ndoc::int ORDER BY s.ord)
      INTO v_b1, v_w1, v_b2, v_w2, v_b3, v_w3, v_b4, v_w4, v_candidates, v_absent, v_df
      FROM s;
  ELSE
    -- No statistics yet (the first crawl is running): one GIN probe per lexeme; term_df is then 1
    -- for a lexeme some chunk holds and 0 for one none does (corpus_docs stays NULL: no idf).
    SELECT coalesce(array_agg(p.found ORDER BY p.ord), '{}'), count(*) FILTER (WHERE p.found = 0)::int INTO v_df, v_absent
      FROM (SELECT t.ord, CASE WHEN EXISTS (SELECT 1 FROM documents d WHERE d.client_id = p_client
                                                AND d.fts @@ quote_literal(t.lexeme)::tsquery) THEN 1 ELSE 0 END AS found
              FROM unnest(v_terms) WITH ORDINALITY AS t(lexeme, ord)) p;
  END IF;
  -- Without statistics, or when the rarest lexemes select nothing: chunks with any two of the
  -- question's lexemes, the 12 longest standing in for the rarest. NULL for a one-lexeme question,
  -- which then matches on its word.
  IF v_candidates IS NULL THEN
    SELECT string_agg(quote_literal(a) || ' & ' || quote_literal(b), ' | ')::tsquery INTO v_candidates
      FROM (SELECT t FROM unnest(v_terms) t ORDER BY length(t) DESC, t LIMIT 12) x(a),
           (SELECT t FROM unnest(v_terms) t ORDER BY length(t) DESC, t LIMIT 12) y(b)
     WHERE a < b;
  END IF;
  SELECT array_agg(coalesce(array_to_string(x.positions, ','), '') ORDER BY t.o) INTO v_qpos
    FROM unnest(v_terms) WITH ORDINALITY t(lex, o)
    LEFT JOIN unnest(v_query) x ON x.lexeme = t.lex;
  -- Typing slips: of the lexemes no chunk holds (4 letters or more: a shorter one is a word of its
  -- own more often than a slip), those the client has a word one letter longer for. Only with
  -- statistics (v_df is then document frequency).
  IF v_docs IS NOT NULL THEN
    SELECT array_agg(n.lex || ' ' || n.near) INTO v_near
      FROM kbchat_near_terms(p_client, ARRAY(SELECT u.t FROM unnest(v_terms) WITH ORDINALITY u(t, o)
                                               WHERE v_df[u.o] = 0 AND length(u.t) >= 4)) n;
  END IF;
  IF v_lsa IS NULL AND p_latent THEN
    v_lsa := kbchat_lsa_query_vector(p_client, v_terms, v_focus);
  END IF;
  -- Exact scan, or HNSW through the tenant's own graph (docs/retrieval.md "Vector list"): there is no
  -- shared graph, which cost every tenant's writes and lost the small ones' rows to the filter.
  v_exact := v_n <= p_exact_max OR NOT kbchat_index_ready(kbchat_vector_index_name(p_client));
  IF p_vector IS NOT NULL AND v_n > 0 THEN
    IF NOT v_exact THEN
      PERFORM set_config('hnsw.iterative_scan', 'relaxed_order', true),
              set_config('hnsw.ef_search', p_ef_search::text, true),
              set_config('enable_sort', 'off', true);
      -- Planned per call with the tenant as a literal: a generic plan cannot prove the predicate of the
      -- tenant's partial index (WHERE client_id = '…'), and would not use it.
      -- The graph holds the vectors at half precision (vector-index.ts): it gives twice k rows in its
      -- order, and the k nearest of them by the full vectors are kept. Sorted by the aggregate, not by
      -- an ORDER BY: with enable_sort off a Sort node would cost the plan past JIT's threshold.
      EXECUTE format($q$
        SELECT coalesce(array_agg(s.id ORDER BY s.dist, s.id), '{}'), coalesce(array_agg(s.dist ORDER BY s.dist, s.id), '{}')
          FROM (SELECT d.id, d.embedding <=> $1 AS dist FROM documents d
                 WHERE d.client_id = %L AND d.embedding_model = $2 AND d.embedding IS NOT NULL
                 ORDER BY d.embedding::halfvec(1536) <=> $1::halfvec(1536)
                 LIMIT $3 * 2) s$q$, p_client)
        INTO v_ids, v_dists USING p_vector, p_model, p_k;
      v_ids := v_ids[1:p_k];
      v_dists := v_dists[1:p_k];
      PERFORM set_config('enable_sort', 'on', true);
      v_scan := 'hnsw';
    END IF;
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
  -- The latent list: a large tenant's through its graph of them when it has one (an exact scan of
  -- 134,000 vectors took 60–86 ms), which holds the vectors of LSA_DIMENSIONS (100) only. Four times
  -- the vector list's ef_search: 100 dimensions cost little to compare, and at 1× the graph missed
  -- 0.5–1 % of the exact list's rows on the bench corpora (none at 4×; docs/performance.md, 28).
  IF v_lsa IS NOT NULL AND v_n > 0 THEN
    IF v_n > p_exact_max AND vector_dims(v_lsa) = 100 AND kbchat_index_ready(kbchat_lsa_index_name(p_client)) THEN
      PERFORM set_config('hnsw.ef_search', least(4 * p_ef_search, 1000)::text, true),
              set_config('enable_sort', 'off', true);
      -- The tenant as a literal and the graph's row condition word for word, or the planner cannot
      -- use the partial index (see the vector list above).
      EXECUTE format($q$
        SELECT coalesce(array_agg(s.id ORDER BY s.dist, s.id), '{}')
          FROM (SELECT c.document_id AS id, c.vec <=> $1 AS dist FROM lsa_chunks c
                 WHERE c.client_id = %L AND vector_dims(c.vec) = 100
                 ORDER BY c.vec::vector(100) <=> $1::vector(100)
                 LIMIT $2) s$q$, p_client)
        INTO v_lsa_ids USING v_lsa, p_k;
      PERFORM set_config('enable_sort', 'on', true);
    ELSE
      SELECT coalesce(array_agg(s.id ORDER BY s.dist, s.id), '{}') INTO v_lsa_ids
        FROM (SELECT c.document_id AS id, (c.vec <=> v_lsa) + 0 AS dist FROM lsa_chunks c
               WHERE c.client_id = p_client AND vector_dims(c.vec) = vector_dims(v_lsa)
               ORDER BY (c.vec <=> v_lsa) + 0, c.document_id
               LIMIT p_k) s;
    END IF;
  END IF;
  -- The question's own figures once, in a first row of no chunk (id NULL), not repeated on every
  -- candidate's row: a long question's arrays on 100 rows were most of the result's bytes.
  RETURN QUERY SELECT NULL::uuid, NULL::uuid, NULL::text, NULL::text, NULL::text, NULL::text, NULL::text,
    NULL::bigint, NULL::bigint, NULL::bigint, NULL::float8, NULL::int, NULL::int, v_scan, v_terms, v_absent,
    v_df, (SELECT array_agg(t = ANY(v_focus) ORDER BY o) FROM unnest(v_terms) WITH ORDINALITY u(t, o)), v_docs, v_avglen,
    NULL::int[], NULL::int[], NULL::int[], NULL::int, NULL::text[], v_qpos, v_near, NULL::uuid[];
  RETURN QUERY
  WITH v AS (SELECT u.id, u.dist, u.rank FROM unnest(v_ids, v_dists) WITH ORDINALITY AS u(id, dist, rank)),
  l AS (SELECT u.id, u.rank FROM unnest(v_lsa_ids) WITH ORDINALITY AS u(id, rank)),
  q AS (SELECT replace(plainto_tsquery('kbchat_english', p_query)::text, ' & ', ' | ')::tsquery AS tsq),
  f AS (
    SELECT s.id, row_number() OVER (ORDER BY s.score DESC, s.url, s.chunk_index) AS rank FROM (
      SELECT d.id, d.url, d.chunk_index,
             CASE WHEN v_docs IS NULL THEN ts_rank(d.fts, q.tsq)
             ELSE (v_w1 * (length(d.fts) - length(ts_delete(d.fts, v_b1)) + length(h.fts) - length(ts_delete(h.fts, v_b1)))
                 + v_w2 * (length(d.fts) - length(ts_delete(d.fts, v_b2)) + length(h.fts) - length(ts_delete(h.fts, v_b2)))
                 + v_w3 * (length(d.fts) - length(ts_delete(d.fts, v_b3)) + length(h.fts) - length(ts_delete(h.fts, v_b3)))
                 + v_w4 * (length(d.fts) - length(ts_delete(d.fts, v_b4)) + length(h.fts) - length(ts_delete(h.fts, v_b4))))
                  * 2.2 / (1 + 1.2 * (0.25 + 0.75 * length(d.fts) / greatest(v_avglen, 1)))
             END AS score
        FROM documents d CROSS JOIN q
        CROSS JOIN LATERAL (SELECT ts_filter(d.fts, '{a}') AS fts) h
       WHERE p_fulltext AND d.client_id = p_client AND d.fts @@ coalesce(v_candidates, q.tsq)
       ORDER BY score DESC, d.url, d.chunk_index
       LIMIT p_k_text) s),
  ids AS (SELECT v.id FROM v UNION SELECT f.id FROM f UNION SELECT l.id FROM l),
  -- The candidate pages as an array: each pair of them is tested against the first one's link list
  -- (~40 pages: 1.5 ms on the bench's PostgreSQL and Django crawls; looking every link up by (client,
  -- url) took 6.5). By id, the tenant a filter (IS TRUE, as below): as a join on the candidates, or
  -- with the tenant as an index condition, the generic plan read every page of the tenant.
  cp AS (SELECT ARRAY(SELECT DISTINCT x.page_id FROM documents x
                       WHERE x.id IN (SELECT ids.id FROM ids) AND x.page_id IS NOT NULL) AS pages),
  pl AS (
    SELECT p.id, array_agg(q.id) AS linked
      FROM cp
      JOIN pages p ON p.id = ANY(cp.pages)
      JOIN pages q ON q.id = ANY(cp.pages) AND q.id <> p.id AND (q.client_id = p.client_id) IS TRUE AND q.url = ANY(p.links)
     WHERE (p.client_id = p_client) IS TRUE
     GROUP BY p.id)
  SELECT d.id, d.page_id, d.url, d.title, d.heading, d.content, d.content_hash,
         v.rank, f.rank, l.rank,
         CASE WHEN v.dist IS NOT NULL THEN 1 - v.dist
              WHEN d.embedding_model = p_model AND p_vector IS NOT NULL THEN 1 - (d.embedding <=> p_vector) END,
         length(d.fts) - length(ts_delete(d.fts, v_terms)),
         coalesce((SELECT max(x.chunk_index) + 1 FROM documents x WHERE x.page_id = d.page_id), 1)::int,
         NULL::text, NULL::text[], NULL::int, NULL::int[], NULL::boolean[], NULL::int, NULL::float8,
         tf.body, tf.head, tf.title, length(d.fts), tf.pos, NULL::text[], NULL::text[], pl.linked
    FROM documents d
    LEFT JOIN v ON v.id = d.id
    LEFT JOIN f ON f.id = d.id
    LEFT JOIN l ON l.id = d.id
    LEFT JOIN pl ON pl.id = d.page_id
    -- Each query term's occurrences in this chunk: positions weighted B are the body, A the title and heading.
    CROSS JOIN LATERAL (
      SELECT array_agg(coalesce(cardinality(array_remove(x.weights, 'A')), 0) ORDER BY t.o) AS body,
             array_agg(CASE WHEN 'A' = ANY(x.weights) THEN 1 ELSE 0 END ORDER BY t.o) AS head,
             array_agg(CASE WHEN t.lex = ANY(tt.lexemes) THEN 1 ELSE 0 END ORDER BY t.o) AS title,
             array_agg(coalesce(array_to_string(x.positions, ','), '') ORDER BY t.o) AS pos
        FROM unnest(v_terms) WITH ORDINALITY t(lex, o)
        CROSS JOIN (SELECT tsvector_to_array(to_tsvector('kbchat_english', d.title)) AS lexemes) tt
        LEFT JOIN unnest(d.fts) x ON x.lexeme = t.lex) tf
   -- The rows are fetched by id: the three lists are the tenant's already, and the tenant is checked
   -- as a filter (IS TRUE keeps it out of the index conditions). As an index condition, the plan made
   -- once for every tenant (force_generic_plan) read the whole tenant where many tenants make each
   -- look small: 9,241 rows for 67 candidates (docs/performance.md, change 31).
   WHERE d.id IN (SELECT ids.id FROM ids) AND (d.client_id = p_client) IS TRUE;
END
$fn$;
