// A Postgres connection that dies inside a transaction (a server restart, a failover, an admin's
// pg_terminate_backend) must fail that transaction only: no uncaught 'error' event taking the
// process down, and the pool serves the next request. Seen first in fault c (postgres-outage).
import { createPool, type Pool, withTransaction } from '@kbchat/shared/db/pool';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

// PGlite (embedded mode) has one backend and no pg_terminate_backend to cut it with.
describe.skipIf(inject('infraMode') === 'embedded')('a connection lost mid-transaction', () => {
  let pool: Pool;
  beforeAll(async () => {
    pool = await createPool({ connectionString: inject('databaseUrl'), max: 2 });
  });
  afterAll(() => pool?.end());

  it('rejects that transaction, keeps the process up and the pool usable', async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      for (let i = 0; i < 3; i++) {
        await expect(
          withTransaction(pool, async (tx) => {
            await tx.query('SELECT 1');
            // The server ends this very connection, as a restart or failover would.
            await tx.query('SELECT pg_terminate_backend(pg_backend_pid())');
          }),
        ).rejects.toThrow(/terminat/i);
      }
      // The error event of the dead connection fires after the rejection: give it its turn.
      await new Promise((r) => setTimeout(r, 200));
      expect(uncaught).toEqual([]);
      const { rows } = await withTransaction(pool, (tx) => tx.query<{ ok: number }>('SELECT 1 AS ok'));
      expect(rows).toEqual([{ ok: 1 }]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});
