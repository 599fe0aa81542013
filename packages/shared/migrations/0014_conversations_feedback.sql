-- Up Migration
-- What visitors asked, for the operator (docs/operators.md): each message gets a public id (the
-- messageId of a chat answer, which visitor feedback names), whether the answer declined, and the
-- visitor's rating; a session keeps the page it started on.
ALTER TABLE messages
  ADD COLUMN public_id uuid NOT NULL DEFAULT gen_random_uuid(),
  ADD COLUMN declined boolean NOT NULL DEFAULT false,
  ADD COLUMN feedback text CHECK (feedback IN ('up', 'down')),
  ADD COLUMN feedback_comment text,
  ADD COLUMN feedback_at timestamptz;
CREATE UNIQUE INDEX messages_public_id_idx ON messages (public_id);
CREATE INDEX messages_client_created_idx ON messages (client_id, created_at);

ALTER TABLE sessions ADD COLUMN page_url text;
CREATE INDEX sessions_client_active_idx ON sessions (client_id, last_active_at DESC);

-- How long a client's transcripts are kept after their last message (the retention sweep).
ALTER TABLE clients ADD COLUMN transcript_retention_days integer NOT NULL DEFAULT 90
  CHECK (transcript_retention_days BETWEEN 1 AND 3650);
