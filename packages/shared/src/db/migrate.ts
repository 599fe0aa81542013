import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';
import type { Logger } from '../logger.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations', import.meta.url));

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
  if (names.length > 0) log?.info({ applied: names }, 'database migrated');
  return names;
}
