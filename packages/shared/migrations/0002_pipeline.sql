-- Up Migration
-- Crawl and embedding pipeline (docs/pipeline.md): what a crash-safe, distributed crawl needs
-- beyond the data model of 0001.

-- phase: pending (crawl.start not run) → crawling (frontier open) → embedding (frontier drained,
-- embeddings outstanding) → done. frontier_size counts URLs claimed for fetching (the maxPages
-- budget); frontier_capped records that a link was dropped because of it (so the end of the crawl
-- must not treat unvisited pages as gone); pages_removed counts pages deleted as gone. notes are operator-facing remarks ("Chromium not
-- available …"), each once. robots keeps what crawl.start read (Crawl-delay, sitemaps, errors).
ALTER TABLE jobs
  ADD COLUMN phase text NOT NULL DEFAULT 'pending' CHECK (phase IN ('pending', 'crawling', 'embedding', 'done')),
  ADD COLUMN frontier_size integer NOT NULL DEFAULT 0,
  ADD COLUMN frontier_capped boolean NOT NULL DEFAULT false,
  ADD COLUMN pages_removed integer NOT NULL DEFAULT 0,
  ADD COLUMN notes text[] NOT NULL DEFAULT '{}',
  ADD COLUMN robots jsonb;

-- 'alias': a URL that was never fetched itself because a fetched page turned out to live there
-- (redirect target, rel=canonical) — claiming it stops a second fetch of the same page.
-- discovered_from: the page whose links claimed this URL, so a retried page re-enqueues the
-- children it claimed before it crashed.
ALTER TABLE crawl_urls DROP CONSTRAINT crawl_urls_state_check;
ALTER TABLE crawl_urls
  ADD CONSTRAINT crawl_urls_state_check CHECK (state IN ('queued', 'active', 'done', 'skipped', 'failed', 'alias')),
  ADD COLUMN discovered_from text;
CREATE INDEX crawl_urls_parent_idx ON crawl_urls (job_id, discovered_from) WHERE state = 'queued';
CREATE INDEX crawl_urls_stale_idx ON crawl_urls (updated_at) WHERE state IN ('queued', 'active');

-- The page's outgoing links (same site, normalised) and nofollow/noindex state, so a 304 on a
-- re-crawl still feeds the frontier without the body.
ALTER TABLE pages ADD COLUMN links text[];

-- embed_job_id: the admin job (crawl or generate-embeddings) waiting for this document's embedding;
-- cleared when the embedding is written or finally given up on. A job is settled when no document
-- points at it. embed_lease/embed_lease_until: which embed job holds the document right now, so
-- concurrent embed jobs never pay twice for one document and a dead worker's claim expires.
ALTER TABLE documents
  ADD COLUMN embed_job_id uuid REFERENCES jobs (id) ON DELETE SET NULL,
  ADD COLUMN embed_lease text,
  ADD COLUMN embed_lease_until timestamptz;
CREATE INDEX documents_embed_job_idx ON documents (embed_job_id) WHERE embed_job_id IS NOT NULL;
CREATE INDEX documents_page_idx ON documents (page_id);
-- A chunk already embedded anywhere in the client's knowledge base is not paid for twice.
CREATE INDEX documents_client_hash_idx ON documents (client_id, content_hash);

-- Down Migration
DROP INDEX IF EXISTS documents_client_hash_idx;
DROP INDEX IF EXISTS documents_page_idx;
DROP INDEX IF EXISTS documents_embed_job_idx;
ALTER TABLE documents DROP COLUMN IF EXISTS embed_lease_until, DROP COLUMN IF EXISTS embed_lease, DROP COLUMN IF EXISTS embed_job_id;
ALTER TABLE pages DROP COLUMN IF EXISTS links;
DROP INDEX IF EXISTS crawl_urls_stale_idx;
DROP INDEX IF EXISTS crawl_urls_parent_idx;
DELETE FROM crawl_urls WHERE state = 'alias';
ALTER TABLE crawl_urls DROP CONSTRAINT crawl_urls_state_check;
ALTER TABLE crawl_urls
  ADD CONSTRAINT crawl_urls_state_check CHECK (state IN ('queued', 'active', 'done', 'skipped', 'failed')),
  DROP COLUMN IF EXISTS discovered_from;
ALTER TABLE jobs
  DROP COLUMN IF EXISTS robots,
  DROP COLUMN IF EXISTS notes,
  DROP COLUMN IF EXISTS pages_removed,
  DROP COLUMN IF EXISTS frontier_capped,
  DROP COLUMN IF EXISTS frontier_size,
  DROP COLUMN IF EXISTS phase;
