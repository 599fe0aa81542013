import { startEmbeddedPostgres } from '@kbchat/shared/db/embedded-postgres';
import { migrate } from '@kbchat/shared/db/migrate';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { KBCHAT_TABLES } from '../support/scratch-database.ts';

const TABLES = KBCHAT_TABLES;

async function schemaOf(url: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const tables = await c.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'");
    const indexes = await c.query<{ indexname: string; indexdef: string }>(
      "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'",
    );
    const embedding = await c.query<{ t: string }>(
      "SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'documents'::regclass AND attname = 'embedding'",
    );
    return { tables: tables.rows.map((r) => r.table_name), indexes: indexes.rows, embeddingType: embedding.rows[0]?.t };
  } finally {
    await c.end();
  }
}

async function checkTwice(url: string) {
  const first = await migrate(url);
  expect(first.length).toBeGreaterThan(0);
  const second = await migrate(url);
  expect(second).toEqual([]);
  const schema = await schemaOf(url);
  for (const t of TABLES) expect(schema.tables).toContain(t);
  expect(schema.embeddingType).toBe('vector(1536)');
  const defs = schema.indexes.map((i) => i.indexdef).join('\n');
  expect(defs).toMatch(/USING hnsw \(embedding vector_cosine_ops\)/);
  expect(defs).toMatch(/USING gin \(fts\)/);
  expect(defs).toMatch(/documents_client_idx ON public\.documents USING btree \(client_id\)/);
}

describe('migrations', () => {
  it('apply the whole data model on a fresh embedded database, and a second run changes nothing', async () => {
    const db = await startEmbeddedPostgres();
    try {
      await checkTwice(db.url);
    } finally {
      await db.stop();
    }
  });

  it('bring a database migrated before 0008 to the capped full-text candidates', async () => {
    const db = await startEmbeddedPostgres();
    try {
      // A database at 0007 as it landed: 0008 replaces its search function, 0007 is not edited.
      expect((await migrate(db.url, undefined, { count: 5 })).at(-1)).toBe('0007_term_statistics');
      const source = async () => {
        const c = new pg.Client({ connectionString: db.url });
        await c.connect();
        try {
          return (
            (await c.query<{ src: string }>("SELECT prosrc AS src FROM pg_proc WHERE proname = 'kbchat_search_candidates'")).rows[0]?.src ??
            ''
          );
        } finally {
          await c.end();
        }
      };
      expect(await source()).not.toMatch(/LIMIT 12/);
      expect(await migrate(db.url)).toEqual([
        '0008_search_candidates_capped_lexemes',
        '0009_latent_semantic_vectors',
        '0010_one_crawl_per_source',
        '0011_source_options_and_changes',
        '0012_sitemap_lastmod',
        '0013_text_and_file_sources',
      ]);
      expect(await source()).toMatch(/ORDER BY i\.idf DESC, i\.lexeme LIMIT 12/);
    } finally {
      await db.stop();
    }
  });

  it('apply on a fresh database of the test server, concurrently from two callers, then idempotently', async () => {
    const serverUrl = inject('databaseUrl');
    if (inject('infraMode') === 'embedded') {
      // The embedded server has one database; the case above covered it. Still prove a rerun is a no-op here.
      expect(await migrate(serverUrl)).toEqual([]);
      return;
    }
    const name = `kbchat_mig_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    try {
      // Two services starting at once: the advisory lock makes one wait, neither fails.
      const [a, b] = await Promise.all([migrate(url.toString()), migrate(url.toString())]);
      expect([...a, ...b].sort()).toEqual([...new Set([...a, ...b])].sort());
      expect(a.length + b.length).toBeGreaterThan(0);
      await checkTwiceAfterFirst(url.toString());
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });
});

async function checkTwiceAfterFirst(url: string) {
  expect(await migrate(url)).toEqual([]);
  const schema = await schemaOf(url);
  for (const t of TABLES) expect(schema.tables).toContain(t);
  expect(schema.embeddingType).toBe('vector(1536)');
}
