import { buildLsa, foldIn } from '../embedding/lsa.ts';
import type { Queryable } from './pool.ts';
import { type Pool, toVector, withTransaction } from './pool.ts';

/**
 * Rebuilds a client's latent semantic vectors from what its chunks hold now (embedding/lsa.ts):
 * read every chunk's tsvector, learn, then replace the lexeme vectors and set each chunk's vector
 * in one transaction. Chunks stored after the read keep no vector until the next rebuild (they are
 * still found by the other two lists). Rebuilds of one client take turns (an advisory lock).
 * Returns the chunks given a vector (0: too few chunks to learn from; the old vectors are dropped).
 */
export async function refreshLsa(pool: Pool, clientId: string): Promise<number> {
  const { rows } = await pool.query<{ id: string; lexemes: string[]; counts: number[] }>(
    `SELECT d.id, array_agg(u.lexeme ORDER BY u.lexeme) AS lexemes, array_agg(coalesce(cardinality(u.positions), 1) ORDER BY u.lexeme) AS counts
       FROM documents d CROSS JOIN LATERAL unnest(d.fts) u
      WHERE d.client_id = $1
      GROUP BY d.id
      ORDER BY d.id`,
    [clientId],
  );
  const model = buildLsa(rows);
  return withTransaction(pool, async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtextextended('kbchat_lsa:' || $1::text, 0))", [clientId]);
    await tx.query('DELETE FROM lsa_terms WHERE client_id = $1', [clientId]);
    if (!model) {
      await tx.query('UPDATE documents SET lsa = NULL WHERE client_id = $1 AND lsa IS NOT NULL', [clientId]);
      return 0;
    }
    const terms = [...model.terms];
    for (let i = 0; i < terms.length; i += 2000) {
      const batch = terms.slice(i, i + 2000);
      await tx.query(
        `INSERT INTO lsa_terms (client_id, lexeme, idf, vec)
         SELECT $1, t.lexeme, t.idf, t.vec::vector FROM unnest($2::text[], $3::float8[], $4::text[]) AS t(lexeme, idf, vec)`,
        [clientId, batch.map(([l]) => l), batch.map(([, t]) => t.idf), batch.map(([, t]) => toVector(Array.from(t.vector)))],
      );
    }
    for (let i = 0; i < rows.length; i += 1000) {
      const ids = rows.slice(i, i + 1000).map((r) => r.id);
      const vecs = model.chunks.slice(i, i + 1000).map((v) => toVector(Array.from(v)));
      await tx.query(
        `UPDATE documents d SET lsa = u.vec::vector FROM unnest($2::uuid[], $3::text[]) AS u(id, vec)
          WHERE d.client_id = $1 AND d.id = u.id`,
        [clientId, ids, vecs],
      );
    }
    return rows.length;
  });
}

/**
 * The question's latent vector: its lexemes (English configuration, as the chunks' tsvectors) that
 * the client's model knows, weighed by idf, the context words of a follow-up at half weight.
 * Undefined when the client has no model or the question none of its words.
 */
export async function lsaQueryVector(db: Queryable, clientId: string, query: string, focus?: string): Promise<number[] | undefined> {
  const { rows } = await db.query<{ lexeme: string; idf: number; vec: string; focus: boolean }>(
    `SELECT t.lexeme, t.idf, t.vec::text AS vec, t.lexeme = ANY(tsvector_to_array(to_tsvector('english', $3))) AS focus
       FROM lsa_terms t
      WHERE t.client_id = $1 AND t.lexeme = ANY(tsvector_to_array(to_tsvector('english', $2)))`,
    [clientId, query, focus ?? query],
  );
  if (rows.length === 0) return undefined;
  const terms = rows.map((r) => ({ idf: r.idf, vector: JSON.parse(r.vec) as number[], weight: r.focus ? 1 : 0.5 }));
  const v = foldIn(terms, terms[0]?.vector.length ?? 0);
  return v ? Array.from(v) : undefined;
}
