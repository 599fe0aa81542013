// Ranking experiments without re-crawling (the dev loop behind bench/lib/retrieval-loo.ts): the
// corpora crawled once by bench/dev-crawl-corpora.ts, each question's candidates cached in /tmp,
// then the shipped weights and the leave-one-corpus-out choice scored in memory.
//   node bench/dev-crawl-corpora.ts && node bench/retrieval-tune.ts [--refresh] [--misses] [--phrases | --answers] [--no-loo]
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { LOCAL_EMBEDDER_RANKING } from '@kbchat/shared/chat/ranking';
import pg from 'pg';
import { Bm25Reference } from './lib/bm25-reference.ts';
import { CORPUS_LIST, loadQuestions, pageOf } from './lib/corpora.ts';
import { readDevLoop } from './lib/dev-loop.ts';
import { bestOnAll, type Case, type CorpusCases, collectCases, describeParams, evaluate, leaveOneCorpusOut } from './lib/retrieval-loo.ts';
import type { CorpusScore } from './lib/retrieval-score.ts';

const setup = readDevLoop();
const pool = new pg.Pool({ connectionString: setup.databaseUrl, max: 2 });
const corpora: CorpusCases[] = [];
for (const corpus of CORPUS_LIST) {
  const info = setup.corpora[corpus.name];
  if (!info || !existsSync(corpus.questionsFile)) continue;
  const questions = loadQuestions(corpus);
  const cacheFile = `/tmp/kbeval-cands-${corpus.name}.json`;
  let cases: Case[];
  if (!process.argv.includes('--refresh') && existsSync(cacheFile)) cases = JSON.parse(readFileSync(cacheFile, 'utf8'));
  else {
    cases = await collectCases(pool, info.clientId, questions);
    writeFileSync(cacheFile, JSON.stringify(cases));
  }
  const { rows } = await pool.query<{ url: string }>('SELECT url FROM pages WHERE client_id = $1', [info.clientId]);
  const bm25 = new Bm25Reference(
    corpus.dir,
    rows.map((r) => pageOf(r.url, info.siteUrl)),
  );
  corpora.push({
    name: corpus.name,
    byId: new Map(questions.map((q) => [q.id, q])),
    siteUrl: info.siteUrl,
    questions,
    cases,
    reference: bm25.score(questions),
  });
}
await pool.end();

const fmt = (s: CorpusScore, ref: { recallAt1: number; recallAt3: number }) =>
  `r@1 ${s.recallAt1.toFixed(3)} (bm25 ${ref.recallAt1.toFixed(3)})  src ${s.sourceRecall.toFixed(3)} (bm25 r@3 ${ref.recallAt3.toFixed(3)})  n ${s.meanSources.toFixed(2)}  declU ${s.unanswerableDeclined.toFixed(2)}  declA ${s.answerableDeclined.toFixed(2)}  phrase ${s.answerContains?.toFixed(3) ?? '-'}`;
console.log('shipped weights:');
for (const c of corpora) {
  const s = evaluate(c, LOCAL_EMBEDDER_RANKING);
  console.log(`  ${c.name.padEnd(8)} ${fmt(s, c.reference)}`);
  if (process.argv.includes('--misses')) console.log('   ', s.misses.join(' '));
  if (process.argv.includes('--phrases') || process.argv.includes('--answers'))
    for (const q of c.questions) {
      const text = s.answers.get(q.id)?.text ?? '';
      const holds = !q.answer?.length || q.answer.some((p) => text.toLowerCase().includes(p.toLowerCase()));
      if (holds && !process.argv.includes('--answers')) continue;
      const pages = s.answers.get(q.id)?.pages ?? [];
      const hit =
        pages[0] !== undefined && q.expected.includes(pages[0]) ? 'r1' : pages.some((p) => q.expected.includes(p)) ? 'src' : 'miss';
      console.log(
        `    ${q.id} [${hit}] ${q.question}\n      want ${JSON.stringify(q.answer)} in ${q.expected.join(',')}\n      got  ${pages.join(',')}: ${text.replace(/\s+/g, ' ').slice(0, Number(process.env.ANSWER_CHARS ?? 300))}`,
      );
    }
}
if (!process.argv.includes('--no-loo'))
  console.log(`the grid's choice on every corpus: ${describeParams(bestOnAll(corpora))}\nleave-one-corpus-out:`);
for (const h of process.argv.includes('--no-loo') ? [] : leaveOneCorpusOut(corpora)) {
  const c = corpora.find((x) => x.name === h.corpus) as CorpusCases;
  console.log(`  ${h.corpus.padEnd(8)} ${fmt(h.score, c.reference)}  [${describeParams(h.params)}]`);
}
