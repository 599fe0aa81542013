import { Worker } from 'node:worker_threads';
import type { LsaModel } from '../embedding/lsa.ts';
import { type Pool, type Queryable, vectorArrayParams, withTransaction } from './pool.ts';

/** buildLsa in a worker thread (embedding/lsa-worker.ts) from the chunks' tsvectors as text, so the process keeps serving meanwhile. */
function buildInWorker(tsvectors: string[]): Promise<LsaModel | undefined> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('../embedding/lsa-worker.ts', import.meta.url), { workerData: { tsvectors } });
    worker.once('message', (model: LsaModel | null) => resolve(model ?? undefined));
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`the related-words worker exited with code ${code}`));
    });
  });
}

/**
 * Rebuilds a client's latent semantic vectors from what its chunks hold now (embedding/lsa.ts):
 * read every chunk's tsvector, learn (in a worker thread), then replace the client's lexeme and chunk
 * vectors in one transaction. Chunks stored after the read have no vector until the next rebuild (the
 * other lists still find them); chunks deleted meanwhile take theirs along (foreign key). Rebuilds of
 * one client take turns (an advisory lock). The time the read began is recorded as
 * lsa_state.built_at: a crawl completing after it leaves the state stale (staleRelatedWords). Returns
 * the chunks given a vector (0: too few chunks to learn from; the old vectors are dropped).
 */
export async function refreshLsa(pool: Pool, clientId: string): Promise<number> {
  // As text: a Date would cut the microseconds, and the learn would look older than the crawl before it.
  const { rows: at } = await pool.query<{ now: string }>('SELECT now()::text AS now');
  const readAt = (at[0] as { now: string }).now;
  const { rows } = await pool.query<{ id: string; fts: string }>(
    `SELECT d.id, d.fts::text AS fts
       FROM documents d
      WHERE d.client_id = $1 AND d.fts <> ''::tsvector
      -- In page order, not by id (random): the range finder's start is each chunk's own (embedding/lsa.ts),
      -- and a fixed order keeps even the floating-point sums the same for the same pages.
      ORDER BY d.url, d.chunk_index, d.id`,
    [clientId],
  );
  const model = await buildInWorker(rows.map((r) => r.fts));
  return withTransaction(pool, async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtextextended('kbchat_lsa:' || $1::text, 0))", [clientId]);
    await tx.query('DELETE FROM lsa_terms WHERE client_id = $1', [clientId]);
    await tx.query('DELETE FROM lsa_chunks WHERE client_id = $1', [clientId]);
    await tx.query(
      `INSERT INTO lsa_state (client_id, wanted_at, built_at) VALUES ($1, $2::timestamptz, $2::timestamptz)
       ON CONFLICT (client_id) DO UPDATE SET built_at = GREATEST(lsa_state.built_at, EXCLUDED.built_at)`,
      [clientId, readAt],
    );
    if (!model) return 0;
    const terms = [...model.terms];
    for (let i = 0; i < terms.length; i += 2000) {
      const batch = terms.slice(i, i + 2000);
      const vecs = vectorArrayParams(
        batch.map(([, t]) => t.vector),
        4,
      );
      await tx.query(
        `INSERT INTO lsa_terms (client_id, lexeme, idf, vec)
         SELECT $1, t.lexeme, t.idf, t.vec FROM unnest($2::text[], $3::float8[], ${vecs.sql}) AS t(lexeme, idf, vec)`,
        [clientId, batch.map(([l]) => l), batch.map(([, t]) => t.idf), ...vecs.values],
      );
    }
    let stored = 0;
    for (let i = 0; i < rows.length; i += 1000) {
      const ids = rows.slice(i, i + 1000).map((r) => r.id);
      const vecs = vectorArrayParams(model.chunks.slice(i, i + 1000), 3);
      // Only chunks still there: one deleted since the read (a re-crawl removing a page) is skipped.
      const res = await tx.query(
        `INSERT INTO lsa_chunks (document_id, client_id, vec)
         SELECT u.id, $1, u.vec FROM unnest($2::uuid[], ${vecs.sql}) AS u(id, vec)
          WHERE EXISTS (SELECT 1 FROM documents d WHERE d.id = u.id)`,
        [clientId, ids, ...vecs.values],
      );
      stored += res.rowCount ?? 0;
    }
    return stored;
  });
}

/**
 * Marks the client's related words as wanted again, in the caller's transaction (the one that
 * completes a crawl): until a rebuild that began after this has written them, they are stale.
 */
export async function markRelatedWordsWanted(tx: Queryable, clientId: string): Promise<void> {
  await tx.query(
    `INSERT INTO lsa_state (client_id, wanted_at) VALUES ($1, now())
     ON CONFLICT (client_id) DO UPDATE SET wanted_at = now()`,
    [clientId],
  );
}

/** Clients whose related words have been wanted for over `olderThanMs` without a rebuild since. */
export async function staleRelatedWords(db: Queryable, olderThanMs: number): Promise<string[]> {
  const { rows } = await db.query<{ client_id: string }>(
    `SELECT client_id FROM lsa_state
      WHERE (built_at IS NULL OR built_at < wanted_at) AND wanted_at < now() - make_interval(secs => $1::float8 / 1000)
      ORDER BY wanted_at`,
    [olderThanMs],
  );
  return rows.map((r) => r.client_id);
}

/** Whether the client's related words were learnt after they were last wanted (true when never wanted). */
export async function relatedWordsFresh(db: Queryable, clientId: string): Promise<boolean> {
  const { rows } = await db.query<{ fresh: boolean }>(
    'SELECT built_at IS NOT NULL AND built_at >= wanted_at AS fresh FROM lsa_state WHERE client_id = $1',
    [clientId],
  );
  return rows[0]?.fresh ?? true;
}

/**
 * The question's latent vector (kbchat_lsa_query_vector in sql/search-candidates.sql, which the
 * search also calls): its lexemes (English configuration, as the chunks' tsvectors) that the client's
 * model knows, weighed by idf, the context words of a follow-up at half weight. Undefined when the
 * client has no model or the question none of its words.
 */
export async function lsaQueryVector(db: Queryable, clientId: string, query: string, focus?: string): Promise<number[] | undefined> {
  const { rows } = await db.query<{ vec: string | null }>(
    `SELECT kbchat_lsa_query_vector($1, tsvector_to_array(to_tsvector('kbchat_english', $2)), tsvector_to_array(to_tsvector('kbchat_english', $3)))::text AS vec`,
    [clientId, query, focus ?? query],
  );
  const vec = rows[0]?.vec;
  return vec ? (JSON.parse(vec) as number[]) : undefined;
}
