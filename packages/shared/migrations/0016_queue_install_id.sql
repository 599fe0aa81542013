-- Up Migration
-- The database's identity: one random id, made when the database is first migrated. Everything kbchat
-- puts in Redis belongs to one database; this id says which. An embedded install (no REDIS_PREFIX set)
-- derives its queue prefix from it, so two installs on one machine's Redis never share queues, and
-- every deployment records it in Redis to notice another database on its queues (docs/pipeline.md).
CREATE TABLE kbchat_install (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- At most one row.
  singleton  boolean NOT NULL DEFAULT true UNIQUE CHECK (singleton),
  created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO kbchat_install DEFAULT VALUES;

-- Down Migration
DROP TABLE IF EXISTS kbchat_install;
