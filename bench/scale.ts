// 1e. Scale: chunks across tenants of Zipf-distributed sizes on native Postgres (a database of its
// own, the real schema; default 1,000,000 chunks, 1,000 tenants): the service's vector indexes built
// as the service builds them (reconcileVectorIndexes: an HNSW partial index of its own for each tenant
// past RETRIEVAL_EXACT_SCAN_MAX_DOCS chunks, none shared), then filtered top-10 latency (p95) and
// recall@10 of the service's searchCandidates against exact search, per tenant size class.
//
// Vectors are synthetic but shaped like the local embedder's: sparse hashed features (a few dozen
// non-zero dimensions of 1,536), each client with its own topics (its own vocabulary) plus words
// every client shares, unit length. Tenant sizes follow a Zipf curve (1/rank, at least 50 chunks), as
// tenants of a hosted service do. Loaded with multi-row INSERTs of sparsevec text cast to vector into
// unlogged tables (the benchmark's own database: WAL is not what is measured).
import { migrate } from '@kbchat/shared/db/migrate';
import { createPool } from '@kbchat/shared/db/pool';
import { searchCandidates } from '@kbchat/shared/db/retrieval';
import { reconcileVectorIndexes, VECTOR_INDEX_PREFIX } from '@kbchat/shared/db/vector-index';
import pg from 'pg';
import { type BenchEnv, createDatabase, log, percentile, round } from './lib/env.ts';
import { type PartResult, type Row, ratio } from './lib/report.ts';

const DIMS = 1536;
export const MODEL = 'local-lexical-v1';

export interface ScaleOptions {
  documents: number;
  clients: number;
  /** Queries per sampled tenant. */
  queries: number;
  /** Tenants sampled per size class. */
  tenantsPerClass: number;
}

/** mulberry32: a small seeded PRNG, so every run builds the same data. */
export function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Feature {
  dim: number;
  weight: number;
}

export interface ClientModel {
  topics: Feature[][];
}

export const TOPICS_PER_CLIENT = 8;
const FEATURES_PER_TOPIC = 40;
const COMMON_FEATURES = 60;

export function buildModels(clients: number, rand: () => number): { models: ClientModel[]; common: Feature[]; signs: Int8Array } {
  const signs = new Int8Array(DIMS).map(() => (rand() < 0.5 ? -1 : 1));
  const feature = (scale: number): Feature => ({ dim: Math.floor(rand() * DIMS), weight: scale * (0.3 + rand()) });
  const common = Array.from({ length: COMMON_FEATURES }, () => feature(0.3));
  const models = Array.from({ length: clients }, () => ({
    topics: Array.from({ length: TOPICS_PER_CLIENT }, () => Array.from({ length: FEATURES_PER_TOPIC }, () => feature(1))),
  }));
  return { models, common, signs };
}

/** A Zipf-ish pick: low indices (a topic's main words) far more often than high ones. */
function zipf(n: number, rand: () => number): number {
  return Math.min(n - 1, Math.floor(n ** rand()) - 1);
}

export function vectorOf(picks: { list: Feature[]; count: number }[], signs: Int8Array, rand: () => number): Map<number, number> {
  const v = new Map<number, number>();
  for (const { list, count } of picks) {
    for (let i = 0; i < count; i++) {
      const f = list[zipf(list.length, rand)] as Feature;
      v.set(f.dim, (v.get(f.dim) ?? 0) + f.weight * (signs[f.dim] as number));
    }
  }
  let norm = 0;
  for (const x of v.values()) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  for (const [k, x] of v) v.set(k, x / norm);
  return v;
}

function sparseText(v: Map<number, number>): string {
  const parts = [...v.entries()].filter(([, x]) => x !== 0).sort((a, b) => a[0] - b[0]);
  return `{${parts.map(([d, x]) => `${d + 1}:${x.toPrecision(5)}`).join(',')}}/${DIMS}`;
}

export function denseOf(v: Map<number, number>): number[] {
  const out = new Array<number>(DIMS).fill(0);
  for (const [d, x] of v) out[d] = x;
  return out;
}

