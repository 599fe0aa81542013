// Measures extractPage and chunkSections over a folder of HTML pages (default: the PostgreSQL 15 docs,
// see /work/shared/eval/README.md). Not a test: `node bench/measure-extraction.ts [dir] [--compare]`.
// --compare also times Readability over linkedom on the same pages.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { extractPage, extractWithReadability } from '@kbchat/crawler/web/extract';
import { chunkSections } from '@kbchat/shared/crawl/chunker';

const dir = process.argv.find((a, i) => i > 1 && !a.startsWith('--')) ?? '/tmp/corpora/usr/share/doc/postgresql-doc-15/html';
const compare = process.argv.includes('--compare');
const files = readdirSync(dir).filter((f) => /\.html?$/.test(f));
const pages = files.map((f) => ({ name: f, html: readFileSync(path.join(dir, f), 'utf8') }));
const bytes = pages.reduce((n, p) => n + p.html.length, 0);

// Wall time suffers when other processes share the cores; CPU time of this process much less so.
function time(label: string, fn: () => void, rounds = 3): number {
  fn(); // warm-up
  let best = Number.POSITIVE_INFINITY;
  let bestCpu = Number.POSITIVE_INFINITY;
  for (let r = 0; r < rounds; r++) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    fn();
    best = Math.min(best, performance.now() - t0);
    const cpu = process.cpuUsage(cpu0);
    bestCpu = Math.min(bestCpu, (cpu.user + cpu.system) / 1000);
  }
  console.log(
    `${label}: ${(best / pages.length).toFixed(3)} ms/page wall, ${(bestCpu / pages.length).toFixed(3)} ms/page CPU (best of ${rounds}, ${pages.length} pages, ${(bytes / 1e6).toFixed(1)} MB)`,
  );
  return best;
}

let chunks = 0;
let text = 0;
let fallbacks = 0;
let empty = 0;
time('extractPage', () => {
  for (const p of pages) extractPage(p.html, `http://127.0.0.1/${p.name}`);
});
time('extractPage + chunkSections', () => {
  chunks = 0;
  text = 0;
  fallbacks = 0;
  empty = 0;
  for (const p of pages) {
    const e = extractPage(p.html, `http://127.0.0.1/${p.name}`);
    chunks += chunkSections(e.sections).length;
    text += e.textLength;
    if (e.extractor === 'readability') fallbacks++;
    if (e.textLength === 0) empty++;
  }
});
const extractedAll = pages.map((p) => extractPage(p.html, `http://127.0.0.1/${p.name}`));
time('chunkSections alone', () => {
  for (const e of extractedAll) chunkSections(e.sections);
});
console.log(
  `chunks/page ${(chunks / pages.length).toFixed(2)}, text chars/page ${(text / pages.length).toFixed(0)}, readability fallbacks ${fallbacks}, empty pages ${empty}`,
);
if (compare) {
  let readabilityText = 0;
  time(
    'Readability over linkedom (the fallback)',
    () => {
      readabilityText = 0;
      for (const p of pages)
        readabilityText += (extractWithReadability(p.html, `http://127.0.0.1/${p.name}`) ?? []).reduce((n, s) => n + s.text.length, 0);
    },
    1,
  );
  console.log(`Readability text chars/page ${(readabilityText / pages.length).toFixed(0)}`);
}
