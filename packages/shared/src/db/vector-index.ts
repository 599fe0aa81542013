import type { Logger } from '../logger.ts';
import type { Pool } from './pool.ts';

/**
 * HNSW only where it pays (docs/retrieval.md "Vector list"). There is no shared graph: a tenant of
 * at most RETRIEVAL_EXACT_SCAN_MAX_DOCS chunks — most websites — is searched by exact scan, and its
 * writes never touch a graph. A tenant past that size gets an HNSW index of its own, a partial index
 * on its rows built in one pass once no crawl or embedding run of it is in flight, so a crawl's
 * inserts never pay for a graph either; until it is built, the search scans exactly (same answers,
 * slower). A tenant that shrinks to half the threshold, or is deleted, loses its index. The same
 * holds for a second graph of its related-words vectors (lsa_chunks), built once it has them; their
 * rewrite after each crawl (db/lsa.ts) then goes through that graph.
 *
 * Built with CREATE INDEX CONCURRENTLY, so searches and other tenants' writes go on meanwhile; one
 * builder per tenant (a Postgres advisory lock). A build cut short (process killed, server restart)
 * leaves an invalid index that the search never uses and the next pass drops and builds again.
 */
export const VECTOR_INDEX_PREFIX = 'documents_embedding_hnsw_';
/** The prefix of a tenant's graph of its related-words vectors (lsa_chunks). */
export const LSA_INDEX_PREFIX = 'lsa_chunks_hnsw_';

/**
 * A kind of per-tenant graph: the table it indexes, how, and the rows it holds.
 *
 * - embedding: each tenant's graph holds its vectors rounded to half precision (a 1,536-d vector in
 *   3 kB: two to an 8 kB index page where a float32 one fills a page), so a search reads half the
 *   pages and a large tenant's graph needs half the memory to stay cached; the search re-ranks the
 *   graph's rows by the full vectors (search-candidates.sql). The migrations' graph settings (0001).
 * - lsa: the related-words vectors (db/lsa.ts) of a large tenant: an exact scan of 134,000 of them
 *   took 60–86 ms of every question. Only vectors of the full LSA_DIMENSIONS (100) are in it (a
 *   graph needs one dimension count; a tenant past the exact scan's threshold has that many), and
 *   only once the tenant has such vectors.
 */
interface GraphKind {
  prefix: string;
  table: 'documents' | 'lsa_chunks';
  using: string;
  /** Rows of the tenant the graph holds, beside `client_id = '…'`: the search repeats it word for word. */
  rows: string;
  /** Whether tenant `cl` has rows for it yet (SQL over `cl.id`): no graph is built before. */
  present: string;
  /** The advisory lock of one tenant's build (the embedding graph's key is the original one). */
  lock: string;
}

const EMBEDDING_GRAPH: GraphKind = {
  prefix: VECTOR_INDEX_PREFIX,
  table: 'documents',
  using: 'USING hnsw ((embedding::halfvec(1536)) halfvec_cosine_ops) WITH (m = 16, ef_construction = 64)',
  rows: '',
  present: 'true',
  lock: 'kbchat_vector_index:',
};
const LSA_GRAPH: GraphKind = {
  prefix: LSA_INDEX_PREFIX,
  table: 'lsa_chunks',
  using: 'USING hnsw ((vec::vector(100)) vector_cosine_ops) WITH (m = 16, ef_construction = 64)',
  rows: ' AND vector_dims(vec) = 100',
  present: 'EXISTS (SELECT 1 FROM lsa_chunks x WHERE x.client_id = cl.id AND vector_dims(x.vec) = 100)',
  lock: 'kbchat_lsa_index:',
};
const GRAPHS: readonly GraphKind[] = [EMBEDDING_GRAPH, LSA_GRAPH];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function indexName(kind: GraphKind, clientId: string): string {
  if (!UUID.test(clientId)) throw new Error(`not a client id: ${clientId}`);
  return `${kind.prefix}${clientId.replaceAll('-', '')}`;
}

/** The index of one tenant; the SQL function kbchat_vector_index_name computes the same. */
export function vectorIndexName(clientId: string): string {
  return indexName(EMBEDDING_GRAPH, clientId);
}

