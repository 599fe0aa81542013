import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Logger } from '../logger.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations', import.meta.url));
/** SQL functions kept whole in one file each, re-applied after the numbered migrations. */
export const REPEATABLE_DIR = fileURLToPath(new URL('../../sql', import.meta.url));
const MIGRATIONS_TABLE = 'kbchat_migrations';
/** Name and checksum of each repeatable file as last applied. */
export const REPEATABLES_TABLE = 'kbchat_repeatables';
/**
 * Numbered migrations that are empty placeholders for a migration deleted after it landed: a database
 * may have run the original or not, so their place in the order is not checked (and a database that
 * never ran one runs the placeholder, which does nothing).
 */
const PLACEHOLDERS: ReadonlySet<string> = new Set(['0005_hnsw_m12']);

/**
 * Applies pending migrations (numbered SQL files in packages/shared/migrations) with node-pg-migrate,
 * then the repeatable files of packages/shared/sql whose content changed.
 * Safe to call from every process at start: an advisory lock makes concurrent callers wait,
 * and a second run finds nothing to do.
 */
export async function migrate(databaseUrl: string, log?: Logger, options: { count?: number } = {}): Promise<string[]> {
  const run = new Set(await checkOrder(databaseUrl));
  const pending = migrationNames().some((name) => !run.has(name));
  // node-pg-migrate (with jiti, yaml and glob) is loaded only when there is something to run: a
  // start on a migrated database never holds it (docs/performance.md, 22.2).
  const { runner } = pending ? await import('node-pg-migrate') : { runner: async () => [] as { name: string }[] };
  const applied = await runner({
    // Only the next `count` migrations: a database as an older release left it (tests of upgrades).
    ...(options.count !== undefined ? { count: options.count } : {}),
    databaseUrl,
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: MIGRATIONS_TABLE,
    singleTransaction: true,
    advisoryLockMode: 'wait',
    // checkOrder above, which knows the placeholders.
    checkOrder: false,
    log: (msg: string) => log?.debug({ migration: msg }, 'migrate'),
  });
  const names = applied.map((m) => m.name);
  // A database brought only part of the way (upgrade tests) keeps the functions of its migrations.
  if (options.count === undefined) {
    // A numbered migration may have replaced or dropped a function: then every file is applied again.
    const repeated = await applyRepeatables(databaseUrl, names.length > 0);
    if (repeated.length > 0) log?.info({ repeatables: repeated }, 'database functions applied');
  }
  // A fresh database runs every migration: their count and the first and last name, not a line that
  // grows with each one (each is logged at debug level above).
  if (names.length > 0) log?.info({ applied: names.length, first: names[0], last: names.at(-1) }, 'database migrated');
  return names;
}

function migrationNames(): string[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.sql'))
    .map((f) => f.slice(0, -'.sql'.length))
    .sort();
}

/**
 * node-pg-migrate's order check without the placeholders: every migration the database ran still has
 * its file, and no file it has not run sorts before one it has (two branches that both took the
 * next number). Returns the migrations the database ran.
 */
async function checkOrder(databaseUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let run: string[];
  try {
    const { rows } = await client
      .query<{ name: string }>(`SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY run_on, id`)
      .catch((err: { code?: string }) => {
        if (err.code === '42P01') return { rows: [] }; // undefined_table: a fresh database
        throw err;
      });
    run = rows.map((r) => r.name);
  } finally {
    await client.end();
  }
  const files = migrationNames();
  const gone = run.filter((name) => !files.includes(name));
  if (gone.length > 0) {
    throw new Error(
      `The database ran migrations that are not in ${MIGRATIONS_DIR}: ${gone.join(', ')} (restore a deleted migration as an empty placeholder)`,
    );
  }
  const ran = run.filter((name) => !PLACEHOLDERS.has(name));
  const ordered = files.filter((name) => !PLACEHOLDERS.has(name));
  for (let i = 0; i < ran.length; i++) {
    if (ran[i] !== ordered[i]) throw new Error(`Not run migration ${ordered[i]} is preceding already run migration ${ran[i]}`);
  }
  return run;
}

/**
 * Applies the files of packages/shared/sql whose checksum differs from the one recorded when they were
 * last applied, or all of them when `all` (each file drops and creates one function: its current
 * definition lives in that one file instead of being rewritten whole by each migration that changes
 * it). One transaction under an advisory lock, so concurrent starters take turns and a caller never
 * sees the function missing. Returns the files applied.
 */
async function applyRepeatables(databaseUrl: string, all: boolean): Promise<string[]> {
  const files = readdirSync(REPEATABLE_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query('BEGIN');
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended('kbchat_repeatable_sql', 0))");
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${REPEATABLES_TABLE} (name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ name: string; checksum: string }>(`SELECT name, checksum FROM ${REPEATABLES_TABLE}`);
    const recorded = new Map(rows.map((r) => [r.name, r.checksum]));
    for (const f of files) {
      const sql = readFileSync(path.join(REPEATABLE_DIR, f), 'utf8');
      const checksum = createHash('sha256').update(sql).digest('hex');
      if (!all && recorded.get(f) === checksum) continue;
      await client.query(sql);
      await client.query(
        `INSERT INTO ${REPEATABLES_TABLE} (name, checksum) VALUES ($1, $2)
         ON CONFLICT (name) DO UPDATE SET checksum = EXCLUDED.checksum, applied_at = now()`,
        [f, checksum],
      );
      applied.push(f);
    }
    await client.query('COMMIT');
  } catch (err) {
    // Not logged: err (thrown below) is the failure; a ROLLBACK that fails too means the connection
    // is gone, and client.end() discards the transaction either way.
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    await client.end();
  }
  return applied;
}
