import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { absentShare, LOCAL_EMBEDDER_RANKING, termWeights } from '@kbchat/shared/chat/ranking';
import { searchedQuery } from '@kbchat/shared/chat/retrieval';
import { type CandidateResult, searchCandidates } from '@kbchat/shared/db/retrieval';
import { embedLocal, LOCAL_EMBEDDING_MODEL, termRarity } from '@kbchat/shared/providers/embeddings/local-embedder';
import pg from 'pg';
import { CORPUS_LIST } from './lib/corpora.ts';
import type { Case } from './lib/retrieval-loo.ts';

type Row = { corpus: string; q: string; answerable: boolean; result: CandidateResult };
const rows: Row[] = [];
for (const c of CORPUS_LIST) {
  const f = `/tmp/kbeval-cands-${c.name}.json`;
  if (!existsSync(f)) continue;
  for (const k of JSON.parse(readFileSync(f, 'utf8')) as Case[])
    rows.push({ corpus: c.name, q: k.question.question, answerable: k.question.expected.length > 0, result: k.result });
}
// Small sites: [clientId file, [question, answerable]]
const small: [string, string, [string, boolean][]][] = [
  [
    'bikes',
    '/tmp/demo-client',
    [
      ['Do you repair e-bikes?', true],
      ['Do I need ID to rent a bike?', true],
      ['can I pay by card', true],
      ['do you sell helmets', true],
      ['Do you sell cars?', false],
      ['Do you have a cafe?', false],
      ['Can I rent a kayak?', false],
      ['Do you repair motorbikes?', false],
      ['Is there parking?', true],
      ['what if I return the bike late', true],
    ],
  ],
  [
    'resto',
    '/tmp/resto-client',
    [
      ['Do you have vegan options?', true],
      ['Can I book a table for tonight?', true],
      ['how do I make a reservation', true],
      ['Is there parking nearby?', true],
      ['Is it wheelchair accessible?', true],
      ['Can I bring my kids?', true],
      ['do you have a kids menu', true],
      ['Can we have a birthday party there?', true],
      ['Do you sell gift cards?', true],
      ["I'm allergic to nuts, is that ok?", true],
      ['Do you have wifi?', false],
      ['Do you serve sushi?', false],
      ['Is there live music on Fridays?', false],
      ['Do you have a dress code?', false],
      ['Can I bring my dog?', false],
      ['Do you have outdoor seating?', false],
    ],
  ],
];
const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:5432/dbg' });
for (const [name, file, qs] of small) {
  const clientId = readFileSync(file, 'utf8').trim();
  for (const [q, answerable] of qs) {
    const s = searchedQuery(q);
    const result = await searchCandidates(pool, {
      latent: true,
      clientId,
      embeddingModel: LOCAL_EMBEDDING_MODEL,
      embedding: embedLocal(q),
      query: s.query,
      ...(s.focus ? { focus: s.focus } : {}),
      k: 20,
      kText: 60,
      exactScanMaxDocs: 2000,
      efSearch: 100,
    });
    rows.push({ corpus: name, q, answerable, result });
  }
}
await pool.end();
writeFileSync(
  '/tmp/absent-rows.json',
  JSON.stringify(
    rows.map((r) => ({
      corpus: r.corpus,
      q: r.q,
      answerable: r.answerable,
      terms: r.result.queryTerms,
      df: r.result.termDf,
      focus: r.result.termFocus,
      n: r.result.corpusDocs,
      misspelt: r.result.misspelt,
      w: termWeights(r.result, LOCAL_EMBEDDER_RANKING),
      prior: r.result.queryTerms.map((t) => termRarity(t)),
      share: absentShare(r.result, LOCAL_EMBEDDER_RANKING, { misspelt: new Set(r.result.misspelt), message: r.q }),
    })),
  ),
);
console.log(rows.length);