/** The graph of one tenant's related-words vectors; the SQL function kbchat_lsa_index_name computes the same. */
export function lsaIndexName(clientId: string): string {
  return indexName(LSA_GRAPH, clientId);
}

interface IndexState {
  clientId: string;
  /** The tenant's chunks, as its term statistics counted them when its last crawl or source change ended. */
  chunks: number;
  /** The tenant's own index: absent, valid, or left invalid by a build cut short. */
  index: 'none' | 'valid' | 'invalid';
  /** A crawl or embedding run of the tenant is queued or running: its index waits for the end. */
  busy: boolean;
  /** The tenant has rows the graph would hold (always, for the embedding graph). */
  rows: boolean;
}

/** Tenants that have an own index or are large enough to need one, and own indexes of deleted tenants. */
async function indexStates(pool: Pool, kind: GraphKind, exactScanMaxDocs: number): Promise<{ states: IndexState[]; orphans: string[] }> {
  const { rows } = await pool.query<{
    client_id: string | null;
    name: string | null;
    valid: boolean | null;
    chunks: number;
    busy: boolean;
    rows: boolean;
  }>(
    `WITH own AS (
       SELECT c.relname AS name, i.indisvalid AND i.indisready AS valid
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE i.indrelid = $3::text::regclass AND starts_with(c.relname, $2)),
     big AS (
       SELECT t.client_id FROM term_stats_totals t WHERE t.documents > $1)
     SELECT cl.id AS client_id, own.name, own.valid, coalesce(t.documents, 0)::int AS chunks,
            EXISTS (SELECT 1 FROM jobs j WHERE j.client_id = cl.id AND j.status IN ('queued', 'active')) AS busy,
            ${kind.present} AS rows
       FROM own FULL JOIN clients cl ON own.name = $2 || replace(cl.id::text, '-', '')
       LEFT JOIN term_stats_totals t ON t.client_id = cl.id
      WHERE own.name IS NOT NULL OR cl.id IN (SELECT client_id FROM big)`,
    [exactScanMaxDocs, kind.prefix, kind.table],
  );
  const states: IndexState[] = [];
  const orphans: string[] = [];
  for (const r of rows) {
    if (r.client_id === null) {
      if (r.name) orphans.push(r.name);
      continue;
    }
    states.push({
      clientId: r.client_id,
      chunks: r.chunks,
      index: r.name === null ? 'none' : r.valid ? 'valid' : 'invalid',
      busy: r.busy,
      rows: r.rows,
    });
  }
  return { states, orphans };
}

export interface ReconcileResult {
  built: string[];
  dropped: string[];
}

/**
 * One pass: builds the graphs large idle tenants lack, rebuilds invalid ones, drops those of
 * tenants gone or shrunk to half the threshold — the embedding graphs, then the related-words ones.
 * Tenants one after another: each build is one statement of a dedicated connection (CONCURRENTLY
 * cannot run inside a transaction).
 */
export async function reconcileVectorIndexes(
  pool: Pool,
  options: { exactScanMaxDocs: number; log?: Logger; signal?: AbortSignal },
): Promise<ReconcileResult> {
  const result: ReconcileResult = { built: [], dropped: [] };
  if (await isEmbeddedServer(pool)) return result;
  for (const kind of GRAPHS) {
    const { states, orphans } = await indexStates(pool, kind, options.exactScanMaxDocs);
    for (const name of orphans) {
      await pool.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
      result.dropped.push(name);
    }
    for (const s of states) {
      if (options.signal?.aborted) return result;
      const name = indexName(kind, s.clientId);
      const needed = s.chunks > options.exactScanMaxDocs && s.rows;
      const wanted = needed || (s.index === 'valid' && s.chunks > options.exactScanMaxDocs / 2);
      if (!wanted && s.index !== 'none') {
        await pool.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
        result.dropped.push(name);
        continue;
      }
      if (!needed || s.busy || s.index === 'valid') continue;
      if (await buildIndex(pool, kind, s.clientId, name, s.index === 'invalid')) {
        result.built.push(name);
        options.log?.info({ clientId: s.clientId, chunks: s.chunks, index: name }, 'vector index built');
      }
    }
  }
  return result;
}

