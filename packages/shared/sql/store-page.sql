-- The storing side of one crawled page (services/crawler/src/crawl/store-page.ts): the current
-- definitions, re-applied after the numbered migrations whenever this file's checksum changed
-- (packages/shared/src/db/migrate.ts).
--
-- Each function is the whole storing transaction of one page in one call: one round trip instead of
-- a BEGIN, eight to ten statements and a COMMIT (docs/performance.md, 1a). Called as a statement of
-- its own, it runs in that statement's transaction: the row and advisory locks it takes are held to
-- its end, and an error rolls all of it back. The functions are VOLATILE, so under READ COMMITTED
-- each statement inside sees what other transactions committed before it started — as the separate
-- statements of the former transaction did (the duplicate check after the content-hash lock relies on it).
--
-- The frontier row's settle is conditional (queued|active → done/skipped/failed) and everything else
-- happens only when it succeeded: a page re-run after a crash or a lost lock changes nothing and
-- counts nothing a second time (docs/crawling.md).

-- Signatures these definitions replaced (a changed argument list is a new function, not a replacement).
DROP FUNCTION IF EXISTS kbchat_count_page(uuid, int, int, int, int, int, int, text);
DROP FUNCTION IF EXISTS kbchat_replace_page_documents(uuid, uuid, uuid, text, text, uuid, int[], text[], text[], text[], text);
DROP FUNCTION IF EXISTS kbchat_store_indexed_page(uuid, uuid, uuid, text, text, text, text, text, text, int, text[], text, text, int[], text[], text[], text[]);

-- Adds one page's outcome to its crawl's counters (one skip reason at most), and the documents the
-- page store embedded itself with their tokens.
CREATE OR REPLACE FUNCTION kbchat_count_page(
  p_job uuid,
  p_fetched int,
  p_indexed int,
  p_unchanged int,
  p_skipped int,
  p_failed int,
  p_documents int,
  p_reason text,
  p_embedded int DEFAULT 0,
  p_embedding_tokens int DEFAULT 0
) RETURNS void
-- PL/pgSQL rather than SQL: its statements' plans are kept for the session, a SQL function's for one call.
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  UPDATE jobs SET pages_fetched = pages_fetched + p_fetched,
                  pages_indexed = pages_indexed + p_indexed,
                  pages_unchanged = pages_unchanged + p_unchanged,
                  pages_skipped = pages_skipped + p_skipped,
                  pages_failed = pages_failed + p_failed,
                  documents_created = documents_created + p_documents,
                  embeddings_done = embeddings_done + p_embedded,
                  embedding_tokens = embedding_tokens + p_embedding_tokens,
                  skip_reasons = CASE WHEN p_reason IS NULL THEN skip_reasons
                                      ELSE skip_reasons || jsonb_build_object(p_reason, coalesce((skip_reasons ->> p_reason)::int, 0) + 1) END,
                  updated_at = now()
   WHERE id = p_job;
END
$$;

-- An unchanged page's documents stay, follow the page to this source, and those without an embedding
-- of the current model are put on this job's list (keepPageDocuments). Returns their ids.
CREATE OR REPLACE FUNCTION kbchat_keep_page_documents(p_page uuid, p_source uuid, p_job uuid, p_model text) RETURNS uuid[]
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_pending uuid[];
BEGIN
  WITH kept AS (
    UPDATE documents d SET source_id = p_source,
           embed_job_id = CASE WHEN d.embedding IS NULL OR d.embedding_model IS DISTINCT FROM p_model THEN p_job ELSE d.embed_job_id END
     WHERE d.page_id = p_page
     RETURNING d.id, d.chunk_index, d.embed_job_id = p_job AS pending
  )
  SELECT coalesce(array_agg(kept.id ORDER BY kept.chunk_index) FILTER (WHERE kept.pending), '{}') INTO v_pending FROM kept;
  RETURN v_pending;
END
$$;

