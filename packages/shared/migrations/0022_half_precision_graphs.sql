-- Up Migration
-- Each large tenant's HNSW graph is now built on its vectors at half precision (vector-index.ts):
-- the float32 graphs built before are dropped here, and the embedder's sweep builds the new ones
-- (meanwhile those tenants are scanned exactly: the same rows, slower).
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE i.indrelid = 'documents'::regclass AND starts_with(c.relname, 'documents_embedding_hnsw_') LOOP
    EXECUTE format('DROP INDEX %I', r.relname);
  END LOOP;
END $$;

-- Down Migration
-- The half-precision graphs go; the earlier version's sweep builds its own.
DO $$
DECLARE r record;
BEGIN
  FOR r IN SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
            WHERE i.indrelid = 'documents'::regclass AND starts_with(c.relname, 'documents_embedding_hnsw_') LOOP
    EXECUTE format('DROP INDEX %I', r.relname);
  END LOOP;
END $$;
