-- Up Migration
-- The whole data model of DESIGN.md §3. Every row that belongs to a tenant carries client_id
-- and is removed with its client (ON DELETE CASCADE).

CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE clients (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name             text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  lead_webhook_url text,
  webhook_format   text NOT NULL DEFAULT 'envelope' CHECK (webhook_format IN ('envelope', 'flat')),
  webhook_secret   text NOT NULL,
  allowed_origins  text[] NOT NULL DEFAULT '{}',
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);

-- One per (client, normalised start URL): a re-crawl reuses it, so sourceId is stable.
CREATE TABLE sources (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  client_id       uuid NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
  start_url       text NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  last_crawled_at timestamptz,
  UNIQUE (client_id, start_url)
);

-- Admin jobs (a crawl, a generate-embeddings run): what GET /api/admin/jobs/:jobId reports.
CREATE TABLE jobs (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  client_id         uuid NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
  source_id         uuid REFERENCES sources (id) ON DELETE CASCADE,
  kind              text NOT NULL CHECK (kind IN ('crawl', 'generate-embeddings')),
  status            text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'active', 'completed', 'failed')),
  options           jsonb NOT NULL DEFAULT '{}',
  pages_discovered  integer NOT NULL DEFAULT 0,
  pages_fetched     integer NOT NULL DEFAULT 0,
  pages_indexed     integer NOT NULL DEFAULT 0,
  pages_unchanged   integer NOT NULL DEFAULT 0,
  pages_skipped     integer NOT NULL DEFAULT 0,
  pages_failed      integer NOT NULL DEFAULT 0,
  skip_reasons      jsonb NOT NULL DEFAULT '{}',
  documents_created integer NOT NULL DEFAULT 0,
  documents_skipped integer NOT NULL DEFAULT 0,
  embeddings_done   integer NOT NULL DEFAULT 0,
  embeddings_failed integer NOT NULL DEFAULT 0,
  embedding_tokens  bigint NOT NULL DEFAULT 0,
  result            jsonb,
  message           text,
  error             text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  started_at        timestamptz,
  finished_at       timestamptz,
  updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX jobs_client_created_idx ON jobs (client_id, created_at DESC);
CREATE INDEX jobs_unfinished_idx ON jobs (status) WHERE status IN ('queued', 'active');

-- The crawl frontier: a URL is claimed once per crawl by inserting it here.
CREATE TABLE crawl_urls (
  job_id     uuid NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  url        text NOT NULL,
  depth      integer NOT NULL DEFAULT 0,
  state      text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'active', 'done', 'skipped', 'failed')),
  attempts   integer NOT NULL DEFAULT 0,
  reason     text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (job_id, url)
);
CREATE INDEX crawl_urls_open_idx ON crawl_urls (job_id, state) WHERE state IN ('queued', 'active');

CREATE TABLE pages (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  client_id     uuid NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
  source_id     uuid NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
  url           text NOT NULL,
  title         text NOT NULL DEFAULT '',
  content_hash  text,
  etag          text,
  last_modified text,
  http_status   integer,
  status        text NOT NULL DEFAULT 'indexed' CHECK (status IN ('indexed', 'skipped', 'failed', 'gone')),
  last_job_id   uuid,
  fetched_at    timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (client_id, url)
);
CREATE INDEX pages_source_idx ON pages (source_id);

-- The chunks. embedding stays NULL until generated; embedding_model says by which model.
CREATE TABLE documents (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  client_id       uuid NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
  source_id       uuid REFERENCES sources (id) ON DELETE CASCADE,
  page_id         uuid REFERENCES pages (id) ON DELETE CASCADE,
  url             text NOT NULL,
  title           text NOT NULL DEFAULT '',
  heading         text,
  chunk_index     integer NOT NULL,
  content         text NOT NULL CHECK (length(btrim(content)) > 0),
  content_hash    text NOT NULL,
  token_count     integer,
  embedding       vector(1536),
  embedding_model text,
  fts             tsvector GENERATED ALWAYS AS (
                    setweight(to_tsvector('english'::regconfig, coalesce(title, '') || ' ' || coalesce(heading, '')), 'A') ||
                    setweight(to_tsvector('english'::regconfig, content), 'B')
                  ) STORED,
  created_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (page_id, chunk_index)
);
CREATE INDEX documents_client_idx ON documents (client_id);
CREATE INDEX documents_source_idx ON documents (source_id);
CREATE INDEX documents_unembedded_idx ON documents (client_id) WHERE embedding IS NULL;
CREATE INDEX documents_embedding_hnsw_idx ON documents USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64);
CREATE INDEX documents_fts_idx ON documents USING gin (fts);

-- Conversations are keyed by (client, session): a sessionId never reaches another client's history.
CREATE TABLE sessions (
  client_id      uuid NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
  session_id     text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  last_active_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (client_id, session_id)
);

CREATE TABLE messages (
  id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  client_id           uuid NOT NULL,
  session_id          text NOT NULL,
  role                text NOT NULL CHECK (role IN ('user', 'assistant')),
  content             text NOT NULL,
  sources             jsonb NOT NULL DEFAULT '[]',
  lead_capture_intent boolean NOT NULL DEFAULT false,
  created_at          timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (client_id, session_id) REFERENCES sessions (client_id, session_id) ON DELETE CASCADE
);
CREATE INDEX messages_session_idx ON messages (client_id, session_id, id);

-- A lead row is committed before its webhook job is enqueued; webhook_status is the outbox.
CREATE TABLE leads (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  client_id      uuid NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
  name           text NOT NULL,
  email          text NOT NULL,
  phone          text,
  message        text,
  session_id     text,
  source_ip      text,
  webhook_status text NOT NULL DEFAULT 'none' CHECK (webhook_status IN ('none', 'pending', 'queued', 'delivered', 'failed')),
  webhook_queued_at timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX leads_client_created_idx ON leads (client_id, created_at DESC);
CREATE INDEX leads_webhook_outbox_idx ON leads (created_at) WHERE webhook_status IN ('pending', 'queued');

-- One row per delivery attempt of a lead webhook.
CREATE TABLE webhook_deliveries (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  client_id   uuid NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
  lead_id     uuid NOT NULL REFERENCES leads (id) ON DELETE CASCADE,
  message_id  text NOT NULL,
  url         text NOT NULL,
  attempt     integer NOT NULL,
  outcome     text NOT NULL CHECK (outcome IN ('delivered', 'rejected', 'error')),
  status_code integer,
  error       text,
  duration_ms integer,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_client_idx ON webhook_deliveries (client_id, created_at DESC);
CREATE INDEX webhook_deliveries_lead_idx ON webhook_deliveries (lead_id);

-- Provider usage per client, day, kind ('embedding', 'query-embedding', 'chat') and model.
CREATE TABLE usage (
  client_id         uuid NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
  day               date NOT NULL DEFAULT current_date,
  kind              text NOT NULL,
  model             text NOT NULL,
  requests          bigint NOT NULL DEFAULT 0,
  prompt_tokens     bigint NOT NULL DEFAULT 0,
  completion_tokens bigint NOT NULL DEFAULT 0,
  cost_usd          numeric(14, 6) NOT NULL DEFAULT 0,
  PRIMARY KEY (client_id, day, kind, model)
);

-- Down Migration
DROP TABLE IF EXISTS usage, webhook_deliveries, leads, messages, sessions, documents, pages, crawl_urls, jobs, sources, clients;
