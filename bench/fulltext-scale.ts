// The full-text list as the deployment grows (docs/performance.md, change 29): every question of the
// dev loop's corpora (bench/dev-crawl-corpora.ts crawls them) searched by full text alone through the
// service's searchCandidates, in a copy of that database whose tenants are repeated N times as other
// clients (the same pages under other client ids: a deployment N times as large, each client's own
// search unchanged), once with the word-only GIN index the schema had before 0023 and once with the
// client-and-words index it has now. p50 / p95 per corpus, and whether the lists are identical.
// A tool, not part of `pnpm bench`.
//
//   node bench/dev-crawl-corpora.ts && node bench/fulltext-scale.ts [--copies 9]
import { migrate } from '@kbchat/shared/db/migrate';
import { createPool } from '@kbchat/shared/db/pool';
import { searchCandidates } from '@kbchat/shared/db/retrieval';
import pg from 'pg';
import { CORPUS_LIST, loadQuestions } from './lib/corpora.ts';
import { readDevLoop } from './lib/dev-loop.ts';
import { log, percentile, round } from './lib/env.ts';

const at = process.argv.indexOf('--copies');
const copies = at >= 0 ? Number(process.argv[at + 1]) : 9;
const setup = readDevLoop();
await migrate(setup.databaseUrl);
const source = new URL(setup.databaseUrl);
const server = new URL(setup.databaseUrl);
server.pathname = '/postgres';
const name = `kbchat_fulltext_${Date.now().toString(36)}`;
const admin = new pg.Client({ connectionString: server.href });
await admin.connect();
// A template may have no other session: the migration's pool may still be closing its connections.
for (let attempt = 0; ; attempt++) {
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${source.pathname.slice(1)}`);
    break;
  } catch (err) {
    if (attempt === 20 || !/being accessed by other users/.test((err as Error).message)) throw err;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
const url = new URL(setup.databaseUrl);
url.pathname = `/${name}`;
try {
  const db = new pg.Client({ connectionString: url.href });
  db.on('error', () => {}); // ended by the DROP below when something failed
  await db.connect();
  await db.query(`DO $$
    DECLARE i int; c uuid; n uuid; orig uuid[] := ARRAY(SELECT DISTINCT client_id FROM documents);
    BEGIN
      FOR i IN 1..${copies} LOOP
        FOREACH c IN ARRAY orig LOOP
          INSERT INTO clients (name, webhook_secret) VALUES ('copy', 'whsec_bench') RETURNING id INTO STRICT n;
          INSERT INTO documents (client_id, url, title, heading, chunk_index, content, content_hash)
            SELECT n, url || '?copy=' || i, title, heading, chunk_index, content, content_hash FROM documents WHERE client_id = c;
        END LOOP;
      END LOOP;
    END $$`);
  await db.query('VACUUM ANALYZE documents');
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM documents');
  log(`fulltext: ${rows[0]?.n} chunks (the corpora and ${copies} copies of each)`);
  const pool = await createPool({ connectionString: url.href, max: 1 });
  const pass = async (label: string) => {
    const lists: Record<string, string[][]> = {};
    for (const corpus of CORPUS_LIST) {
      const info = setup.corpora[corpus.name];
      if (!info) continue;
      const questions = loadQuestions(corpus);
      const times: number[] = [];
      for (let round = 0; round < 2; round++) {
        times.length = 0;
        lists[corpus.name] = [];
        for (const q of questions) {
          const t0 = performance.now();
          const r = await searchCandidates(pool, {
            clientId: info.clientId,
            embeddingModel: 'none',
            embedding: undefined,
            query: q.question,
            k: 20,
            exactScanMaxDocs: 2000,
            efSearch: 100,
          });
          times.push(performance.now() - t0);
          lists[corpus.name]?.push(
            r.candidates
              .filter((c) => c.ftsRank !== null)
              .sort((a, b) => (a.ftsRank as number) - (b.ftsRank as number))
              .map((c) => c.id),
          );
        }
      }
      const sorted = times.sort((a, b) => a - b);
      log(
        `  ${label} ${corpus.name}: ${questions.length} questions, p50 ${round(percentile(sorted, 50))} ms, p95 ${round(percentile(sorted, 95))} ms`,
      );
    }
    return lists;
  };
  // Before 0023: the words alone.
  await db.query('CREATE INDEX documents_fts_idx ON documents USING gin (fts)');
  await db.query('DROP INDEX documents_client_fts_idx');
  await db.query('ANALYZE documents');
  const before = await pass('words only');
  await db.query('CREATE INDEX documents_client_fts_idx ON documents USING gin (client_id, fts)');
  await db.query('DROP INDEX documents_fts_idx');
  await db.query('ANALYZE documents');
  const after = await pass('client and words');
  for (const [corpus, lists] of Object.entries(after)) {
    const same = lists.filter((l, i) => JSON.stringify(l) === JSON.stringify(before[corpus]?.[i])).length;
    log(`  ${corpus}: full-text lists identical ${same} / ${lists.length}`);
  }
  await pool.end();
  await db.end();
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
