import { createHash } from 'node:crypto';
import type { Config } from '@kbchat/shared/config';
import { toVector } from '@kbchat/shared/db/pool';
import { createEmbeddingProvider, type EmbeddingProvider } from '@kbchat/shared/providers/embeddings/embeddings';
import pg from 'pg';

/**
 * Writes a client's knowledge base straight into the documents table (source → pages → chunks),
 * embedded with the provider the gateway under test is configured with, so stored vectors and
 * query vectors come from the same model. Chat tests need a known corpus, not the crawler.
 */
export interface SeedPage {
  url: string;
  title: string;
  /** One entry per chunk, in order. */
  chunks: string[];
  heading?: string;
}

export interface SeedOptions {
  /** Store this embedding_model instead of the provider's (a document of an older model). */
  embeddingModel?: string;
  /** false: store the chunks without embeddings (as after a failed embedding step). */
  embed?: boolean;
  /** Provider to embed with; defaults to the configured one. */
  provider?: EmbeddingProvider;
}

export interface Seeder {
  provider: EmbeddingProvider;
  pool: pg.Pool;
  /** Returns the document ids, page by page, chunk by chunk. */
  seed(clientId: string, pages: SeedPage[], options?: SeedOptions): Promise<string[][]>;
  close(): Promise<void>;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export function createSeeder(databaseUrl: string, config: Config): Seeder {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const defaultProvider = createEmbeddingProvider(config);
  return {
    provider: defaultProvider,
    pool,
    async seed(clientId, pages, options = {}) {
      const provider = options.provider ?? defaultProvider;
      const texts = pages.flatMap((p) => p.chunks);
      // Batches well inside the API's 2048-input bound.
      const vectors: number[][] = [];
      if (options.embed !== false) {
        for (let i = 0; i < texts.length; i += 256) vectors.push(...(await provider.embed(texts.slice(i, i + 256))).vectors);
      }
      const origin = new URL(pages[0]?.url ?? 'https://example.test/').origin;
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const { rows: src } = await client.query<{ id: string }>(
          `INSERT INTO sources (client_id, start_url) VALUES ($1, $2)
           ON CONFLICT (client_id, start_url) DO UPDATE SET start_url = EXCLUDED.start_url RETURNING id`,
          [clientId, `${origin}/`],
        );
        const sourceId = src[0]?.id;
        const ids: string[][] = [];
        let n = 0;
        for (const page of pages) {
          const { rows: pg_ } = await client.query<{ id: string }>(
            `INSERT INTO pages (client_id, source_id, url, title, content_hash, status, fetched_at)
             VALUES ($1, $2, $3, $4, $5, 'indexed', now())
             ON CONFLICT (client_id, url) DO UPDATE SET title = EXCLUDED.title RETURNING id`,
            [clientId, sourceId, page.url, page.title, sha256(page.chunks.join('\n'))],
          );
          const pageId = pg_[0]?.id;
          const embedded = options.embed !== false;
          const { rows } = await client.query<{ id: string }>(
            `INSERT INTO documents (client_id, source_id, page_id, url, title, heading, chunk_index, content, content_hash,
                                    embedding, embedding_model)
             SELECT $1, $2, $3, $4, $5, $6, t.i - 1, t.content, t.hash, t.embedding::vector, $9
               FROM unnest($7::text[], $8::text[], $10::text[]) WITH ORDINALITY AS t(content, hash, embedding, i)
              ORDER BY t.i
             RETURNING id`,
            [
              clientId,
              sourceId,
              pageId,
              page.url,
              page.title,
              page.heading ?? null,
              page.chunks,
              page.chunks.map(sha256),
              embedded ? (options.embeddingModel ?? provider.model) : null,
              page.chunks.map(() => {
                const v = embedded ? vectors[n] : undefined;
                n++;
                return v ? toVector(v) : null;
              }),
            ],
          );
          ids.push(rows.map((r) => r.id));
        }
        await client.query('COMMIT');
        return ids;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