export function tenantSizes(total: number, clients: number): number[] {
  const w = Array.from({ length: clients }, (_, i) => 1 / (i + 1));
  const sum = w.reduce((a, b) => a + b, 0);
  const sizes = w.map((x) => Math.max(50, Math.floor((x / sum) * total)));
  sizes[0] = (sizes[0] as number) + total - sizes.reduce((a, b) => a + b, 0);
  return sizes;
}

export async function load(
  db: pg.Client,
  options: ScaleOptions,
  clientIds: string[],
  sizes: number[],
  world: ReturnType<typeof buildModels>,
) {
  const rand = prng(42);
  const BATCH = 1000;
  let rows: { client: string; i: number; vec: string; topic: number; c: number }[] = [];
  const flush = async () => {
    if (rows.length === 0) return;
    await db.query(
      `INSERT INTO documents (client_id, url, title, chunk_index, content, content_hash, embedding, embedding_model)
       SELECT u.client_id, 'https://c' || u.c || '.example/d/' || u.i, 'Document ' || u.i, u.i,
              'Client ' || u.c || ' topic ' || u.topic || ' document ' || u.i,
              md5(u.client_id::text || u.i), u.vec::sparsevec::vector, $6
         FROM unnest($1::uuid[], $2::int[], $3::text[], $4::int[], $5::int[]) AS u(client_id, i, vec, topic, c)`,
      [rows.map((r) => r.client), rows.map((r) => r.i), rows.map((r) => r.vec), rows.map((r) => r.topic), rows.map((r) => r.c), MODEL],
    );
    rows = [];
  };
  for (let c = 0; c < clientIds.length; c++) {
    const model = world.models[c] as ClientModel;
    for (let i = 0; i < (sizes[c] as number); i++) {
      const topic = Math.floor(rand() * TOPICS_PER_CLIENT);
      const other = model.topics[Math.floor(rand() * TOPICS_PER_CLIENT)] as Feature[];
      const v = vectorOf(
        [
          { list: model.topics[topic] as Feature[], count: 30 },
          { list: other, count: 8 },
          { list: world.common, count: 12 },
        ],
        world.signs,
        rand,
      );
      rows.push({ client: clientIds[c] as string, i, vec: sparseText(v), topic, c });
      if (rows.length === BATCH) await flush();
    }
  }
  await flush();
  void options;
}

/** Tenant size classes (chunks): the Zipf curve of 1,000 tenants over 1 M chunks puts ~870 tenants in the first, 2 in the last. */
const CLASSES = [
  { name: 'tiny (<1k)', max: 999 },
  { name: 'small (1k–10k)', max: 9_999 },
  { name: 'medium (10k–50k)', max: 49_999 },
  { name: 'large (≥50k)', max: Number.POSITIVE_INFINITY },
] as const;
const classOf = (size: number) => (CLASSES.find((c) => size <= c.max) ?? CLASSES[3]).name;

/** The service's settings (config.ts defaults): RETRIEVAL_EXACT_SCAN_MAX_DOCS, RETRIEVAL_HNSW_EF_SEARCH. */
const SERVICE = { exactScanMaxDocs: 2000, efSearch: 100 };

interface Query {
  tenant: number;
  clientId: string;
  size: number;
  vector: string;
  dense: number[];
  exact: string[];
}

interface ClassFigures {
  tenants: number;
  queries: number;
  p50: number;
  p95: number;
  recallAt10: number;
  /** Queries that returned fewer than 10 rows (the tenant has more). */
  short: number;
  scans?: Record<string, number>;
}

interface Measured extends ClassFigures {
  byClass: Record<string, ClassFigures>;
}

