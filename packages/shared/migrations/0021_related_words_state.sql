-- Up Migration
-- When a client's related words (lsa_terms, lsa_chunks) were last wanted and last learnt. A crawl
-- completes once its pages are stored and its term statistics rebuilt; it marks the related words
-- wanted in the transaction that completes it and the crawler learns them right after. A learn
-- records the time its read of the chunks began: built_at < wanted_at means a crawl completed since
-- (or the crawler stopped before it learnt them), and the crawl watchdog learns them again.
CREATE TABLE lsa_state (
  client_id  uuid PRIMARY KEY REFERENCES clients (id) ON DELETE CASCADE,
  wanted_at  timestamptz NOT NULL,
  built_at   timestamptz
);

-- Down Migration
DROP TABLE lsa_state;
