-- Up Migration
-- Latent semantic vectors learned from each client's own pages (packages/shared/src/embedding/lsa.ts,
-- docs/retrieval.md "Related words"): one per chunk, and one per lexeme with its idf for folding a
-- question in. Rebuilt when a crawl's frontier drains. The dimension is the client's (untyped
-- column): the list is an exact scan of one tenant's chunks, never an index.
ALTER TABLE documents ADD COLUMN lsa vector;

CREATE TABLE lsa_terms (
  client_id uuid NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
  lexeme    text NOT NULL,
  idf       double precision NOT NULL,
  vec       vector NOT NULL,
  PRIMARY KEY (client_id, lexeme)
);

-- Down Migration
DROP TABLE lsa_terms;
ALTER TABLE documents DROP COLUMN lsa;
