import { readFileSync } from 'node:fs';
import { createPool } from '@kbchat/shared/db/pool';
import { searchCandidates } from '@kbchat/shared/db/retrieval';
import { CORPUS_LIST, loadQuestions } from './lib/corpora.ts';
import { percentile } from './lib/env.ts';

const setup = JSON.parse(readFileSync('/tmp/kbeval.json', 'utf8'));
const pool = await createPool({ connectionString: setup.databaseUrl, max: 1 });
const out: Record<string, unknown> = {};
for (const corpus of CORPUS_LIST) {
  const info = setup.corpora[corpus.name];
  if (!info) continue;
  const qs = loadQuestions(corpus);
  const times: number[] = [];
  const lists: string[][] = [];
  for (let round = 0; round < 2; round++) {
    times.length = 0;
    lists.length = 0;
    for (const q of qs) {
      const t0 = performance.now();
      const r = await searchCandidates(pool, {
        clientId: info.clientId,
        embeddingModel: 'x',
        embedding: undefined,
        query: q.question,
        k: 20,
        exactScanMaxDocs: 2000,
        efSearch: 100,
      });
      times.push(performance.now() - t0);
      lists.push(
        r.candidates
          .filter((c) => c.ftsRank !== null)
          .sort((a, b) => (a.ftsRank as number) - (b.ftsRank as number))
          .map((c) => c.id),
      );
    }
  }
  const s = [...times].sort((a, b) => a - b);
  console.log(
    corpus.name.padEnd(9),
    'n',
    qs.length,
    'p50',
    percentile(s, 50).toFixed(1),
    'p95',
    percentile(s, 95).toFixed(1),
    'max',
    s.at(-1)!.toFixed(1),
  );
  out[corpus.name] = lists;
}
if (process.env.SAVE) (await import('node:fs')).writeFileSync(process.env.SAVE, JSON.stringify(out));
else if (process.env.CMP) {
  const ref = JSON.parse(readFileSync(process.env.CMP, 'utf8'));
  for (const [name, lists] of Object.entries(out) as [string, string[][]][]) {
    let same = 0;
    lists.forEach((l, i) => {
      if (JSON.stringify(l) === JSON.stringify(ref[name][i])) same++;
    });
    console.log(name, 'identical full-text lists', same, '/', lists.length);
  }
}
await pool.end();
