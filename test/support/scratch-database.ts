import { startEmbeddedPostgres } from '@kbchat/shared/db/embedded-postgres';
import { migrate } from '@kbchat/shared/db/migrate';
import type pg from 'pg';
import { inject } from 'vitest';
import { createDatabase } from './infra.ts';

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A migrated database of one test file's own, so it can count (or log) every write without other
 * test files' rows in the way: on the run's Postgres server in native mode, named like the run
 * databases so a killed run's leftover is dropped by the next one; a private PGlite when embedded.
 */
export async function createScratchDatabase(): Promise<ScratchDatabase> {
  if (inject('infraMode') === 'embedded') {
    const embedded = await startEmbeddedPostgres();
    await migrate(embedded.url);
    return { url: embedded.url, drop: () => embedded.stop() };
  }
  const name = `kbchat_test_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6).padEnd(4, '0')}`;
  const db = await createDatabase(inject('databaseUrl'), name);
  await migrate(db.url);
  return { url: db.url, drop: db.drop };
}

export const KBCHAT_TABLES = [
  'clients',
  'sources',
  'source_files',
  'jobs',
  'crawl_urls',
  'pages',
  'documents',
  'sessions',
  'messages',
  'leads',
  'webhook_deliveries',
  'usage',
  'term_stats',
  'term_stats_totals',
  'lsa_terms',
  'lsa_chunks',
  'lsa_state',
  'crawl_changes',
  'curated_answers',
  'knowledge_gap_dismissals',
  'kbchat_install',
] as const;

/** The migration runner's own tables (packages/shared/src/db/migrate.ts). */
const MIGRATION_BOOKKEEPING = ['kbchat_migrations', 'kbchat_repeatables'];

/**
 * Logs every insert, update and delete on the kbchat tables into write_log (a table of this
 * scratch database only), with the row minus its bulky columns: a test can then hold each write
 * against the request that was allowed to make it.
 */
export async function installWriteLog(db: pg.ClientBase | pg.Pool): Promise<void> {
  const { rows } = await db.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
  );
  const present = new Set(rows.map((r) => r.table_name));
  // A table added by a later migration must be watched too, or the test would miss its writes.
  const unwatched = [...present].filter((t) => !(KBCHAT_TABLES as readonly string[]).includes(t) && !MIGRATION_BOOKKEEPING.includes(t));
  if (unwatched.length > 0) throw new Error(`tables not covered by the write log: ${unwatched.join(', ')}`);
  await db.query(`
    CREATE TABLE write_log (id bigserial PRIMARY KEY, tbl text NOT NULL, op text NOT NULL, row jsonb NOT NULL);
    CREATE FUNCTION log_write() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO write_log (tbl, op, row)
      VALUES (TG_TABLE_NAME, TG_OP, to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END) - 'embedding' - 'fts' - 'content' - 'vec');
      RETURN NULL;
    END $$;
  `);
  for (const t of KBCHAT_TABLES) {
    await db.query(`CREATE TRIGGER log_write AFTER INSERT OR UPDATE OR DELETE ON ${t} FOR EACH ROW EXECUTE FUNCTION log_write()`);
  }
}