function figures(queries: Query[], times: number[], results: string[][], idx: number[], scans?: string[]): ClassFigures {
  const recall = (q: Query, got: string[]) => {
    const truth = new Set(q.exact.slice(0, 10));
    return got.slice(0, 10).filter((id) => truth.has(id)).length / Math.max(1, truth.size);
  };
  const t = idx.map((i) => times[i] as number).sort((x, y) => x - y);
  const out: ClassFigures = {
    tenants: new Set(idx.map((i) => (queries[i] as Query).tenant)).size,
    queries: idx.length,
    p50: round(percentile(t, 50), 2),
    p95: round(percentile(t, 95), 2),
    recallAt10: round(idx.reduce((s, i) => s + recall(queries[i] as Query, results[i] as string[]), 0) / idx.length, 3),
    short: idx.filter((i) => (results[i] as string[]).length < Math.min(10, (queries[i] as Query).size)).length,
  };
  if (scans) {
    out.scans = {};
    for (const i of idx) out.scans[scans[i] as string] = (out.scans[scans[i] as string] ?? 0) + 1;
  }
  return out;
}

function summarise(queries: Query[], times: number[], results: string[][], scans?: string[]): Measured {
  const all = queries.map((_, i) => i);
  const byClass: Measured['byClass'] = {};
  for (const c of CLASSES) {
    const idx = all.filter((i) => classOf((queries[i] as Query).size) === c.name);
    if (idx.length > 0) byClass[c.name] = figures(queries, times, results, idx, scans);
  }
  return { ...figures(queries, times, results, all, scans), byClass };
}

/** Up to `per` tenants of each class, evenly spread over it (its largest and smallest included). */
function sampleTenants(sizes: number[], per: number): number[] {
  const out: number[] = [];
  for (const c of CLASSES) {
    const members = sizes.map((s, i) => (classOf(s) === c.name ? i : -1)).filter((i) => i >= 0);
    if (members.length <= per) out.push(...members);
    else for (let k = 0; k < per; k++) out.push(members[Math.round((k * (members.length - 1)) / (per - 1))] as number);
  }
  return [...new Set(out)];
}

/** The service's own vector search (searchCandidates) over every query: times, top vector rows, scans. */
async function serviceSearch(pool: Awaited<ReturnType<typeof createPool>>, queries: Query[], settings: typeof SERVICE) {
  const times: number[] = [];
  const results: string[][] = [];
  const scans: string[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    // k = 20 as the service (its first 10 vector rows are scored); no words, so the full-text list is
    // empty and the time is the vector search and its rows' details.
    const r = await searchCandidates(pool, {
      clientId: q.clientId,
      embeddingModel: MODEL,
      embedding: q.dense,
      query: '',
      k: 20,
      ...settings,
    });
    times.push(performance.now() - t0);
    scans.push(r.scan);
    results.push(
      r.candidates
        .filter((c) => c.vectorRank !== null)
        .sort((a, b) => (a.vectorRank as number) - (b.vectorRank as number))
        .map((c) => c.id),
    );
  }
  return summarise(queries, times, results, scans);
}

