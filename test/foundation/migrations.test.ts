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
  // No shared graph: tenants past the exact scan get one of their own (db/vector-index.ts).
  expect(defs).not.toMatch(/USING hnsw/);
  // One full-text index, the client beside the words (0023): a question reads only its client's entries.
  expect(defs).toMatch(/documents_client_fts_idx ON public\.documents USING gin \(client_id, fts\)/);
  expect(defs).not.toMatch(/USING gin \(fts\)/);
  expect(defs).toMatch(/documents_client_idx ON public\.documents USING btree \(client_id\)/);
  // A page's chunks are found through the unique (page_id, chunk_index) index: no second one on page_id.
  expect(defs).toMatch(/documents_page_id_chunk_index_key ON public\.documents USING btree \(page_id, chunk_index\)/);
  expect(defs).not.toMatch(/documents_page_idx/);
  expect(await toastedVectorBytes(url)).toBe(0);
}

/** What a stored chunk's vector puts in the documents table's TOAST relation (0019: nothing, it stays in its row). */
async function toastedVectorBytes(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('BEGIN');
    const client = await c.query<{ id: string }>("INSERT INTO clients (name, webhook_secret) VALUES ('toast', 's') RETURNING id");
    await c.query(
      "INSERT INTO documents (client_id, url, chunk_index, content, content_hash, embedding) VALUES ($1, 'u', 0, 'x', 'h', $2)",
      [client.rows[0]?.id, `[${Array.from({ length: 1536 }, (_, i) => ((i * 7919) % 1000) / 1000).join(',')}]`],
    );
    const { rows } = await c.query<{ n: string }>(
      "SELECT pg_relation_size(reltoastrelid) AS n FROM pg_class WHERE oid = 'documents'::regclass",
    );
    return Number(rows[0]?.n);
  } finally {
    await c.query('ROLLBACK');
    await c.end();
  }
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
      expect(await migrate(db.url, undefined, { count: 6 })).toEqual([
        '0001_initial',
        '0002_pipeline',
        '0004_leads',
        '0005_hnsw_m12',
        '0006_search_candidates_function',
        '0007_term_statistics',
      ]);
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
        '0014_conversations_feedback',
        '0015_curated_answers',
        '0016_lead_webhook_url',
        '0016_queue_install_id',
        '0017_widget_settings',
        '0018_vector_index_per_tenant',
        '0019_inline_vectors',
        '0020_drop_redundant_page_index',
        '0021_related_words_state',
        '0022_half_precision_graphs',
        '0023_tenant_full_text_index',
        '0024_curated_alternate_questions',
        '0025_accent_insensitive_search',
      ]);
      expect(await source()).toMatch(/ORDER BY i\.idf DESC, i\.lexeme LIMIT 12/);
    } finally {
      await db.stop();
    }
  });

  it('migrate a database whether it ran the deleted 0005 (in any order) or not, and refuse one whose migration is gone', async () => {
    const db = await startEmbeddedPostgres();
    try {
      await migrate(db.url);
      // Ran the original 0005 after 0006 (0006 landed first); then one that never ran it (after the revert).
      await sql(db.url, "UPDATE kbchat_migrations SET run_on = now() WHERE name = '0005_hnsw_m12'");
      expect(await migrate(db.url)).toEqual([]);
      await sql(db.url, "DELETE FROM kbchat_migrations WHERE name = '0005_hnsw_m12'");
      expect(await migrate(db.url)).toEqual(['0005_hnsw_m12']);
      expect(await migrate(db.url)).toEqual([]);
      await sql(db.url, "INSERT INTO kbchat_migrations (name, run_on) VALUES ('0003_gone', now())");
      await expect(migrate(db.url)).rejects.toThrow(/0003_gone/);
    } finally {
      await db.stop();
    }
  });

  it('drop the float32 graphs of an earlier version at 0022, leaving other indexes of documents; swap the full-text index at 0023; curated answers take other wordings at 0024; words match without their accents at 0025', async () => {
    const db = await startEmbeddedPostgres();
    try {
      await migrate(db.url, undefined, { count: 21 });
      const client = (await sql(db.url, "INSERT INTO clients (name, webhook_secret) VALUES ('a', 'whsec_a') RETURNING id"))[0]
        ?.id as string;
      const name = `documents_embedding_hnsw_${client.replaceAll('-', '')}`;
      // What the earlier sweep built for a large tenant.
      await sql(db.url, `CREATE INDEX ${name} ON documents USING hnsw (embedding vector_cosine_ops) WHERE client_id = '${client}'`);
      const indexes = async () =>
        (await sql(db.url, "SELECT indexname FROM pg_indexes WHERE tablename = 'documents' ORDER BY indexname")).map((r) => r.indexname);
      const before = await indexes();
      expect(before).toContain(name);
      expect(await migrate(db.url, undefined, { count: 1 })).toEqual(['0022_half_precision_graphs']);
      expect(await indexes()).toEqual(before.filter((n) => n !== name));
      // 0023: the word-only full-text index gives way to one with the client beside the words; the
      // chunks stored before are in it.
      await sql(
        db.url,
        `INSERT INTO documents (client_id, url, chunk_index, content, content_hash) VALUES ('${client}', 'u', 0, 'boiler warranty', 'h')`,
      );
      expect(await migrate(db.url, undefined, { count: 1 })).toEqual(['0023_tenant_full_text_index']);
      const after = await indexes();
      expect(after).toContain('documents_client_fts_idx');
      expect(after).not.toContain('documents_fts_idx');
      const found = await sql(
        db.url,
        `SELECT count(*)::int AS n FROM documents WHERE client_id = '${client}' AND fts @@ to_tsquery('english', 'warranty')`,
      );
      expect(found[0]?.n).toBe(1);
      // 0024: an answer written before has no other ways of asking, and takes them from then on.
      await sql(db.url, `INSERT INTO curated_answers (client_id, question, answer) VALUES ('${client}', 'Wi-Fi?', 'Free.')`);
      expect(await migrate(db.url, undefined, { count: 1 })).toEqual(['0024_curated_alternate_questions']);
      const answers = await sql(db.url, `SELECT cardinality(alternates) AS n FROM curated_answers WHERE client_id = '${client}'`);
      expect(answers.map((r) => r.n)).toEqual([0]);
      // 0025: the chunks' words lose their accents, both ways, and their hyphens; the client's term statistics are rebuilt.
      await sql(
        db.url,
        `INSERT INTO documents (client_id, url, chunk_index, content, content_hash) VALUES ('${client}', 'u2', 0, 'We supply cafés in Zürich, with free Wi-Fi', 'h2')`,
      );
      await sql(db.url, `SELECT kbchat_refresh_term_stats('${client}')`);
      const accented = `SELECT count(*)::int AS n FROM documents WHERE client_id = '${client}' AND fts @@ plainto_tsquery('kbchat_english', 'cafes zurich')`;
      const stat = `SELECT coalesce(sum(ndoc), 0)::int AS n FROM term_stats WHERE client_id = '${client}' AND lexeme = 'cafe'`;
      expect((await sql(db.url, stat))[0]?.n).toBe(0);
      expect(await migrate(db.url)).toEqual(['0025_accent_insensitive_search']);
      expect((await sql(db.url, accented))[0]?.n).toBe(1);
      const joined = `SELECT count(*)::int AS n FROM documents WHERE client_id = '${client}' AND fts @@ plainto_tsquery('kbchat_english', 'wifi')`;
      expect((await sql(db.url, joined))[0]?.n).toBe(1);
      expect((await sql(db.url, stat))[0]?.n).toBe(1);
      const plain = `SELECT count(*)::int AS n FROM documents WHERE client_id = '${client}' AND fts @@ plainto_tsquery('kbchat_english', 'cafés')`;
      expect((await sql(db.url, plain))[0]?.n).toBe(1);
    } finally {
      await db.stop();
    }
  });

  it('re-apply a repeatable file when its checksum changed, and only then', async () => {
    const db = await startEmbeddedPostgres();
    try {
      await migrate(db.url);
      const applied = async () =>
        (await sql(db.url, "SELECT checksum, applied_at FROM kbchat_repeatables WHERE name = 'search-candidates.sql'"))[0];
      const first = await applied();
      expect(first?.checksum).toMatch(/^[0-9a-f]{64}$/);
      // Unchanged file: not applied again (a function dropped behind the runner's back stays dropped).
      await sql(db.url, 'DROP FUNCTION kbchat_search_candidates');
      await migrate(db.url);
      expect(await applied()).toEqual(first);
      expect(await sql(db.url, "SELECT 1 FROM pg_proc WHERE proname = 'kbchat_search_candidates'")).toEqual([]);
      // A changed file (here: a recorded checksum of some older content) is applied and recorded.
      await sql(db.url, "UPDATE kbchat_repeatables SET checksum = 'older' WHERE name = 'search-candidates.sql'");
      await migrate(db.url);
      expect((await applied())?.checksum).toBe(first?.checksum);
      expect(await sql(db.url, "SELECT prosrc FROM pg_proc WHERE proname = 'kbchat_search_candidates'")).toHaveLength(1);
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

async function sql(url: string, text: string): Promise<Record<string, unknown>[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text)).rows;
  } finally {
    await c.end();
  }
}

async function checkTwiceAfterFirst(url: string) {
  expect(await migrate(url)).toEqual([]);
  const schema = await schemaOf(url);
  for (const t of TABLES) expect(schema.tables).toContain(t);
  expect(schema.embeddingType).toBe('vector(1536)');
}
