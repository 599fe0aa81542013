// Offline retrieval quality of the local embedder against plain BM25 on the Node.js 18 API docs
// (/work/shared/eval/README.md). Both rank the same ~1000-character chunks; a question's pages are
// the distinct pages of its ranked chunks. Follow-ups are asked without their context, like the
// reference BM25 run. Not part of `pnpm test`.
//
//   apt-get download nodejs-doc && dpkg -x nodejs-doc_*.deb /tmp/corpora
//   node bench/local-embedder-eval.ts [--docs DIR] [--questions FILE] [--title] [--options JSON] [--json]
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_LOCAL_EMBEDDER_OPTIONS, embedLocal, type LocalEmbedderOptions } from '@kbchat/shared/providers/embeddings/local-embedder';

const { values: args } = parseArgs({
  options: {
    docs: { type: 'string', default: '/tmp/corpora/usr/share/doc/nodejs/api' },
    questions: { type: 'string', default: '/work/shared/eval/nodejs-api-questions.json' },
    title: { type: 'boolean', default: false },
    options: { type: 'string', default: '{}' },
    json: { type: 'boolean', default: false },
  },
});

interface Question {
  id: string;
  question: string;
  expected: string[];
  follows: string | null;
  kind: string;
}
interface Chunk {
  page: string;
  title: string;
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function htmlToText(html: string): { title: string; text: string } {
  const title =
    /<title>([^<]*)<\/title>/i
      .exec(html)?.[1]
      ?.replace(/\s*\|\s*Node\.js.*$/, '')
      .trim() ?? '';
  // The main column only: the sidebar and per-page table of contents are on every page.
  const start = html.indexOf('<div id="apicontent">');
  const body = start >= 0 ? html.slice(start) : html;
  const text = body
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<\/?(p|div|h[1-6]|li|ul|ol|pre|section|table|tr|blockquote|br)\b[^>]*>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e: string) => {
      if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1)));
      return ENTITIES[e.toLowerCase()] ?? m;
    })
    .replace(/[ \t]+/g, ' ')
    .replace(/#\n/g, '\n');
  return { title, text };
}

/** Paragraphs packed into chunks of at most ~1000 characters; a longer paragraph is cut at spaces. */
function chunk(text: string, size = 1000): string[] {
  const out: string[] = [];
  let current = '';
  const flush = () => {
    if (current.trim()) out.push(current.trim());
    current = '';
  };
  for (const raw of text.split(/\n+/)) {
    let para = raw.trim();
    if (!para) continue;
    while (para.length > size) {
      const cut = para.lastIndexOf(' ', size) > size / 2 ? para.lastIndexOf(' ', size) : size;
      flush();
      out.push(para.slice(0, cut).trim());
      para = para.slice(cut).trim();
    }
    if (current.length + para.length + 1 > size) flush();
    current += (current ? '\n' : '') + para;
  }
  flush();
  return out;
}

function loadChunks(dir: string): Chunk[] {
  const chunks: Chunk[] = [];
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith('.html') || file === 'all.html') continue;
    const { title, text } = htmlToText(readFileSync(path.join(dir, file), 'utf8'));
    for (const c of chunk(text)) chunks.push({ page: file, title, text: c });
  }
  return chunks;
}

// Plain BM25 (k1 1.2, b 0.75), lower-cased \p{L}\p{N} tokens, no stemming or stop words: the
// reference point of the eval README.
function bm25Index(docs: string[]) {
  const tokenize = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const tfs = docs.map((d) => {
    const m = new Map<string, number>();
    for (const t of tokenize(d)) m.set(t, (m.get(t) ?? 0) + 1);
    return m;
  });
  const lengths = docs.map((d) => tokenize(d).length);
  const avg = lengths.reduce((a, b) => a + b, 0) / docs.length;
  const df = new Map<string, number>();
  for (const tf of tfs) for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const N = docs.length;
  return (query: string): Float64Array => {
    const scores = new Float64Array(N);
    for (const q of new Set(tokenize(query))) {
      const n = df.get(q);
      if (!n) continue;
      const idf = Math.log(1 + (N - n + 0.5) / (n + 0.5));
      for (let i = 0; i < N; i++) {
        const f = tfs[i]!.get(q);
        if (f) scores[i]! += (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * lengths[i]!) / avg));
      }
    }
    return scores;
  };
}

