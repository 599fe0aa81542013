-- Up Migration
-- Intentionally empty. 0005 once rebuilt the HNSW index with m = 12 and was reverted (m = 12 left a tiny
-- tenant's rows out of the graph's reach among near-duplicates; m = 16 from 0001 stays). Its file is kept,
-- under its original name, so that a database that ran it still finds every migration it recorded; such a
-- database keeps the m = 12 index it built. PLACEHOLDERS in packages/shared/src/db/migrate.ts exempts it
-- from the order check: a database that never ran it runs this empty file.
SELECT 1;

-- Down Migration
SELECT 1;
