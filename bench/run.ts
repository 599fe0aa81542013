// `pnpm bench [part ...] [--quick]`: the benchmarks of issue 7, each a ratio against a baseline
// measured in the same run on this machine. Writes bench/results/latest.json and latest.md; a
// part run alone replaces only its own entry (the others keep the figures, time and load of their
// last run). Never part of `pnpm test`.
//
// Parts: crawl (1a), chat (1b), retrieval (1c), embeddings (1d), scale (1e), recrawl and files (issue 18),
// load (issue 22 item 4). Default: all.
// Needs Postgres 15 + pgvector (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres:
// each part creates and drops a database of its own) and Redis (REDIS_URL, default
// redis://127.0.0.1:6379). The corpora are fetched with apt-get download when missing.
import { parseArgs } from 'node:util';
import { chatBench } from './chat.ts';
import { crawlBench } from './crawl.ts';
import { embeddingsBench } from './embeddings.ts';
import { filesBench } from './files.ts';
import { benchEnv, log, machine } from './lib/env.ts';
import { type BenchResults, loadResults, type PartResult, writeResults } from './lib/report.ts';
import { loadBench } from './load.ts';
import { recrawlBench } from './recrawl.ts';
import { retrievalBench } from './retrieval.ts';
import { scaleBench } from './scale.ts';

const PARTS = ['crawl', 'chat', 'retrieval', 'embeddings', 'scale', 'recrawl', 'files', 'load'] as const;
type Part = (typeof PARTS)[number];

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    quick: { type: 'boolean', default: false },
    'crawl-rounds': { type: 'string' },
    'chat-seconds': { type: 'string' },
    'chat-rounds': { type: 'string' },
    'load-seconds': { type: 'string' },
    'scale-documents': { type: 'string' },
    'scale-clients': { type: 'string' },
    'recrawl-pages': { type: 'string' },
    databases: { type: 'string' },
    corpora: { type: 'string' },
  },
});

const unknown = positionals.filter((p) => !(PARTS as readonly string[]).includes(p));
if (unknown.length > 0) {
  process.stderr.write(`unknown part(s): ${unknown.join(', ')}; parts are ${PARTS.join(', ')}\n`);
  process.exit(2);
}
const selected: Part[] = positionals.length > 0 ? PARTS.filter((p) => positionals.includes(p)) : [...PARTS];
const quick = flags.quick === true;
const env = benchEnv();

const runners: Record<Part, () => Promise<PartResult>> = {
  crawl: () => crawlBench(env, { concurrency: 8, rounds: Number(flags['crawl-rounds'] ?? (quick ? 1 : 2)) }),
  chat: () =>
    chatBench(env, {
      documents: 1000,
      concurrency: [1, 16, 64],
      seconds: Number(flags['chat-seconds'] ?? (quick ? 5 : 10)),
      rounds: Math.max(1, Number(flags['chat-rounds'] ?? (quick ? 1 : 3)) || 1),
    }),
  retrieval: () =>
    retrievalBench(env, {
      databases: (flags.databases ?? 'native').split(',').map((d) => d.trim()) as ('native' | 'embedded')[],
      ...(flags.corpora ? { corpora: flags.corpora.split(',').map((c) => c.trim()) } : {}),
    }),
  embeddings: () => embeddingsBench(env),
  load: () =>
    loadBench(env, {
      clients: 50,
      documentsPerClient: 200,
      rates: [100, 300],
      seconds: Number(flags['load-seconds'] ?? (quick ? 5 : 30)),
      warmupSeconds: quick ? 2 : 5,
    }),
  files: () => filesBench({ pages: 100, runs: quick ? 3 : 7 }),
  recrawl: () => recrawlBench(env, { maxPages: Number(flags['recrawl-pages'] ?? (quick ? 150 : 5000)) }),
  scale: () =>
    scaleBench(env, {
      documents: Number(flags['scale-documents'] ?? (quick ? 20_000 : 1_000_000)),
      clients: Number(flags['scale-clients'] ?? (quick ? 20 : 1000)),
      queries: quick ? 10 : 20,
      tenantsPerClass: quick ? 3 : 6,
    }),
};

const results: BenchResults = loadResults() ?? { machine: machine(), updatedAt: '', parts: {} };
let failed = false;
for (const part of selected) {
  const loadAtStart = machine().loadAverage;
  const started = performance.now();
  log(`=== ${part} (load average ${loadAtStart.join(' / ')}) ===`);
  try {
    const result = await runners[part]();
    results.parts[part] = {
      ...result,
      measuredAt: new Date().toISOString(),
      seconds: (performance.now() - started) / 1000,
      loadAtStart,
      loadAtEnd: machine().loadAverage,
    };
    results.machine = machine();
    results.updatedAt = new Date().toISOString();
    const files = writeResults(results, [...PARTS]);
    log(`${part} done in ${Math.round((performance.now() - started) / 1000)} s → ${files.md}`);
  } catch (err) {
    failed = true;
    log(`${part} FAILED: ${(err as Error).stack ?? err}`);
  }
}
process.exit(failed ? 1 : 0);
