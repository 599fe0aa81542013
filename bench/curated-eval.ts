// How the curated-answer matcher's first step (by words: packages/shared/src/chat/curated.ts) does on
// question sets of five businesses (bench/eval/curated-answers.json): paraphrases matched to the
// right answer, and near-misses matched to any, with the paraphrases missed and near-misses matched of
// the development sets. The held-out sets are scored, never listed: they are not to tune on. The service's second step (the curated answer ranked
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

const { sets, heldOut } = JSON.parse(readFileSync(new URL('./eval/curated-answers.json', import.meta.url), 'utf8')) as {
  sets: Record<string, CuratedSet>;
  heldOut: string[];
};
for (const [name, set] of Object.entries(sets)) {
  const missed = set.paraphrases.filter(([q, id]) => matchCurated(q, set.answers)?.answer.id !== id);
  const wrong = set.nearMisses.filter((q) => matchCurated(q, set.answers) !== undefined);
  const held = heldOut.includes(name);
  process.stdout.write(
    `${name}${held ? ' (held out)' : ''}: paraphrases matched ${set.paraphrases.length - missed.length} / ${set.paraphrases.length}, near-misses matched ${wrong.length} / ${set.nearMisses.length}\n`,
  );
  if (held) continue;
  for (const [q] of missed) process.stdout.write(`  missed: ${q}\n`);
  for (const q of wrong) process.stdout.write(`  near-miss matched: ${q}\n`);
}

// With other ways of asking (docs/operators.md): each paraphrase asked after the operator added the
// set's other paraphrases of the same answer to it (as knowledge gaps would bring them), leave one out;
// near-misses asked with every paraphrase added.
process.stdout.write('\nwith the other paraphrases added as other ways of asking (leave one out):\n');
for (const [name, set] of Object.entries(sets)) {
  const withOthers = (except?: string) =>
    set.answers.map((a) => ({
      ...a,
      alternates: set.paraphrases.filter(([q, id]) => id === a.id && q !== except).map(([q]) => q),
    }));
  const matched = set.paraphrases.filter(([q, id]) => matchCurated(q, withOthers(q))?.answer.id === id).length;
  const wrong = set.nearMisses.filter((q) => matchCurated(q, withOthers()) !== undefined).length;
  process.stdout.write(
    `${name}${heldOut.includes(name) ? ' (held out)' : ''}: paraphrases matched ${matched} / ${set.paraphrases.length}, near-misses matched ${wrong} / ${set.nearMisses.length}\n`,
  );
}
