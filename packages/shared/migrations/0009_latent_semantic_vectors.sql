-- Up Migration
-- Latent semantic vectors learned from each client's own pages (packages/shared/src/embedding/lsa.ts,
-- docs/retrieval.md "Related words"): one per chunk, and one per lexeme with its idf for folding a
-- question in. Rebuilt when a crawl's frontier drains. Tables of their own, not columns of documents:
-- a rebuild replaces a client's rows while the embedder is still writing the documents' embeddings,
-- and must not take those rows' locks. The dimension is the client's (untyped vector): the list is an
-- exact scan of one tenant's chunks, never an index.
CREATE TABLE lsa_terms (
  client_id uuid NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
  lexeme    text NOT NULL,
  idf       double precision NOT NULL,
  vec       vector NOT NULL,
  PRIMARY KEY (client_id, lexeme)
);

CREATE TABLE lsa_chunks (
  document_id uuid PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
  client_id   uuid NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
  vec         vector NOT NULL
);
CREATE INDEX lsa_chunks_client_idx ON lsa_chunks (client_id);

-- Down Migration
DROP TABLE lsa_chunks;
DROP TABLE lsa_terms;
