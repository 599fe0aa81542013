// The latent list (related-words vectors, db/lsa.ts) of a large tenant: exact scan against the
// tenant's own graph of them (db/vector-index.ts), one run. The tenant is the largest of the scale
// bench's Zipf curve (134,072 chunks of 1 M over 1,000 tenants), its vectors made by that bench's
// generator; its latent vectors are synthetic (100 dimensions: the chunk's topic plus noise, a hard
// case for a graph), since the scale bench's chunks have no words to learn from. Each query goes
// through the service's searchCandidates with a query vector and a latent vector, k 20, as a chat
// question does; timed with the latent list read exactly (no graph yet), then through the graph.
// Recall: the graph's 20 against the exact 20. A tool, not part of `pnpm bench`.
// With --corpora: the same recall on real latent vectors instead, those of the dev loop's corpora
// (bench/dev-crawl-corpora.ts crawls them), their graphs built by the service's sweep.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/latent-graph.ts
//   node bench/dev-crawl-corpora.ts && node bench/latent-graph.ts --corpora

import { lsaQueryVector } from '@kbchat/shared/db/lsa';
import { migrate } from '@kbchat/shared/db/migrate';
import { createPool } from '@kbchat/shared/db/pool';
import { searchCandidates } from '@kbchat/shared/db/retrieval';
import { lsaIndexName, reconcileVectorIndexes } from '@kbchat/shared/db/vector-index';
import pg from 'pg';
import { CORPUS_LIST, loadQuestions } from './lib/corpora.ts';
import { readDevLoop } from './lib/dev-loop.ts';
import { createDatabase, log, percentile, round } from './lib/env.ts';
import {
  buildModels,
  type ClientModel,
  denseOf,
  type Feature,
  load,
  MODEL,
  prng,
  TOPICS_PER_CLIENT,
  tenantSizes,
  vectorOf,
} from './scale.ts';

