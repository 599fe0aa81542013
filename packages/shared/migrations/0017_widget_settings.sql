-- Up Migration
-- The operator's widget settings (docs/widget.md, "Settings"): title, greeting, colour, starter
-- questions and position, as a JSON object whose absent keys mean "the default". Validated by the
-- API's zod schema (packages/shared/src/schemas/clients.ts) on the way in and parsed on the way out.
ALTER TABLE clients ADD COLUMN widget jsonb NOT NULL DEFAULT '{}'::jsonb
  CHECK (jsonb_typeof(widget) = 'object');

-- Down Migration
ALTER TABLE clients DROP COLUMN IF EXISTS widget;
