// The embed step against a transaction that references the documents it embeds (as the related
// words' rebuild does, inserting lsa_chunks while a crawl's embeddings are still being written):
// the foreign key's FOR KEY SHARE must neither block the embedder nor make its lease skip the rows.
import { embedDocuments } from '@kbchat/shared/embedding/embed-documents';
import { createLogger } from '@kbchat/shared/logger';
import { createLocalEmbeddingProvider } from '@kbchat/shared/providers/embeddings/embeddings';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, testPool } from './support/pipeline.ts';

describe('embedding beside a writer that references the documents', () => {
  let pool: pg.Pool;
  let clientId: string;

  beforeAll(async () => {
    pool = testPool();
    const { rows } = await pool.query<{ id: string }>(
      "INSERT INTO clients (name, webhook_secret) VALUES ('embed lock test', 'whsec_test') RETURNING id",
    );
    clientId = (rows[0] as { id: string }).id;
  });
  afterAll(async () => {
    await pool.query('DELETE FROM clients WHERE id = $1', [clientId]);
    await pool.end();
  });

  it('embeds every document while another transaction holds lsa_chunks rows pointing at them', async () => {
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO documents (client_id, url, title, chunk_index, content, content_hash)
       SELECT $1, 'https://lock.example/' || i, 'Lock ' || i, 0, 'The lantern page number ' || i || ' explains copper meadows.', md5(i::text)
         FROM generate_series(1, 6) AS i
       RETURNING id`,
      [clientId],
    );
    const ids = rows.map((r) => r.id);
    const other = await pool.connect();
    try {
      await other.query('BEGIN');
      await other.query(`INSERT INTO lsa_chunks (document_id, client_id, vec) SELECT unnest($1::uuid[]), $2, '[1,0,0]'::vector`, [
        ids,
        clientId,
      ]);
      // The rebuild's transaction is still open while the embedder writes.
      const summary = await Promise.race([
        embedDocuments(
          { pool, provider: createLocalEmbeddingProvider(), log: createLogger({ level: 'silent' }) },
          { clientId, documentIds: ids },
          'embed-lock-test',
        ),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the embedder waited on the open transaction')), 10_000)),
      ]);
      expect(summary.documents).toBe(ids.length);
      expect(
        await count(
          pool,
          'SELECT count(*) AS n FROM documents WHERE id = ANY ($1::uuid[]) AND embedding IS NOT NULL AND embed_lease IS NULL',
          [ids],
        ),
      ).toBe(ids.length);
      await other.query('COMMIT');
    } finally {
      await other.query('ROLLBACK').catch(() => undefined);
      other.release();
    }
  });
});
