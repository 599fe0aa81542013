-- Up Migration
-- The full-text index holds each chunk's client beside its words (btree_gin), so a question's search
-- reads only its client's entries. With words alone, the index matched the question's candidate query
-- against the posting lists of every client before the client filter: a Node.js docs question took
-- 24 ms in a database of 28,000 chunks and 240 ms in one of 279,000 — the deployment's size, not the
-- client's (docs/performance.md, change 29). Every full-text query names its client.
CREATE EXTENSION IF NOT EXISTS btree_gin;
CREATE INDEX IF NOT EXISTS documents_client_fts_idx ON documents USING gin (client_id, fts);
DROP INDEX IF EXISTS documents_fts_idx;

-- Down Migration
CREATE INDEX IF NOT EXISTS documents_fts_idx ON documents USING gin (fts);
DROP INDEX IF EXISTS documents_client_fts_idx;
