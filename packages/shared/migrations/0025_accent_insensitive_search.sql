-- Up Migration
-- Words match whatever accents the visitor types: a page saying "cafés", "información" or "Zürich" is
-- found by "cafes", "informacion", "Zurich", and the reverse. The text-search configuration
-- kbchat_english is English's with the unaccent dictionary before the stemmer, for the token types that
-- hold letters beyond ASCII; every tsvector and tsquery of the service uses it. And a word of two
-- hyphened pieces is also indexed without its hyphen: "Wi-Fi" is found by "wifi", "check-in" by
-- "checkin" (the parser already gives "wi-fi", "wi" and "fi"). The chunks' lexemes are computed again (the generated column is
-- replaced: the table is rewritten once), then each client's term statistics, and its related words are
-- marked wanted so the crawler learns them again from the new lexemes (lsa_state, 0021).
CREATE EXTENSION IF NOT EXISTS unaccent;
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_ts_config WHERE cfgname = 'kbchat_english') THEN
    CREATE TEXT SEARCH CONFIGURATION kbchat_english (COPY = english);
    ALTER TEXT SEARCH CONFIGURATION kbchat_english ALTER MAPPING FOR hword, hword_part, word WITH unaccent, english_stem;
  END IF;
END
$$;

DROP INDEX IF EXISTS documents_client_fts_idx;
ALTER TABLE documents DROP COLUMN fts;
-- The content's words of two hyphened pieces of letters alone ("Wi-Fi", "check-in", "read-only"; every
-- other word blanked, and so are option names and dates), their hyphen removed, as body words.
ALTER TABLE documents ADD COLUMN fts tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('kbchat_english'::regconfig, coalesce(title, '') || ' ' || coalesce(heading, '')), 'A') ||
  setweight(to_tsvector('kbchat_english'::regconfig, content), 'B') ||
  setweight(to_tsvector('kbchat_english'::regconfig, replace(regexp_replace(' ' || content, '\s(?![^\w\s]*[[:alpha:]]+-[[:alpha:]]+[^\w\s]*(\s|$))\S*', ' ', 'g'), '-', '')), 'B')
) STORED;
CREATE INDEX documents_client_fts_idx ON documents USING gin (client_id, fts);

SELECT kbchat_refresh_term_stats(client_id) FROM term_stats_totals;
UPDATE lsa_state SET wanted_at = now();

-- Down Migration
DROP INDEX IF EXISTS documents_client_fts_idx;
ALTER TABLE documents DROP COLUMN fts;
ALTER TABLE documents ADD COLUMN fts tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english'::regconfig, coalesce(title, '') || ' ' || coalesce(heading, '')), 'A') ||
  setweight(to_tsvector('english'::regconfig, content), 'B')
) STORED;
CREATE INDEX documents_client_fts_idx ON documents USING gin (client_id, fts);
SELECT kbchat_refresh_term_stats(client_id) FROM term_stats_totals;
UPDATE lsa_state SET wanted_at = now();
DROP TEXT SEARCH CONFIGURATION IF EXISTS kbchat_english;
