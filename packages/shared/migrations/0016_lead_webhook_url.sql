-- Up Migration
-- A lead's webhook settings as they were when the lead was captured.
--  webhook_url, webhook_format: where and in which form the lead goes. A retry after the client's
--    URL (or format) changed still goes to the receiver the lead was meant for, with the same body.
--    NULL on leads captured before this migration: those use the client's current settings.
--  webhook_job: the BullMQ job id of the lead's current delivery job. The outbox gives a lead a new
--    job (a new id) when its job finished in Redis while the lead's row still says it is undelivered.
ALTER TABLE leads
  ADD COLUMN webhook_url text,
  ADD COLUMN webhook_format text CHECK (webhook_format IN ('envelope', 'flat')),
  ADD COLUMN webhook_job text;

-- Down Migration
ALTER TABLE leads
  DROP COLUMN IF EXISTS webhook_job,
  DROP COLUMN IF EXISTS webhook_format,
  DROP COLUMN IF EXISTS webhook_url;