export async function scaleBench(env: BenchEnv, options: ScaleOptions): Promise<PartResult> {
  const started = performance.now();
  const db = await createDatabase(env.serverUrl, 'scale');
  const timings: Record<string, number> = {};
  try {
    await migrate(db.url);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const sizes = tenantSizes(options.documents, options.clients);
    const world = buildModels(options.clients, prng(7));
    const { rows: ids } = await client.query<{ id: string }>(
      `INSERT INTO clients (name, webhook_secret) SELECT 'scale ' || g, 'whsec_bench' FROM generate_series(1, $1) g RETURNING id`,
      [options.clients],
    );
    const clientIds = ids.map((r) => r.id);
    // lsa_chunks references documents, so it goes unlogged first.
    await client.query('ALTER TABLE lsa_chunks SET UNLOGGED');
    await client.query('ALTER TABLE documents SET UNLOGGED');
    let t = performance.now();
    log(`scale: loading ${options.documents} documents for ${options.clients} clients (largest ${sizes[0]}, smallest ${sizes.at(-1)})`);
    await load(client, options, clientIds, sizes, world);
    timings.loadSeconds = round((performance.now() - t) / 1000);
    t = performance.now();
    // What a crawl's end leaves: the tenant's totals (reconcileVectorIndexes picks the tenants with
    // term_stats_totals.documents past the threshold). kbchat_refresh_term_stats writes the same
    // totals plus each lexeme's frequency, which a search without words never reads: one grouped
    // pass instead of 1,000 ts_stat passes.
    await client.query(
      `INSERT INTO term_stats_totals (client_id, documents, avg_length, refreshed_at)
       SELECT client_id, count(*)::int, coalesce(avg(length(fts)), 0), now() FROM documents GROUP BY client_id`,
    );
    await client.query('VACUUM ANALYZE documents');
    timings.statsSeconds = round((performance.now() - t) / 1000);
    log(`  loaded in ${timings.loadSeconds} s; totals and VACUUM ANALYZE ${timings.statsSeconds} s; building the tenants' own indexes`);

    // The service's build, as its embedder sweep runs it: one tenant after another, CONCURRENTLY,
    // maintenance_work_mem as vector-index.ts sets it, the server's other settings as they are.
    const pool = await createPool({ connectionString: db.url, max: 2 });
    t = performance.now();
    const built = await reconcileVectorIndexes(pool, { exactScanMaxDocs: SERVICE.exactScanMaxDocs });
    timings.buildSeconds = round((performance.now() - t) / 1000);
    const { rows: idx } = await client.query<{ client_id: string; bytes: string }>(
      `SELECT cl.id AS client_id, pg_relation_size(c.oid)::text AS bytes
         FROM pg_class c JOIN clients cl ON c.relname = kbchat_vector_index_name(cl.id)
        WHERE starts_with(c.relname, $1)`,
      [VECTOR_INDEX_PREFIX],
    );
    const indexed = new Set(idx.map((r) => r.client_id));
    const indexChunks = sizes.reduce((s, n, i) => s + (indexed.has(clientIds[i] as string) ? n : 0), 0);
    const indexBytes = idx.reduce((s, r) => s + Number(r.bytes), 0);
    const { rows: sz } = await client.query<{ table: string }>(`SELECT pg_size_pretty(pg_total_relation_size('documents')) AS table`);
    const gib = (b: number) => `${round(b / 2 ** 30, 2)} GiB`;
    log(
      `  ${built.built.length} indexes (${indexChunks} chunks, ${gib(indexBytes)}) built in ${timings.buildSeconds} s; table with all indexes ${sz[0]?.table}`,
    );

    // Queries: tenants of every size class, each asked about its own topics.
    const rand = prng(99);
    const sample = sampleTenants(sizes, options.tenantsPerClass);
    const queries: Query[] = [];
    for (const tenant of sample) {
      const model = world.models[tenant] as ClientModel;
      for (let q = 0; q < options.queries; q++) {
        const v = vectorOf(
          [
            { list: model.topics[Math.floor(rand() * TOPICS_PER_CLIENT)] as Feature[], count: 8 },
            { list: world.common, count: 3 },
          ],
          world.signs,
          rand,
        );
        queries.push({
          tenant,
          clientId: clientIds[tenant] as string,
          size: sizes[tenant] as number,
          vector: sparseText(v),
          dense: denseOf(v),
          exact: [],
        });
      }
    }

    // Exact search: the ground truth, and the baseline's latency (a warming pass first).
    t = performance.now();
    const exactTimes: number[] = [];
    const exactResults: string[][] = [];
    const exactSql = `SELECT id FROM documents WHERE client_id = $1 AND embedding IS NOT NULL ORDER BY (embedding <=> $2::sparsevec::vector) + 0, id LIMIT 10`;
    for (const q of queries) await client.query(exactSql, [q.clientId, q.vector]);
    for (const q of queries) {
      const t0 = performance.now();
      const { rows } = await client.query<{ id: string }>(exactSql, [q.clientId, q.vector]);
      exactTimes.push(performance.now() - t0);
      q.exact = rows.map((r) => r.id);
      exactResults.push(q.exact);
    }
    const exact = summarise(queries, exactTimes, exactResults);
    timings.exactSeconds = round((performance.now() - t) / 1000);
    log(`  exact: p95 ${exact.p95} ms (${timings.exactSeconds} s)`);

    // The service's search as configured, then with ef_search 200 (the one setting a graph's recall
    // moves with); each warmed by a pass of the same queries.
    const variants: Record<string, Measured> = {};
    for (const [name, settings] of [
      ['as configured', SERVICE],
      ['ef_search 200', { ...SERVICE, efSearch: 200 }],
    ] as const) {
      await serviceSearch(pool, queries, settings);
      const m = await serviceSearch(pool, queries, settings);
      variants[name] = m;
      log(
        `  service, ${name}: ${Object.entries(m.byClass)
          .map(([c, f]) => `${c} p95 ${f.p95} ms, recall@10 ${f.recallAt10} ${JSON.stringify(f.scans)}`)
          .join('; ')}`,
      );
    }
    await pool.end();
    await client.end();

    // Every tenant of each class, and how many of them have an index of their own.
    const population: Record<string, { tenants: number; chunks: number; indexed: number }> = {};
    sizes.forEach((n, i) => {
      const p = population[classOf(n)] ?? { tenants: 0, chunks: 0, indexed: 0 };
      population[classOf(n)] = p;
      p.tenants++;
      p.chunks += n;
      if (indexed.has(clientIds[i] as string)) p.indexed++;
    });
    const rows: Row[] = [
      {
        metric: 'chunks / tenants / load s / own HNSW indexes built (tenants > 2,000 chunks) / their chunks / build s / size on disk',
        ours: `${options.documents} / ${options.clients} / ${timings.loadSeconds} / ${built.built.length} / ${indexChunks} / ${timings.buildSeconds} / ${gib(indexBytes)}`,
      },
    ];
    const service = variants['as configured'] as Measured;
    const ef200 = variants['ef_search 200'] as Measured;
    for (const c of CLASSES) {
      const f = service.byClass[c.name];
      const e = exact.byClass[c.name];
      const p = population[c.name];
      if (!f || !e || !p) continue;
      const alt = ef200.byClass[c.name];
      rows.push({
        metric: `service search, ${c.name}: ${p.tenants} tenants (${p.indexed} with own index), ${p.chunks} chunks; ${f.tenants} sampled, ${f.queries} queries: p95 ms · recall@10`,
        ours: `${f.p95} · ${f.recallAt10}${f.short ? `, ${f.short} short` : ''} ${JSON.stringify(f.scans)}; ef_search 200: ${alt?.p95} · ${alt?.recallAt10}`,
        baseline: `${e.p95} · 1`,
        ratio: ratio(e.p95, f.p95),
        target: 'p95 ≤ 20 ms, recall@10 ≥ 0.98',
        pass: f.p95 <= 20 && f.recallAt10 >= 0.98,
      });
    }
    return {
      part: 'scale',
      title: `1e. Scale: ${options.documents.toLocaleString('en')} chunks, ${options.clients} tenants, filtered top-10 per size class`,
      oursLabel: `the service’s searchCandidates (exact ≤ ${SERVICE.exactScanMaxDocs} chunks, else the tenant’s own HNSW index, ef_search ${SERVICE.efSearch}, k 20)`,
      baselineLabel: 'exact search of the tenant’s rows (ORDER BY distance + 0), the ground truth',
      rows,
      notes: [
        `${queries.length} queries over ${sample.length} tenants (${sample.map((i) => sizes[i]).join(', ')} chunks), ${options.queries} each, one at a time, each pass warmed by one before it; ratio = exact p95 / ours.`,
        `Load ${timings.loadSeconds} s, totals and VACUUM ANALYZE ${timings.statsSeconds} s, reconcileVectorIndexes ${timings.buildSeconds} s (${built.built.length} indexes, ${indexChunks} chunks, ${gib(indexBytes)}; table with all indexes ${sz[0]?.table}), exact ground truth ${timings.exactSeconds} s, whole part ${round((performance.now() - started) / 1000)} s.`,
      ],
      details: {
        sizes,
        sample,
        timings,
        indexBytes,
        indexChunks,
        built: built.built.length,
        population,
        sizesOnDisk: sz[0],
        exact,
        variants,
      },
    };
  } finally {
    // BENCH_KEEP_DB=1 keeps the loaded database (its name is logged) for measuring one class by hand.
    if (process.env.BENCH_KEEP_DB === '1') log(`scale: kept database ${db.name}`);
    else await db.drop();
  }
}
