import { readFileSync } from 'node:fs';
import { absentShare, LOCAL_EMBEDDER_RANKING } from '@kbchat/shared/chat/ranking';
import { searchedQuery } from '@kbchat/shared/chat/retrieval';
import { type CandidateResult, searchCandidates } from '@kbchat/shared/db/retrieval';
import { embedLocal, LOCAL_EMBEDDING_MODEL } from '@kbchat/shared/providers/embeddings/local-embedder';
import pg from 'pg';
import { CORPUS_LIST } from './lib/corpora.ts';
import type { Case } from './lib/retrieval-loo.ts';

const rows: { corpus: string; q: string; answerable: boolean; result: CandidateResult }[] = [];
for (const c of CORPUS_LIST)
  for (const k of JSON.parse(readFileSync(`/tmp/kbeval-cands-${c.name}.json`, 'utf8')) as Case[])
    rows.push({ corpus: c.name, q: k.question.question, answerable: k.question.expected.length > 0, result: k.result });
const small = JSON.parse(readFileSync('/tmp/absent-rows.json', 'utf8')) as { corpus: string; q: string; answerable: boolean }[];
const ids: Record<string, string> = {
  bikes: readFileSync('/tmp/demo-client', 'utf8').trim(),
  resto: readFileSync('/tmp/resto-client', 'utf8').trim(),
};
const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:5432/dbg' });
for (const r of small.filter((x) => ids[x.corpus])) {
  const s = searchedQuery(r.q);
  const result = await searchCandidates(pool, {
    latent: true,
    clientId: ids[r.corpus] as string,
    embeddingModel: LOCAL_EMBEDDING_MODEL,
    embedding: embedLocal(r.q),
    query: s.query,
    ...(s.focus ? { focus: s.focus } : {}),
    k: 20,
    kText: 60,
    exactScanMaxDocs: 2000,
    efSearch: 100,
  });
  rows.push({ corpus: r.corpus, q: r.q, answerable: r.answerable, result });
}
await pool.end();
for (const t of [0.3, 0.4, 0.5, 0.51]) {
  const out: string[] = [];
  for (const corpus of ['nodejs', 'django', 'postgres', 'git', 'bikes', 'resto']) {
    const rs = rows.filter((r) => r.corpus === corpus);
    const declined = (r: (typeof rs)[number]) =>
      absentShare(r.result, LOCAL_EMBEDDER_RANKING, { misspelt: new Set(r.result.misspelt), message: r.q }) >= t;
    const U = rs.filter((r) => !r.answerable);
    const A = rs.filter((r) => r.answerable);
    out.push(`${corpus} U ${U.filter(declined).length}/${U.length} A ${A.filter(declined).length}/${A.length}`);
  }
  console.log(`share>=${t}:`, out.join('  '));
}
for (const r of rows.filter((x) => !x.answerable || ['bikes', 'resto'].includes(x.corpus))) {
  const sh = absentShare(r.result, LOCAL_EMBEDDER_RANKING, { misspelt: new Set(r.result.misspelt), message: r.q });
  console.log(r.corpus.padEnd(8), r.answerable ? 'A' : 'U', sh.toFixed(2), r.result.corpusDocs, r.q);
}
