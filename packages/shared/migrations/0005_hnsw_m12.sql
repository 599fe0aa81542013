-- Up Migration
-- The HNSW index with m = 12 neighbours per node instead of 16 (ef_construction stays 64). Keeping the
-- index up to date is most of what a crawl costs Postgres: every embedding written is inserted into the
-- graph, and each insertion also revisits its neighbours' lists, so its cost grows with m.
-- bench/hnsw-insert-cost.ts (chunks of the PostgreSQL docs, same run): 3.72 -> 2.23 ms of backend CPU
-- per stored chunk (no vector index: 0.35). Recall is unchanged within run-to-run noise:
-- pnpm bench scale --scale-documents 50000, two runs each, m 16 vs m 12: HNSW ef_search 100
-- relaxed_order recall@10 0.894 / 0.907 vs 0.894 / 0.899; the service's searchCandidates 0.997 / 0.996
-- vs 0.991 / 0.998. Lowering ef_construction instead cost recall (32: 0.799 and 0.963; 48: 0.848 and
-- 0.988), as did m 8 (0.772 and 0.971).
-- The graph is rebuilt: reads of documents wait while it is (seconds for tens of thousands of rows).
DROP INDEX IF EXISTS documents_embedding_hnsw_idx;
CREATE INDEX documents_embedding_hnsw_idx ON documents USING hnsw (embedding vector_cosine_ops) WITH (m = 12, ef_construction = 64);

-- Down Migration
DROP INDEX IF EXISTS documents_embedding_hnsw_idx;
CREATE INDEX documents_embedding_hnsw_idx ON documents USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64);