/**
 * Whether the server is the embedded database (PGlite, reached through its socket as any server):
 * one backend, which a graph build would hold for its whole length — a Django-docs tenant's two
 * graphs took 2 min 20 s there, and a visitor's question waited 130 s behind them. Its tenants are
 * all scanned exactly, whatever DATABASE_URL points at it.
 */
export async function isEmbeddedServer(db: Pick<Pool, 'query'>): Promise<boolean> {
  const { rows } = await db.query<{ embedded: boolean }>("SELECT strpos(version(), 'PGlite') > 0 AS embedded");
  return rows[0]?.embedded === true;
}

/** Builds one tenant's graph under its advisory lock; false when another process holds it. */
async function buildIndex(pool: Pool, kind: GraphKind, clientId: string, name: string, invalid: boolean): Promise<boolean> {
  const conn = await pool.connect();
  let broken = false;
  try {
    const { rows } = await conn.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($2 || $1, 0)) AS locked', [
      clientId,
      kind.lock,
    ]);
    if (!rows[0]?.locked) return false;
    try {
      if (invalid) await conn.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
      // A graph built in memory is several times faster than one spilled to disk (~8 kB a chunk).
      await conn.query("SET maintenance_work_mem = '512MB'");
      await conn.query(
        `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON ${kind.table} ${kind.using} WHERE client_id = '${clientId}'${kind.rows}`,
      );
      return true;
    } finally {
      await conn.query('RESET maintenance_work_mem');
      await conn.query('SELECT pg_advisory_unlock(hashtextextended($2 || $1, 0))', [clientId, kind.lock]);
    }
  } catch (err) {
    broken = true;
    throw err;
  } finally {
    // A connection whose build failed half-way may hold session state: not returned to the pool.
    conn.release(broken);
  }
}

export interface GraphMemory {
  /** The tenants' graphs together, and the largest of them, bytes on disk. */
  graphBytes: number;
  largestBytes: number;
  sharedBuffersBytes: number;
}

/** What the tenants' graphs take beside the server's shared buffers. */
export async function graphMemory(db: Pick<Pool, 'query'>): Promise<GraphMemory> {
  const { rows } = await db.query<GraphMemory>(
    `SELECT coalesce(sum(pg_relation_size(c.oid)), 0)::float8 AS "graphBytes",
            coalesce(max(pg_relation_size(c.oid)), 0)::float8 AS "largestBytes",
            pg_size_bytes(current_setting('shared_buffers'))::float8 AS "sharedBuffersBytes"
       FROM pg_class c
      WHERE c.relkind = 'i' AND (starts_with(c.relname, $1) OR starts_with(c.relname, $2))`,
    [VECTOR_INDEX_PREFIX, LSA_INDEX_PREFIX],
  );
  return rows[0] as GraphMemory;
}

/**
 * The operator's hint when the graphs do not fit the shared buffers. A search through a large
 * tenant's graph reads ~1,600 of its pages; pages outside the shared buffers come from the OS page
 * cache, which a kernel may page out while they sit unused, so a large tenant's question after a
 * quiet while waits on the disk: measured on a 134,072-chunk tenant, p95 24–55 ms with 128 MB of
 * shared buffers against 6–15 ms with its graph in them (docs/performance.md 1e). Undefined when they fit.
 */
export function graphMemoryWarning(m: GraphMemory): string | undefined {
  if (m.graphBytes <= m.sharedBuffersBytes) return undefined;
  const mb = (b: number) => `${Math.ceil(b / 2 ** 20)} MB`;
  return `the tenants' vector graphs take ${mb(m.graphBytes)} (the largest ${mb(m.largestBytes)}) and shared_buffers is ${mb(m.sharedBuffersBytes)}: large tenants' searches may wait on the disk after a quiet while; set shared_buffers to at least ${mb(m.largestBytes * 2)}, better ${mb(m.graphBytes)} (POSTGRES_SHARED_BUFFERS in docker/compose.yaml)`;
}
