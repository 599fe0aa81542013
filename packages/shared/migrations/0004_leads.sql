-- Up Migration
-- Delivery bookkeeping for lead webhooks.
--  webhook_attempts: attempts across every job the lead ever had (the outbox may enqueue a new one),
--    so webhook_deliveries.attempt keeps counting instead of starting over.
--  webhook_locked_until: a claim taken before a request is sent. A job BullMQ hands out twice (a stalled
--    lock after a Redis restart) finds the claim and waits instead of sending a second request; a crashed
--    worker's claim simply expires. Counting live claims per client caps one client's in-flight deliveries.
--  webhook_finished_at: when the lead reached delivered or failed.
--  webhook_queue: the Redis key prefix (REDIS_PREFIX) of the deployment that captured the lead. The
--    outbox sweep of a deployment only enqueues its own leads, into its own queue: two deployments
--    on one database (or parallel test instances) never take each other's leads.
ALTER TABLE leads
  ADD COLUMN webhook_queue text,
  ADD COLUMN webhook_attempts integer NOT NULL DEFAULT 0,
  ADD COLUMN webhook_locked_until timestamptz,
  ADD COLUMN webhook_finished_at timestamptz;

CREATE INDEX leads_webhook_inflight_idx ON leads (client_id) WHERE webhook_locked_until IS NOT NULL;

-- Down Migration
DROP INDEX IF EXISTS leads_webhook_inflight_idx;
ALTER TABLE leads
  DROP COLUMN IF EXISTS webhook_finished_at,
  DROP COLUMN IF EXISTS webhook_locked_until,
  DROP COLUMN IF EXISTS webhook_attempts,
  DROP COLUMN IF EXISTS webhook_queue;
