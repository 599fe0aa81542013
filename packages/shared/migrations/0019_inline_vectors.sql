-- Up Migration
-- A chunk's vector stays in its row. Out of line (TOAST, the vector type's default storage) every
-- exact scan — how every tenant under RETRIEVAL_EXACT_SCAN_MAX_DOCS is searched — fetched each row's
-- 6 KB vector back from the TOAST table: ~2 µs of the ~2.5 µs a row cost. In the row (PLAIN storage,
-- rows up to a page before anything is moved out) the scan reads it in place, 4× less backend CPU
-- (docs/performance.md, 22.4); an insert writes one tuple instead of a tuple and four TOAST chunks;
-- the table is no larger. Rows written before this keep their vectors out of line until they are
-- written again or `VACUUM FULL documents` rewrites the table (docs/retrieval.md, "Vector list").
ALTER TABLE documents SET (toast_tuple_target = 8160);
ALTER TABLE documents ALTER COLUMN embedding SET STORAGE PLAIN;

-- Down Migration
ALTER TABLE documents ALTER COLUMN embedding SET STORAGE EXTERNAL;
ALTER TABLE documents RESET (toast_tuple_target);
