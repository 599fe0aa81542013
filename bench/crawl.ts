// 1a. Crawl throughput: kbchat's crawler vs Crawlee's CheerioCrawler on the PostgreSQL 15 docs
// (1,173 pages) served on loopback, at the same concurrency.
//
// Ours is the whole pipeline as deployed: a kbchat process (gateway + crawler + embedder) on a
// database of its own, the crawl started through POST /api/admin/crawl and timed until its job is
// completed — fetch, extraction, chunking, storing in Postgres and local embeddings all done.
// Crawlee's run follows the same links and takes each page's title and body text; it stores
// nothing. Peak RSS is each process's own (VmHWM); Postgres and Redis are not counted for ours.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { serveDirectory } from '../test/support/fixture-site.ts';
import {
  type BenchEnv,
  cpuSeconds,
  crawlSite,
  createClient,
  createDatabase,
  ensureCorpora,
  log,
  PG_DOCS,
  peakRssMb,
  postgresCpuSampler,
  round,
  spawnNode,
  startKbchatProcess,
  waitForRelatedWords,
} from './lib/env.ts';
import { type PartResult, ratio } from './lib/report.ts';

export interface CrawlOptions {
  concurrency: number;
  rounds: number;
}

interface CrawleeRun {
  pages: number;
  failed: number;
  seconds: number;
  peakRssMb: number;
}

