// The chat benchmark's floor: a bare Fastify route that does the least a retrieval answer needs —
// embed the message with the same local embedder and run one pgvector query (the client's 20
// nearest chunks, as ours asks for) on the same data — and returns the rows. No validation
// beyond JSON parsing, no rate limit, no session, no full text, no ranking, no answer composing.
// The query is the one ours runs for a tenant of this size (1,000 chunks, at most
// RETRIEVAL_EXACT_SCAN_MAX_DOCS): an exact scan of the tenant's vectors, ordered by distance
// (packages/shared/sql/search-candidates.sql). Tenants that small have no graph of their own; the
// floor once forced the shared HNSW graph's plan (enable_sort=off), and with that graph gone it cost
// ~56 ms of Postgres CPU a request — no floor.
//
//   DATABASE_URL=… PORT=… node bench/lib/floor-server.ts
import { createPool, toVector } from '@kbchat/shared/db/pool';
import { embedLocal } from '@kbchat/shared/providers/embeddings/local-embedder';
import Fastify from 'fastify';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL is required');
const pool = await createPool({ connectionString: databaseUrl, max: Number(process.env.DATABASE_POOL_MAX ?? 10) });
const app = Fastify({ logger: false });

app.post<{ Body: { clientId: string; message: string } }>('/api/chat', async (req) => {
  const vector = toVector(embedLocal(req.body.message));
  const { rows } = await pool.query(
    `SELECT id, url, title, content, 1 - (embedding <=> $2::vector) AS similarity
       FROM documents WHERE client_id = $1 AND embedding IS NOT NULL
      ORDER BY (embedding <=> $2::vector) + 0 LIMIT 20`,
    [req.body.clientId, vector],
  );
  return { passages: rows };
});
app.get('/healthz', async () => ({ ok: true }));

await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
const stop = async () => {
  await app.close();
  await pool.end();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