function rankPages(scores: ArrayLike<number>, chunks: Chunk[]): string[] {
  const order = Array.from({ length: chunks.length }, (_, i) => i).sort((a, b) => scores[b]! - scores[a]!);
  const pages: string[] = [];
  for (const i of order) {
    const p = chunks[i]!.page;
    if (!pages.includes(p)) pages.push(p);
    if (pages.length === 10) break;
  }
  return pages;
}

function score(questions: Question[], rank: (q: string) => string[]) {
  let r1 = 0;
  let r5 = 0;
  let mrr = 0;
  const misses: string[] = [];
  for (const q of questions) {
    const pages = rank(q.question);
    const first = pages.findIndex((p) => q.expected.includes(p));
    if (first === 0) r1++;
    if (first >= 0 && first < 5) r5++;
    else misses.push(`${q.id}(${pages.slice(0, 3).join(',')})`);
    if (first >= 0) mrr += 1 / (first + 1);
  }
  const n = questions.length;
  return { recallAt1: r1 / n, recallAt5: r5 / n, mrr: mrr / n, misses };
}

const options: Partial<LocalEmbedderOptions> = JSON.parse(args.options);
const questions = (JSON.parse(readFileSync(args.questions, 'utf8')) as { questions: Question[] }).questions.filter(
  (q) => q.expected.length > 0,
);
const chunks = loadChunks(args.docs);
const texts = chunks.map((c) => (args.title ? `${c.title}\n${c.text}` : c.text));

const started = performance.now();
const dims = options.dimensions ?? DEFAULT_LOCAL_EMBEDDER_OPTIONS.dimensions;
const matrix = new Float32Array(chunks.length * dims);
texts.forEach((t, i) => {
  matrix.set(embedLocal(t, options), i * dims);
});
const embedSeconds = (performance.now() - started) / 1000;

function cosineScores(q: string): Float64Array {
  const v = embedLocal(q, options);
  const scores = new Float64Array(chunks.length);
  for (let i = 0; i < chunks.length; i++) {
    let dot = 0;
    const base = i * dims;
    for (let d = 0; d < dims; d++) dot += v[d]! * matrix[base + d]!;
    scores[i] = dot;
  }
  return scores;
}

/** Reciprocal rank fusion (k = 60) of two chunk rankings: what a hybrid retriever does. */
function rrf(a: Float64Array, b: Float64Array, k = 60): Float64Array {
  const fused = new Float64Array(a.length);
  for (const scores of [a, b]) {
    const order = Array.from({ length: scores.length }, (_, i) => i).sort((x, y) => scores[y]! - scores[x]!);
    order.forEach((chunk, rank) => {
      if (scores[chunk]! > 0) fused[chunk]! += 1 / (k + rank + 1);
    });
  }
  return fused;
}

const local = score(questions, (q) => rankPages(cosineScores(q), chunks));
const bm25Search = bm25Index(texts);
const bm25 = score(questions, (q) => rankPages(bm25Search(q), chunks));
const hybrid = score(questions, (q) => rankPages(rrf(cosineScores(q), bm25Search(q)), chunks));

const result = {
  corpus: args.docs,
  pages: new Set(chunks.map((c) => c.page)).size,
  chunks: chunks.length,
  questions: questions.length,
  titleInChunks: args.title,
  options: { ...DEFAULT_LOCAL_EMBEDDER_OPTIONS, ...options },
  chunksPerSecond: Math.round(chunks.length / embedSeconds),
  local,
  bm25,
  hybridRrf: hybrid,
};
if (args.json) console.log(JSON.stringify(result, null, 2));
else {
  const f = (x: number) => x.toFixed(3);
  console.log(`${result.pages} pages, ${result.chunks} chunks, ${result.questions} answerable questions, title in chunks: ${args.title}`);
  console.log(`local embedder: ${result.chunksPerSecond} chunks/s`);
  console.log('| ranker | recall@1 | recall@5 | MRR |\n|---|---|---|---|');
  console.log(`| local-lexical | ${f(local.recallAt1)} | ${f(local.recallAt5)} | ${f(local.mrr)} |`);
  console.log(`| BM25 | ${f(bm25.recallAt1)} | ${f(bm25.recallAt5)} | ${f(bm25.mrr)} |`);
  console.log(`| RRF(local, BM25) | ${f(hybrid.recallAt1)} | ${f(hybrid.recallAt5)} | ${f(hybrid.mrr)} |`);
  console.log(`local misses@5: ${local.misses.join(' ')}`);
  console.log(`bm25 misses@5: ${bm25.misses.join(' ')}`);
}