async function runCrawlee(siteUrl: string, concurrency: number): Promise<CrawleeRun & { cpuSeconds: number }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kbbench-crawlee-'));
  try {
    const child = spawnNode('bench/lib/crawlee-crawl.ts', { CRAWLEE_STORAGE_DIR: path.join(dir, 'storage') }, [
      '--url',
      `${siteUrl}/index.html`,
      '--concurrency',
      String(concurrency),
    ]);
    let cpu = 0;
    const sampler = setInterval(() => {
      cpu = cpuSeconds(child.child.pid) ?? cpu;
    }, 200);
    const code = await child.exited;
    clearInterval(sampler);
    if (code !== 0) throw new Error(`crawlee run failed (${code}):\n${child.output().slice(-3000)}`);
    const last = child.output().trim().split('\n').at(-1) ?? '{}';
    return { ...(JSON.parse(last) as CrawleeRun), cpuSeconds: cpu };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface OursRun {
  pages: number;
  pagesIndexed: number;
  documents: number;
  embedded: number;
  seconds: number;
  /** Until the last page was stored (every page searchable; the crawl's end still running). */
  storedSeconds: number;
  /** Until the related words, learnt after the crawl completes, are written. */
  learntSeconds: number;
  peakRssMb: number;
  cpuSeconds: number;
  postgresCpuSeconds: number;
  phases: Record<string, number>;
  jobStatus: string;
  progress: Record<string, unknown>;
}

export async function runOurs(
  env: BenchEnv,
  siteUrl: string,
  concurrency: number,
  extraEnv: Record<string, string> = {},
): Promise<OursRun & { recrawl?: unknown }> {
  const db = await createDatabase(env.serverUrl, 'crawl');
  const kb = await startKbchatProcess({
    databaseUrl: db.url,
    redisUrl: env.redisUrl,
    env: {
      CRAWL_CONCURRENCY: String(concurrency),
      // Both crawlers get the same number of requests in flight to the one host.
      CRAWL_PER_HOST_CONCURRENCY: String(concurrency),
      EMBEDDING_PROVIDER: 'local',
      CHAT_PROVIDER: 'extractive',
      ...extraEnv,
    },
  });
  try {
    const clientId = await createClient(kb.baseUrl, 'Bench PostgreSQL docs');
    let cpu = 0;
    const sampler = setInterval(() => {
      cpu = cpuSeconds(kb.child.pid) ?? cpu;
    }, 200);
    const pgCpu = postgresCpuSampler(env.serverUrl, db.name);
    const started = performance.now();
    const { job, seconds, phases } = await crawlSite(kb.baseUrl, clientId, `${siteUrl}/index.html`, 100_000);
    await waitForRelatedWords(db.url, clientId);
    const learntSeconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const postgresCpuSeconds = await pgCpu.stop();
    cpu = cpuSeconds(kb.child.pid) ?? cpu;
    const rss = peakRssMb(kb.child.pid) ?? Number.NaN;
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    const { rows } = await pool.query<{ docs: number; embedded: number; stored: number | null }>(
      // stored: from the crawl's start to its last page's store (each chunk's created_at is its store's
      // transaction start), when every page answers already and the crawl's end begins.
      `SELECT count(*)::int AS docs, count(embedding)::int AS embedded,
              extract(epoch FROM max(d.created_at) - (SELECT j.created_at FROM jobs j WHERE j.id = $2))::float8 AS stored
         FROM documents d WHERE d.client_id = $1`,
      [clientId, job.jobId],
    );
    await pool.end();
    const p = job.progress;
    return {
      pages: p.pagesFetched ?? 0,
      pagesIndexed: p.pagesIndexed ?? 0,
      documents: rows[0]?.docs ?? 0,
      embedded: rows[0]?.embedded ?? 0,
      seconds,
      storedSeconds: rows[0]?.stored ?? seconds,
      learntSeconds,
      peakRssMb: rss,
      cpuSeconds: cpu,
      postgresCpuSeconds,
      phases,
      jobStatus: job.status,
      progress: p,
    };
  } finally {
    await kb.stop();
    await kb.cleanRedis();
    await db.drop();
  }
}

export async function crawlBench(env: BenchEnv, options: CrawlOptions): Promise<PartResult> {
  ensureCorpora();
  const site = await serveDirectory(PG_DOCS);
  const crawlee: Awaited<ReturnType<typeof runCrawlee>>[] = [];
  const ours: OursRun[] = [];
  try {
    // Alternating, so a change in the machine's other load hits both sides alike.
    for (let r = 0; r < options.rounds; r++) {
      log(`crawl round ${r + 1}/${options.rounds}: Crawlee CheerioCrawler, concurrency ${options.concurrency}`);
      crawlee.push(await runCrawlee(site.url, options.concurrency));
      log(`  ${crawlee.at(-1)?.pages} pages in ${round(crawlee.at(-1)?.seconds ?? 0)} s`);
      log(`crawl round ${r + 1}/${options.rounds}: kbchat, concurrency ${options.concurrency}`);
      ours.push(await runOurs(env, site.url, options.concurrency));
      log(`  ${ours.at(-1)?.pages} pages, ${ours.at(-1)?.documents} documents in ${round(ours.at(-1)?.seconds ?? 0)} s`);
    }
  } finally {
    await site.close();
  }
  // Best round of each: the one least disturbed by the rest of the machine.
  const bestCrawlee = crawlee.reduce((a, b) => (b.pages / b.seconds > a.pages / a.seconds ? b : a));
  const bestOurs = ours.reduce((a, b) => (b.pages / b.seconds > a.pages / a.seconds ? b : a));
  const oursRate = bestOurs.pages / bestOurs.seconds;
  const crawleeRate = bestCrawlee.pages / bestCrawlee.seconds;
  const oursCpuPerPage = (bestOurs.cpuSeconds * 1000) / bestOurs.pages;
  const crawleeCpuPerPage = (bestCrawlee.cpuSeconds * 1000) / bestCrawlee.pages;
  const complete = bestOurs.jobStatus === 'completed' && bestOurs.embedded === bestOurs.documents;
  return {
    part: 'crawl',
    title: '1a. Crawl: PostgreSQL 15 docs on loopback',
    oursLabel: `kbchat crawl job (fetch, extract, chunk, store, local embeddings; its own process), concurrency ${options.concurrency}`,
    baselineLabel: `Crawlee ${crawleeVersion()} CheerioCrawler (follow links, title + body text), concurrency ${options.concurrency}`,
    rows: [
      { metric: 'pages crawled', ours: bestOurs.pages, baseline: bestCrawlee.pages },
      {
        metric: 'pages/s until the crawl completes (every page stored, term statistics rebuilt)',
        ours: round(oursRate),
        baseline: round(crawleeRate),
        ratio: ratio(oursRate, crawleeRate),
        target: '≥ 0.8×',
        pass: complete && oursRate >= 0.8 * crawleeRate,
      },
      {
        metric: "pages/s until every page is stored and searchable (the crawl's end — term statistics — still to run)",
        ours: round(bestOurs.pages / bestOurs.storedSeconds),
        baseline: round(crawleeRate),
        ratio: ratio(bestOurs.pages / bestOurs.storedSeconds, crawleeRate),
      },
      {
        metric: 'pages/s until the related words, learnt after completion, are written',
        ours: round(bestOurs.pages / bestOurs.learntSeconds),
        baseline: round(crawleeRate),
        ratio: ratio(bestOurs.pages / bestOurs.learntSeconds, crawleeRate),
      },
      {
        metric: 'CPU ms per page: crawler process',
        ours: round(oursCpuPerPage, 2),
        baseline: round(crawleeCpuPerPage, 2),
        ratio: ratio(crawleeCpuPerPage, oursCpuPerPage),
      },
      {
        metric: 'CPU ms per page: + Postgres backends',
        ours: round(oursCpuPerPage + (bestOurs.postgresCpuSeconds * 1000) / bestOurs.pages, 2),
        baseline: round(crawleeCpuPerPage, 2),
        ratio: ratio(crawleeCpuPerPage, oursCpuPerPage + (bestOurs.postgresCpuSeconds * 1000) / bestOurs.pages),
      },
      {
        metric: 'peak RSS MB',
        ours: round(bestOurs.peakRssMb),
        baseline: round(bestCrawlee.peakRssMb),
        ratio: ratio(bestCrawlee.peakRssMb, bestOurs.peakRssMb),
      },
      { metric: 'chunks stored and embedded', ours: `${bestOurs.embedded} / ${bestOurs.documents}`, baseline: 'none' },
    ],
    notes: [
      `Best of ${options.rounds} alternating round(s) per side. The ratio for CPU and RSS is baseline/ours (above 1: ours uses less).`,
      'Ours also spends Postgres and Redis CPU (not in its process figures); the wall-clock pages/s includes them.',
    ],
    details: { concurrency: options.concurrency, crawlee, ours },
  };
}

function crawleeVersion(): string {
  try {
    return (JSON.parse(readPackageJson('@crawlee/cheerio')) as { version: string }).version;
  } catch {
    return '';
  }
}

function readPackageJson(name: string): string {
  const require = createRequire(import.meta.url);
  return readFileSync(require.resolve(`${name}/package.json`), 'utf8');
}
