// What keeping the HNSW index up to date costs per stored chunk, and what other index definitions
// would cost: the crawl benchmark's main finding (docs/performance.md). Chunks of the PostgreSQL 15
// docs, embedded with the local embedder, inserted into the real documents table (migrated into a
// database of its own) with each index definition in turn. Not part of `pnpm bench`.
//
//   node bench/hnsw-insert-cost.ts [--pages 400] [--json]
import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { extractPage } from '@kbchat/crawler/web/extract';
import { chunkSections } from '@kbchat/shared/crawl/chunker';
import { migrate } from '@kbchat/shared/db/migrate';
import { toVector } from '@kbchat/shared/db/pool';
import { embedLocal } from '@kbchat/shared/providers/embeddings/local-embedder';
import pg from 'pg';
import { benchEnv, cpuSeconds, createDatabase, ensureCorpora, log, PG_DOCS, round } from './lib/env.ts';

const { values: args } = parseArgs({ options: { pages: { type: 'string', default: '400' }, json: { type: 'boolean', default: false } } });

const VARIANTS: { name: string; index: string | null }[] = [
  { name: 'no vector index', index: null },
  {
    name: 'vector, m 16, ef_construction 64 (migration 0001)',
    index: 'USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)',
  },
  { name: 'vector, m 16, ef_construction 48', index: 'USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 48)' },
  { name: 'vector, m 16, ef_construction 32', index: 'USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 32)' },
  { name: 'vector, m 12, ef_construction 64', index: 'USING hnsw (embedding vector_cosine_ops) WITH (m = 12, ef_construction = 64)' },
  { name: 'vector, m 8, ef_construction 32', index: 'USING hnsw (embedding vector_cosine_ops) WITH (m = 8, ef_construction = 32)' },
  {
    name: 'halfvec expression, m 16, ef_construction 64',
    index: 'USING hnsw ((embedding::halfvec(1536)) halfvec_cosine_ops) WITH (m = 16, ef_construction = 64)',
  },
];

ensureCorpora();
const files = readdirSync(PG_DOCS)
  .filter((f) => f.endsWith('.html'))
  .sort()
  .slice(0, Number(args.pages));
const chunks: { title: string; heading: string | null; content: string; vector: string }[] = [];
for (const f of files) {
  const page = extractPage(readFileSync(`${PG_DOCS}/${f}`, 'utf8'), `http://127.0.0.1/${f}`);
  for (const c of chunkSections(page.sections)) {
    chunks.push({
      title: page.title,
      heading: c.heading ?? null,
      content: c.content,
      vector: toVector(embedLocal(`${page.title}\n${c.content}`)),
    });
  }
}
log(`${files.length} pages, ${chunks.length} chunks`);

const db = await createDatabase(benchEnv().serverUrl, 'hnswcost');
const results: { name: string; msPerChunk: number; cpuMsPerChunk: number }[] = [];
try {
  await migrate(db.url);
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const clientId = (await client.query(`INSERT INTO clients (name, webhook_secret) VALUES ('hnsw cost', 'whsec_bench') RETURNING id`))
    .rows[0].id;
  for (const v of VARIANTS) {
    await client.query('DROP INDEX IF EXISTS documents_embedding_hnsw_idx');
    await client.query('TRUNCATE documents');
    if (v.index) await client.query(`CREATE INDEX documents_embedding_hnsw_idx ON documents ${v.index}`);
    const pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
    const cpu0 = backendCpu(pid);
    const t0 = performance.now();
    // Ten chunks per statement, as a page's documents are written.
    for (let i = 0; i < chunks.length; i += 10) {
      const part = chunks.slice(i, i + 10);
      await client.query(
        `INSERT INTO documents (client_id, url, title, heading, chunk_index, content, content_hash, embedding, embedding_model)
         SELECT $1, 'http://127.0.0.1/' || $2 || '/' || t.i, t.title, t.heading, t.i, t.content, md5(t.content), t.vec::vector, 'local-lexical-v1'
           FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY AS t(title, heading, content, vec, i)`,
        [clientId, i, part.map((c) => c.title), part.map((c) => c.heading), part.map((c) => c.content), part.map((c) => c.vector)],
      );
    }
    const ms = performance.now() - t0;
    results.push({
      name: v.name,
      msPerChunk: round(ms / chunks.length, 3),
      cpuMsPerChunk: round(((backendCpu(pid) - cpu0) * 1000) / chunks.length, 3),
    });
    log(`  ${v.name}: ${results.at(-1)?.msPerChunk} ms per chunk (backend CPU ${results.at(-1)?.cpuMsPerChunk} ms)`);
  }
  await client.end();
} finally {
  await db.drop();
}

function backendCpu(pid: number): number {
  return cpuSeconds(pid) ?? Number.NaN;
}

if (args.json) process.stdout.write(`${JSON.stringify({ chunks: chunks.length, results }, null, 2)}\n`);
else {
  process.stdout.write(`| index | ms per chunk | backend CPU ms per chunk |\n|---|---|---|\n`);
  for (const r of results) process.stdout.write(`| ${r.name} | ${r.msPerChunk} | ${r.cpuMsPerChunk} |\n`);
}
