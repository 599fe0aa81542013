-- Up Migration
-- A source keeps what its re-crawls reuse (docs/crawling.md "Re-crawls, scope and changes"):
-- crawl_options = {maxPages, render, include, exclude} of the last crawl asked for; schedule is
-- 'off', 'daily', 'weekly' or a cron pattern, run by one BullMQ job scheduler per source.
ALTER TABLE sources
  ADD COLUMN crawl_options jsonb NOT NULL DEFAULT '{}'::jsonb,
  ADD COLUMN schedule text NOT NULL DEFAULT 'off';

-- What each crawl changed: the pages it added, changed (new content) and removed.
CREATE TABLE crawl_changes (
  job_id     uuid NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  source_id  uuid NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
  url        text NOT NULL,
  change     text NOT NULL CHECK (change IN ('added', 'changed', 'removed')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (job_id, url)
);
CREATE INDEX crawl_changes_source_idx ON crawl_changes (source_id, job_id);
