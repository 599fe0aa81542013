-- Up Migration
-- Sources that are not websites (docs/sources.md): a text an operator wrote, or an uploaded file.
-- start_url is what their documents cite: the url given with them, else the gateway's /files/<id>
-- address, which serves the original. The original bytes stay with the source and go with it.
ALTER TABLE sources
  ADD COLUMN type text NOT NULL DEFAULT 'website' CHECK (type IN ('website', 'text', 'file')),
  ADD COLUMN title text;

CREATE TABLE source_files (
  source_id    uuid PRIMARY KEY REFERENCES sources (id) ON DELETE CASCADE,
  client_id    uuid NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
  file_name    text NOT NULL,
  kind         text NOT NULL CHECK (kind IN ('pdf', 'docx', 'html', 'markdown', 'text')),
  byte_size    integer NOT NULL,
  bytes        bytea NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