const QUERIES = 40;
if (process.argv.includes('--corpora')) {
  await corporaRecall();
  process.exit(0);
}
const db = await createDatabase(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', 'latent');
try {
  await migrate(db.url);
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const size = tenantSizes(1_000_000, 1000)[0] as number;
  const world = buildModels(1000, prng(7));
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO clients (name, webhook_secret) VALUES ('large', 'whsec_bench') RETURNING id`,
  );
  const clientId = (rows[0] as { id: string }).id;
  await client.query('ALTER TABLE lsa_chunks SET UNLOGGED');
  await client.query('ALTER TABLE documents SET UNLOGGED');
  await load(client, { documents: size, clients: 1, queries: 0, tenantsPerClass: 0 }, [clientId], [size], world);
  await client.query(
    `INSERT INTO term_stats_totals (client_id, documents, avg_length, refreshed_at) SELECT client_id, count(*)::int, 10, now() FROM documents GROUP BY client_id`,
  );
  await client.query(
    `INSERT INTO lsa_chunks (document_id, client_id, vec)
     SELECT d.id, d.client_id, (SELECT array_agg(((abs(hashtext(d.id::text || g::text)) % 1000) / 1000.0 - 0.5
                                                  + CASE WHEN g % 8 = d.chunk_index % 8 THEN 1 ELSE 0 END)::real) FROM generate_series(1, 100) g)::vector
       FROM documents d`,
  );
  await client.query('VACUUM ANALYZE');
  log(`latent: ${size} chunks loaded`);

  const rand = prng(99);
  const model = world.models[0] as ClientModel;
  const queries = Array.from({ length: QUERIES }, () =>
    denseOf(
      vectorOf(
        [
          { list: model.topics[Math.floor(rand() * TOPICS_PER_CLIENT)] as Feature[], count: 8 },
          { list: world.common, count: 3 },
        ],
        world.signs,
        rand,
      ),
    ),
  );
  const latent = (
    await client.query<{ v: string }>('SELECT vec::text AS v FROM lsa_chunks ORDER BY md5(document_id::text) LIMIT $1', [QUERIES])
  ).rows.map((r) => JSON.parse(r.v) as number[]);
  const pool = await createPool({ connectionString: db.url, max: 2 });
  // A warming pass, then the timed one; the latent list of each query kept for the recall.
  const pass = async () => {
    const times: number[] = [];
    const lists: string[][] = [];
    for (let round = 0; round < 2; round++) {
      times.length = 0;
      lists.length = 0;
      for (let i = 0; i < QUERIES; i++) {
        const t0 = performance.now();
        const r = await searchCandidates(pool, {
          clientId,
          embeddingModel: MODEL,
          embedding: queries[i],
          lsa: latent[i],
          query: '',
          k: 20,
          exactScanMaxDocs: 2000,
          efSearch: 100,
        });
        times.push(performance.now() - t0);
        lists.push(
          r.candidates
            .filter((c) => c.lsaRank !== null)
            .sort((a, b) => (a.lsaRank as number) - (b.lsaRank as number))
            .map((c) => c.id),
        );
      }
    }
    const sorted = [...times].sort((a, b) => a - b);
    return { p50: round(percentile(sorted, 50), 2), p95: round(percentile(sorted, 95), 2), lists };
  };
  // Both graphs as the service builds them; then without the latent one (exact), and with it again.
  await reconcileVectorIndexes(pool, { exactScanMaxDocs: 2000 });
  await client.query(`DROP INDEX ${lsaIndexName(clientId)}`);
  const exact = await pass();
  log(`  latent list exact: p50 ${exact.p50} ms, p95 ${exact.p95} ms`);
  const t = performance.now();
  const built = await reconcileVectorIndexes(pool, { exactScanMaxDocs: 2000 });
  log(`  ${built.built.join(', ')} built in ${round((performance.now() - t) / 1000, 1)} s`);
  const graph = await pass();
  const recall = graph.lists.reduce((s, l, i) => s + l.filter((id) => exact.lists[i]?.includes(id)).length / 20, 0) / QUERIES;
  log(`  latent list through the graph: p50 ${graph.p50} ms, p95 ${graph.p95} ms, recall@20 ${round(recall, 3)}`);
  log(`  ratio p50 graph / exact ${round(graph.p50 / exact.p50, 2)}`);
  await pool.end();
  await client.end();
} finally {
  await db.drop();
}

/** The latent list of every question of the dev loop's corpora, through each tenant's graph against exact. */
async function corporaRecall(): Promise<void> {
  const setup = readDevLoop();
  await migrate(setup.databaseUrl);
  const pool = await createPool({ connectionString: setup.databaseUrl, max: 1 });
  const built = await reconcileVectorIndexes(pool, { exactScanMaxDocs: 2000 });
  log(`latent: graphs built ${built.built.length}`);
  for (const corpus of CORPUS_LIST) {
    const info = setup.corpora[corpus.name];
    if (!info) continue;
    let recall = 0;
    let n = 0;
    for (const q of loadQuestions(corpus)) {
      const lsa = await lsaQueryVector(pool, info.clientId, q.question);
      if (!lsa) continue;
      const list = async (exactScanMaxDocs: number) =>
        (
          await searchCandidates(pool, {
            lsa,
            clientId: info.clientId,
            embeddingModel: MODEL,
            embedding: undefined,
            query: q.question,
            k: 20,
            exactScanMaxDocs,
            efSearch: 100,
          })
        ).candidates
          .filter((c) => c.lsaRank !== null)
          .map((c) => c.id);
      const exact = await list(1_000_000_000);
      const graph = await list(2000);
      recall += graph.filter((id) => exact.includes(id)).length / Math.max(1, exact.length);
      n++;
    }
    log(`  ${corpus.name}: ${n} questions, latent list recall@20 through the graph ${round(recall / n, 3)}`);
  }
  await pool.end();
}
