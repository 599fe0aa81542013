// The embedded database builds no per-tenant graphs, whatever reaches it: it is one backend, and a
// build held it for minutes while visitors' questions waited (packages/shared/src/db/vector-index.ts).
import { startEmbeddedPostgres } from '@kbchat/shared/db/embedded-postgres';
import { migrate } from '@kbchat/shared/db/migrate';
import { createPool } from '@kbchat/shared/db/pool';
import { isEmbeddedServer, reconcileVectorIndexes } from '@kbchat/shared/db/vector-index';
import { describe, expect, it } from 'vitest';

describe('per-tenant graphs on the embedded database', () => {
  it('are never built, though a tenant is past the exact-scan threshold and DATABASE_URL points at it', async () => {
    const db = await startEmbeddedPostgres();
    const pool = await createPool({ connectionString: db.url, max: 2 });
    try {
      await migrate(db.url);
      const { rows } = await pool.query<{ id: string }>(
        "INSERT INTO clients (name, webhook_secret) VALUES ('big', 'whsec_big') RETURNING id",
      );
      const clientId = rows[0]?.id as string;
      const vector = `[${Array.from({ length: 1536 }, (_, i) => (i % 7 === 0 ? 1 : 0)).join(',')}]`;
      for (let i = 0; i < 3; i++)
        await pool.query(
          `INSERT INTO documents (client_id, url, chunk_index, content, content_hash, embedding, embedding_model)
           VALUES ($1, 'https://big.example/' || $2, 0, 'boiler warranty ' || $2, md5($2::text), $3::vector, 'local-lexical-v1')`,
          [clientId, i, vector],
        );
      await pool.query(`INSERT INTO term_stats_totals (client_id, documents, avg_length, refreshed_at) VALUES ($1, 3, 3, now())`, [
        clientId,
      ]);
      expect(await isEmbeddedServer(pool)).toBe(true);
      expect(await reconcileVectorIndexes(pool, { exactScanMaxDocs: 2 })).toEqual({ built: [], dropped: [] });
      const { rows: graphs } = await pool.query("SELECT indexname FROM pg_indexes WHERE indexname LIKE 'documents_embedding_hnsw_%'");
      expect(graphs).toEqual([]);
    } finally {
      await pool.end();
      await db.stop();
    }
  });
});
