-- Up Migration
-- The operator's one-step fix (docs/operators.md "Curated answers"): a question and the answer to
-- give, matched against visitors' questions in other words; and the knowledge gaps an operator
-- dismissed (a gap is a group of similar questions, identified by its key words).
CREATE TABLE curated_answers (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  client_id  uuid NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
  question   text NOT NULL,
  answer     text NOT NULL,
  url        text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX curated_answers_client_idx ON curated_answers (client_id, created_at);

CREATE TABLE knowledge_gap_dismissals (
  client_id    uuid NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
  gap_id       text NOT NULL,
  dismissed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (client_id, gap_id)
);

-- A curated answer is retrieved like a page: its question and answer are the documents of a hidden
-- source of type 'answer' (not listed with the client's sources), which goes with the answer.
ALTER TABLE sources DROP CONSTRAINT sources_type_check;
ALTER TABLE sources ADD CONSTRAINT sources_type_check CHECK (type IN ('website', 'text', 'file', 'answer'));
ALTER TABLE curated_answers ADD COLUMN source_id uuid REFERENCES sources (id) ON DELETE SET NULL;
