import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '@kbchat/shared/db/embedded-postgres';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('embedded Postgres on a data directory', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('creates the cluster on first start, keeps its data across restarts, with a small buffer pool', async () => {
    const parent = await mkdtemp(path.join(os.tmpdir(), 'kbchat-pglite-'));
    dirs.push(parent);
    const dataDir = path.join(parent, 'pgdata');

    const first = await startEmbeddedPostgres({ dataDir });
    try {
      // Created by a child process, opened by this one.
      expect(existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(true);
      await query(first.url, 'CREATE TABLE kept (id int PRIMARY KEY, v vector(3))');
      await query(first.url, "INSERT INTO kept VALUES (1, '[1,2,3]')");
      const [buffers] = await query<{ shared_buffers: string }>(first.url, 'SHOW shared_buffers');
      expect(buffers?.shared_buffers).toBe('24MB');
    } finally {
      await first.stop();
    }

    const second = await startEmbeddedPostgres({ dataDir });
    try {
      const rows = await query<{ id: number; v: string }>(second.url, 'SELECT id, v::text AS v FROM kept');
      expect(rows).toEqual([{ id: 1, v: '[1,2,3]' }]);
    } finally {
      await second.stop();
    }
  }, 120_000);
});