-- Swaps a page's chunks (replacePageDocuments in packages/shared/src/db/documents.ts, which calls it
-- too): a new chunk whose title, heading and content equal an old one's keeps that embedding; failing
-- that, an identical chunk embedded with the current model on another page of the client lends its
-- vector. Failing both, the chunk's own vector when the caller embedded it (the local model, computed
-- where the chunk is made: no second write of the row). Returns how many documents were created, how
-- many took the caller's vector (and its tokens), and the ids of those waiting for an embedding on
-- p_job's list.
CREATE OR REPLACE FUNCTION kbchat_replace_page_documents(
  p_page uuid,
  p_client uuid,
  p_source uuid,
  p_url text,
  p_title text,
  p_job uuid,
  p_chunk_index int[],
  p_chunk_heading text[],
  p_chunk_content text[],
  p_chunk_hash text[],
  p_model text,
  p_chunk_embedding vector[] DEFAULT NULL,
  p_chunk_tokens int[] DEFAULT NULL
) RETURNS TABLE (created int, embedded int, embedding_tokens int, pending_ids uuid[])
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RETURN QUERY
  WITH old AS (
    DELETE FROM documents d WHERE d.page_id = p_page
    RETURNING d.title, d.heading, d.content_hash, d.embedding, d.embedding_model, d.token_count
  ), fresh AS (
    SELECT * FROM unnest(p_chunk_index, p_chunk_heading, p_chunk_content, p_chunk_hash,
                         coalesce(p_chunk_embedding, array_fill(NULL::vector, ARRAY[cardinality(p_chunk_index)])),
                         coalesce(p_chunk_tokens, array_fill(NULL::int, ARRAY[cardinality(p_chunk_index)])))
        AS n(chunk_index, heading, content, content_hash, embedding, token_count)
  ), chosen AS (
    -- A kept or lent vector of the current model first (no work), then the caller's, then whatever
    -- the old chunk had (another model's: the embedder replaces it).
    SELECT n.*, o.embedding AS o_embedding, o.embedding_model AS o_model, o.token_count AS o_tokens,
           (o.embedding IS NULL OR o.embedding_model IS DISTINCT FROM p_model) AND n.embedding IS NOT NULL AS own
      FROM fresh n
      LEFT JOIN LATERAL (
        (SELECT old.embedding, old.embedding_model, old.token_count FROM old
          WHERE old.content_hash = n.content_hash AND old.title = p_title AND old.heading IS NOT DISTINCT FROM n.heading
            AND old.embedding IS NOT NULL
          LIMIT 1)
        UNION ALL
        (SELECT d.embedding, d.embedding_model, d.token_count FROM documents d
          WHERE d.client_id = p_client AND d.content_hash = n.content_hash AND d.page_id <> p_page AND d.title = p_title
            AND d.heading IS NOT DISTINCT FROM n.heading AND d.embedding IS NOT NULL AND d.embedding_model = p_model
          LIMIT 1)
        LIMIT 1
      ) o ON true
  ), ins AS (
    INSERT INTO documents (client_id, source_id, page_id, url, title, heading, chunk_index, content, content_hash,
                           token_count, embedding, embedding_model, embed_job_id)
    SELECT p_client, p_source, p_page, p_url, p_title, c.heading, c.chunk_index, c.content, c.content_hash,
           CASE WHEN c.own THEN c.token_count ELSE c.o_tokens END,
           CASE WHEN c.own THEN c.embedding ELSE c.o_embedding END,
           CASE WHEN c.own THEN p_model ELSE c.o_model END,
           CASE WHEN c.own OR (c.o_embedding IS NOT NULL AND c.o_model = p_model) THEN NULL ELSE p_job END
      FROM chosen c
    RETURNING documents.id, documents.chunk_index, documents.embed_job_id IS NOT NULL AS pending
  )
  SELECT (SELECT count(*)::int FROM ins),
         (SELECT count(*)::int FROM chosen WHERE own),
         (SELECT coalesce(sum(token_count), 0)::int FROM chosen WHERE own),
         (SELECT coalesce(array_agg(ins.id ORDER BY ins.chunk_index) FILTER (WHERE ins.pending), '{}') FROM ins);
END
$$;

-- A fetched page with content to index (storeIndexedPage). outcome:
--   'duplicate'  this crawl already stored this page (under this URL from another frontier URL, or the
--                same content under another URL): skipped as a duplicate (counted once);
--   'settled'    the frontier row was settled already (a re-run): nothing done;
--   'unchanged'  same content as stored, with documents: the page is marked seen, its documents kept;
--   'indexed'    the page stored, its chunks replaced (created documents, their embeddings reused where
--                title, heading and content are unchanged, or lent by an identical chunk of the client).
-- pending_ids: the page's documents waiting for an embedding on this job's list.
CREATE OR REPLACE FUNCTION kbchat_store_indexed_page(
  p_client uuid,
  p_source uuid,
  p_job uuid,
  p_crawl_url text,
  p_page_url text,
  p_title text,
  p_content_hash text,
  p_etag text,
  p_last_modified text,
  p_http_status int,
  p_links text[],
  p_sitemap_lastmod text,
  p_model text,
  p_chunk_index int[],
  p_chunk_heading text[],
  p_chunk_content text[],
  p_chunk_hash text[],
  p_chunk_embedding vector[] DEFAULT NULL,
  p_chunk_tokens int[] DEFAULT NULL
) RETURNS TABLE (outcome text, page_id uuid, created int, pending_ids uuid[])
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_found boolean;
  v_id uuid;
  v_last_job uuid;
  v_hash text;
  v_page uuid;
  v_created int;
  v_embedded int;
  v_tokens int;
  v_pending uuid[];
BEGIN
  -- Two stores of one URL serialise on its row.
  SELECT p.id, p.last_job_id, p.content_hash INTO v_id, v_last_job, v_hash
    FROM pages p WHERE p.client_id = p_client AND p.url = p_page_url
     FOR UPDATE;
  v_found := FOUND;
  -- Two stores of identical content in one crawl serialise on (job, content hash): they cannot both
  -- miss each other in the check below.
  PERFORM pg_advisory_xact_lock(hashtextextended(p_job::text || ':' || p_content_hash, 0));

  IF (v_found AND v_last_job = p_job AND p_page_url <> p_crawl_url)
     OR EXISTS (SELECT 1 FROM pages p
                 WHERE p.client_id = p_client AND p.last_job_id = p_job AND p.content_hash = p_content_hash
                   AND p.url <> p_page_url) THEN
    UPDATE crawl_urls c SET state = 'skipped', reason = 'duplicate', updated_at = now()
     WHERE c.job_id = p_job AND c.url = p_crawl_url AND c.state IN ('queued', 'active');
    IF FOUND THEN
      PERFORM kbchat_count_page(p_job, 1, 0, 0, 1, 0, 0, 'duplicate');
    END IF;
    RETURN QUERY SELECT 'duplicate'::text, NULL::uuid, 0, NULL::uuid[];
    RETURN;
  END IF;

  UPDATE crawl_urls c SET state = 'done', reason = NULL, updated_at = now()
   WHERE c.job_id = p_job AND c.url = p_crawl_url AND c.state IN ('queued', 'active');
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'settled'::text, NULL::uuid, 0, NULL::uuid[];
    RETURN;
  END IF;

  IF v_found AND v_hash = p_content_hash AND EXISTS (SELECT 1 FROM documents d WHERE d.page_id = v_id) THEN
    -- The body changed nothing that is indexed: the page is seen by this job, its documents stay.
    UPDATE pages p SET source_id = p_source, last_job_id = p_job, etag = coalesce(p_etag, p.etag),
                       last_modified = coalesce(p_last_modified, p.last_modified),
                       http_status = coalesce(p_http_status, p.http_status), title = coalesce(p_title, p.title),
                       links = coalesce(p_links, p.links), sitemap_lastmod = p_sitemap_lastmod,
                       fetched_at = CASE WHEN p_http_status IS NULL THEN p.fetched_at ELSE now() END, updated_at = now()
     WHERE p.id = v_id;
    v_pending := kbchat_keep_page_documents(v_id, p_source, p_job, p_model);
    PERFORM kbchat_count_page(p_job, 1, 1, 1, 0, 0, 0, NULL);
    RETURN QUERY SELECT 'unchanged'::text, v_id, 0, v_pending;
    RETURN;
  END IF;

  INSERT INTO pages AS p (client_id, source_id, url, title, content_hash, etag, last_modified, http_status, status, last_job_id,
                         links, sitemap_lastmod, fetched_at)
  VALUES (p_client, p_source, p_page_url, p_title, p_content_hash, p_etag, p_last_modified, p_http_status, 'indexed', p_job,
          p_links, p_sitemap_lastmod, now())
  ON CONFLICT (client_id, url) DO UPDATE SET
    source_id = EXCLUDED.source_id, title = EXCLUDED.title, content_hash = EXCLUDED.content_hash,
    etag = EXCLUDED.etag, last_modified = EXCLUDED.last_modified, http_status = EXCLUDED.http_status,
    status = 'indexed', last_job_id = EXCLUDED.last_job_id, links = EXCLUDED.links,
    sitemap_lastmod = EXCLUDED.sitemap_lastmod, fetched_at = now(), updated_at = now()
  RETURNING p.id INTO v_page;

  INSERT INTO crawl_changes (job_id, source_id, url, change)
  VALUES (p_job, p_source, p_page_url, CASE WHEN v_found THEN 'changed' ELSE 'added' END)
  ON CONFLICT (job_id, url) DO NOTHING;

  SELECT r.created, r.embedded, r.embedding_tokens, r.pending_ids INTO v_created, v_embedded, v_tokens, v_pending
    FROM kbchat_replace_page_documents(v_page, p_client, p_source, p_page_url, p_title, p_job,
                                       p_chunk_index, p_chunk_heading, p_chunk_content, p_chunk_hash, p_model,
                                       p_chunk_embedding, p_chunk_tokens) r;

  PERFORM kbchat_count_page(p_job, 1, 1, 0, 0, 0, v_created, NULL, v_embedded, v_tokens);
  IF v_embedded > 0 THEN
    -- What the embedder records for the vectors it writes (the local model costs nothing).
    INSERT INTO usage (client_id, kind, model, requests, prompt_tokens, completion_tokens, cost_usd)
    VALUES (p_client, 'embedding', p_model, 1, v_tokens, 0, 0)
    ON CONFLICT (client_id, day, kind, model) DO UPDATE SET
      requests = usage.requests + EXCLUDED.requests,
      prompt_tokens = usage.prompt_tokens + EXCLUDED.prompt_tokens;
  END IF;
  RETURN QUERY SELECT 'indexed'::text, v_page, v_created, v_pending;
END
$$;

-- A 304 to the conditional GET, or (p_http_status NULL: not fetched) a sitemap lastmod equal to the
-- one the stored content was fetched under (storeNotModifiedPage): the stored page and its documents
-- stand. outcome 'unchanged', or 'settled' when the frontier row was settled already.
CREATE OR REPLACE FUNCTION kbchat_store_not_modified_page(
  p_page uuid,
  p_source uuid,
  p_job uuid,
  p_crawl_url text,
  p_http_status int,
  p_sitemap_lastmod text,
  p_model text
) RETURNS TABLE (outcome text, pending_ids uuid[])
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_pending uuid[];
BEGIN
  UPDATE crawl_urls c SET state = 'done', reason = NULL, updated_at = now()
   WHERE c.job_id = p_job AND c.url = p_crawl_url AND c.state IN ('queued', 'active');
  IF NOT FOUND THEN
    RETURN QUERY SELECT 'settled'::text, NULL::uuid[];
    RETURN;
  END IF;
  UPDATE pages p SET source_id = p_source, last_job_id = p_job, http_status = coalesce(p_http_status, p.http_status),
                     sitemap_lastmod = p_sitemap_lastmod,
                     fetched_at = CASE WHEN p_http_status IS NULL THEN p.fetched_at ELSE now() END, updated_at = now()
   WHERE p.id = p_page;
  v_pending := kbchat_keep_page_documents(p_page, p_source, p_job, p_model);
  PERFORM kbchat_count_page(p_job, CASE WHEN p_http_status IS NULL THEN 0 ELSE 1 END, 1, 1, 0, 0, 0, NULL);
  RETURN QUERY SELECT 'unchanged'::text, v_pending;
END
$$;

-- A page not indexed (settleNotIndexed): skipped for a reason (robots, noindex, 404 …) or failed
-- after its retries. True only for the call that settled the frontier row (and counted it).
CREATE OR REPLACE FUNCTION kbchat_settle_not_indexed(
  p_job uuid,
  p_crawl_url text,
  p_state text,
  p_reason text,
  p_skip_reason text,
  p_fetched boolean
) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  UPDATE crawl_urls c SET state = p_state, reason = p_reason, updated_at = now()
   WHERE c.job_id = p_job AND c.url = p_crawl_url AND c.state IN ('queued', 'active');
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  IF p_state = 'skipped' THEN
    PERFORM kbchat_count_page(p_job, p_fetched::int, 0, 0, 1, 0, 0, p_skip_reason);
  ELSE
    PERFORM kbchat_count_page(p_job, p_fetched::int, 0, 0, 0, 1, 0, NULL);
  END IF;
  RETURN true;
END
$$;
