import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import pg from 'pg';
import type { Logger } from '../logger.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations', import.meta.url));
/** SQL functions kept whole in one file each, re-applied after the numbered migrations. */
export const REPEATABLE_DIR = fileURLToPath(new URL('../../sql', import.meta.url));

/**
 * Applies pending migrations (numbered SQL files in packages/shared/migrations) with node-pg-migrate.
 * Safe to call from every process at start: an advisory lock makes concurrent callers wait,
 * and a second run finds nothing to do.
 */
export async function migrate(databaseUrl: string, log?: Logger, options: { count?: number } = {}): Promise<string[]> {
  const applied = await runner({
    // Only the next `count` migrations: a database as an older release left it (tests of upgrades).
    ...(options.count !== undefined ? { count: options.count } : {}),
    databaseUrl,
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: 'kbchat_migrations',
    singleTransaction: true,
    advisoryLockMode: 'wait',
    checkOrder: true,
    log: (msg: string) => log?.debug({ migration: msg }, 'migrate'),
  });
  const names = applied.map((m) => m.name);
  // A database brought only part of the way (upgrade tests) keeps the functions of its migrations.
  if (options.count === undefined) await applyRepeatables(databaseUrl);
  if (names.length > 0) log?.info({ applied: names }, 'database migrated');
  return names;
}

/**
 * Re-applies every file of packages/shared/sql (each drops and creates one function: its current
 * definition lives in that one file instead of being rewritten whole by each migration that changes
 * it). One transaction under the migrations' advisory lock, so concurrent starters take turns and
 * a caller never sees the function missing.
 */
async function applyRepeatables(databaseUrl: string): Promise<void> {
  const files = readdirSync(REPEATABLE_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended('kbchat_repeatable_sql', 0))");
    for (const f of files) await client.query(readFileSync(path.join(REPEATABLE_DIR, f), 'utf8'));
    await client.query('COMMIT');
  } catch (err) {
    // Not logged: err (thrown below) is the failure; a ROLLBACK that fails too means the connection
    // is gone, and client.end() discards the transaction either way.
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    await client.end();
  }
}
