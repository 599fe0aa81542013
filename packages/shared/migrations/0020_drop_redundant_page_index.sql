-- Up Migration
-- documents (page_id, chunk_index) is unique, so its index already serves every look-up by page_id
-- (a page's chunks, the foreign key's cascade): documents_page_idx was a second index every chunk's
-- insert and delete maintained for nothing.
DROP INDEX IF EXISTS documents_page_idx;

-- Down Migration
CREATE INDEX IF NOT EXISTS documents_page_idx ON documents (page_id);
