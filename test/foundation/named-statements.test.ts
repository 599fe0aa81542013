// The chat path's statements are named (packages/shared/src/db/pool.ts): parsed once per connection
// on a Postgres server, run unnamed on the embedded PGlite, whose connections share one session.
import { findClient, insertClient } from '@kbchat/shared/db/clients';
import { appendTurns, recentMessages } from '@kbchat/shared/db/messages';
import { createPool, type Pool, type PoolClient } from '@kbchat/shared/db/pool';
import { searchCandidates } from '@kbchat/shared/db/retrieval';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database.ts';

const NAMES = ['kbchat_find_client', 'kbchat_append_turns', 'kbchat_recent_messages', 'kbchat_search_candidates'];
const embedded = inject('infraMode') === 'embedded';

describe('named statements', () => {
  let scratch: ScratchDatabase;
  let pool: Pool;
  beforeAll(async () => {
    scratch = await createScratchDatabase();
    pool = await createPool({ connectionString: scratch.url, max: 3 });
  });
  afterAll(async () => {
    await pool?.end();
    await scratch?.drop();
  });

  /** The chat path's four statements, twice each: the second call runs what the first prepared. */
  async function chatPath(db: PoolClient, clientId: string, sessionId: string) {
    for (let i = 0; i < 2; i++) {
      expect((await findClient(db, clientId))?.id).toBe(clientId);
      await appendTurns(db, clientId, sessionId, [
        { role: 'user', content: `question ${i}` },
        { role: 'assistant', content: `answer ${i}`, sources: [], leadCaptureIntent: false },
      ]);
      const search = await searchCandidates(db, {
        clientId,
        embeddingModel: 'local-lexical-v1',
        embedding: undefined,
        query: 'boiler repair price',
        k: 5,
        exactScanMaxDocs: 2000,
        efSearch: 40,
      });
      expect(search.queryTerms.sort()).toEqual(['boiler', 'price', 'repair']);
    }
    return recentMessages(db, clientId, sessionId, 10);
  }

  it('run on several connections at once, prepared on each where the server keeps sessions apart', async () => {
    const client = await insertClient(pool, { name: 'Named statements' });
    const connections = await Promise.all([pool.connect(), pool.connect(), pool.connect()]);
    try {
      const histories = await Promise.all(connections.map((db, i) => chatPath(db, client.id, `session-${i}`)));
      for (const history of histories) {
        expect(history.map((m) => m.content)).toEqual(['question 0', 'answer 0', 'question 1', 'answer 1']);
      }
      for (const db of connections) {
        const { rows } = await db.query<{ name: string }>('SELECT name FROM pg_prepared_statements WHERE name = ANY($1) ORDER BY name', [
          NAMES,
        ]);
        // PGlite: one session behind every connection, where the second connection's name would collide.
        expect(rows.map((r) => r.name)).toEqual(embedded ? [] : [...NAMES].sort());
      }
    } finally {
      for (const db of connections) db.release();
    }
  });

  it('are parsed on every call with preparedStatements false (DATABASE_PREPARED_STATEMENTS, for poolers)', async () => {
    const client = await insertClient(pool, { name: 'Behind a pooler' });
    const unprepared = await createPool({ connectionString: scratch.url, max: 1, preparedStatements: false });
    const db = await unprepared.connect();
    try {
      expect(await chatPath(db, client.id, 'pooled')).toHaveLength(4);
      const { rows } = await db.query('SELECT name FROM pg_prepared_statements');
      expect(rows).toEqual([]);
    } finally {
      db.release();
      await unprepared.end();
    }
  });

  it('keep working on a connection after a migration adds a column to a table they read', async () => {
    const client = await insertClient(pool, { name: 'Before the migration' });
    const db = await pool.connect();
    try {
      await chatPath(db, client.id, 'before');
      // Another process migrates while this one runs: a statement prepared as `SELECT *` would now
      // fail with "cached plan must not change result type".
      await pool.query('ALTER TABLE clients ADD COLUMN added_later text');
      await pool.query('ALTER TABLE messages ADD COLUMN added_later text');
      const history = await chatPath(db, client.id, 'after');
      expect(history).toHaveLength(4);
      expect(await findClient(db, client.id)).not.toHaveProperty('added_later');
    } finally {
      db.release();
    }
  });
});
