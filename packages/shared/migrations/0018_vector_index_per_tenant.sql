-- Up Migration
-- No shared HNSW graph: every chunk's insert paid for it (most of a crawl's database time), yet the
-- tenants the exact scan serves never read it, and filtered through it the small tenants of a big
-- table lost rows. A tenant past RETRIEVAL_EXACT_SCAN_MAX_DOCS gets a graph of its own, built in one
-- pass once its crawl is done (packages/shared/src/db/vector-index.ts, docs/retrieval.md).
DROP INDEX IF EXISTS documents_embedding_hnsw_idx;

-- Down Migration
CREATE INDEX IF NOT EXISTS documents_embedding_hnsw_idx ON documents USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64);
