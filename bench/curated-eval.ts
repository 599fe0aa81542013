// How the curated-answer matcher's first step (by words: packages/shared/src/chat/curated.ts) does on
// question sets of three businesses (bench/eval/curated-answers.json): paraphrases matched to the
// right answer, and near-misses matched to any. The service's second step (the curated answer ranked
// first by the retrieval, with the site's own pages as evidence) needs a crawled site and is not
// scored here. Not part of `pnpm test`.
//
//   node bench/curated-eval.ts
import { readFileSync } from 'node:fs';
import { matchCurated } from '@kbchat/shared/chat/curated';

interface CuratedSet {
  answers: { id: string; question: string; answer: string }[];
  paraphrases: [string, string][];
  nearMisses: string[];
}

const { sets } = JSON.parse(readFileSync(new URL('./eval/curated-answers.json', import.meta.url), 'utf8')) as {
  sets: Record<string, CuratedSet>;
};
for (const [name, set] of Object.entries(sets)) {
  const matched = set.paraphrases.filter(([q, id]) => matchCurated(q, set.answers)?.answer.id === id);
  const wrong = set.nearMisses.filter((q) => matchCurated(q, set.answers) !== undefined);
  process.stdout.write(
    `${name}: paraphrases matched ${matched.length} / ${set.paraphrases.length}, near-misses matched ${wrong.length} / ${set.nearMisses.length}\n`,
  );
}
