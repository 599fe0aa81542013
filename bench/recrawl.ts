// Issue 18's re-crawl figure: what an unchanged scheduled re-crawl costs. The PostgreSQL 15 docs are
// served by a static server that answers conditional requests (ETag / Last-Modified → 304) and counts
// every byte it sends; kbchat crawls them once, then the source gets a schedule firing every 10 s and
// the first scheduled crawl is measured against the first crawl (bytes, requests, tokens).
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import {
  api,
  type BenchEnv,
  crawlSite,
  createClient,
  createDatabase,
  ensureCorpora,
  type JobView,
  log,
  PG_DOCS,
  round,
  sleep,
  startKbchatProcess,
} from './lib/env.ts';
import type { PartResult } from './lib/report.ts';

export interface RecrawlOptions {
  maxPages: number;
}

interface Change {
  jobId: string;
  counts: { added: number; changed: number; removed: number };
  added: string[];
  changed: string[];
}

interface Traffic {
  requests: number;
  ok: number;
  notModified: number;
  bytes: number;
}

/** Static files with validators; counts what it sends. */
async function serveCounting(dir: string) {
  const root = path.resolve(dir);
  let traffic: Traffic = { requests: 0, ok: 0, notModified: 0, bytes: 0 };
  const server = http.createServer(async (req, res) => {
    traffic.requests++;
    const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://static').pathname);
    let file = path.join(root, pathname);
    let info = file.startsWith(root) ? await stat(file).catch(() => null) : null;
    if (info?.isDirectory()) {
      file = path.join(file, 'index.html');
      info = await stat(file).catch(() => null);
    }
    if (!info?.isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      traffic.bytes += 9;
      return res.end('not found');
    }
    const etag = `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
    const lastModified = info.mtime.toUTCString();
    const since = req.headers['if-modified-since'];
    if (req.headers['if-none-match'] === etag || (!req.headers['if-none-match'] && since && new Date(since) >= new Date(lastModified))) {
      traffic.notModified++;
      res.writeHead(304, { etag, 'last-modified': lastModified });
      return res.end();
    }
    traffic.ok++;
    traffic.bytes += info.size;
    res.writeHead(200, {
      'content-type': file.endsWith('.html') ? 'text/html; charset=utf-8' : 'application/octet-stream',
      'content-length': info.size,
      etag,
      'last-modified': lastModified,
    });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    take(): Traffic {
      const t = traffic;
      traffic = { requests: 0, ok: 0, notModified: 0, bytes: 0 };
      return t;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function recrawlBench(env: BenchEnv, options: RecrawlOptions): Promise<PartResult> {
  ensureCorpora();
  const site = await serveCounting(PG_DOCS);
  const db = await createDatabase(env.serverUrl, 'recrawl');
  const kb = await startKbchatProcess({
    databaseUrl: db.url,
    redisUrl: env.redisUrl,
    env: { EMBEDDING_PROVIDER: 'local', CHAT_PROVIDER: 'extractive', CRAWL_CONCURRENCY: '8', CRAWL_PER_HOST_CONCURRENCY: '8' },
  });
  try {
    const clientId = await createClient(kb.baseUrl, 'Bench re-crawl');
    log(`recrawl: first crawl of the PostgreSQL docs (maxPages ${options.maxPages})`);
    const first = await crawlSite(kb.baseUrl, clientId, `${site.url}/index.html`, options.maxPages);
    const firstTraffic = site.take();
    log(`  ${first.job.status}: ${first.job.progress.pagesIndexed} pages, ${firstTraffic.bytes} bytes in ${round(first.seconds)} s`);
    if (!first.job.progress.pagesIndexed) throw new Error(`the first crawl indexed nothing: ${JSON.stringify(first.job)}`);
    const { sources } = await api<{ sources: { sourceId: string }[] }>(kb.baseUrl, 'GET', `/api/admin/clients/${clientId}/sources`);
    const sourceId = sources[0]?.sourceId as string;

    log('recrawl: schedule every 10 s, waiting for the first scheduled crawl');
    await api(kb.baseUrl, 'PATCH', `/api/admin/clients/${clientId}/sources/${sourceId}`, { schedule: '*/10 * * * * *' });
    const started = performance.now();
    let scheduled: JobView | undefined;
    let changes: Change | undefined;
    for (const deadline = Date.now() + 15 * 60_000; Date.now() < deadline; await sleep(500)) {
      const { crawls } = await api<{ crawls: Change[] }>(
        kb.baseUrl,
        'GET',
        `/api/admin/clients/${clientId}/sources/${sourceId}/changes?limit=5`,
      );
      const next = crawls.find((c) => c.jobId !== first.job.jobId);
      if (!next) continue;
      const job = await api<JobView>(kb.baseUrl, 'GET', `/api/admin/jobs/${next.jobId}`);
      if (job.status === 'completed' || job.status === 'failed') {
        scheduled = job;
        changes = next;
        break;
      }
    }
    // Taken at once: the next iteration (10 s on) must not add its requests to this one's.
    const again = site.take();
    const seconds = (performance.now() - started) / 1000;
    await api(kb.baseUrl, 'PATCH', `/api/admin/clients/${clientId}/sources/${sourceId}`, { schedule: 'off' });
    if (!scheduled) throw new Error('no scheduled crawl finished in 15 minutes');
    const p = scheduled.progress;
    const fetched = again.ok + again.notModified;
    const share304 = fetched > 0 ? again.notModified / fetched : 0;
    return {
      part: 'recrawl',
      title: '18. Unchanged scheduled re-crawl: PostgreSQL 15 docs served with ETag / Last-Modified',
      oursLabel: 'the first scheduled re-crawl (nothing changed on the site)',
      baselineLabel: 'the first crawl of the same pages',
      rows: [
        { metric: 'pages indexed', ours: p.pagesIndexed ?? 0, baseline: first.job.progress.pagesIndexed ?? 0 },
        { metric: 'requests to the site', ours: again.requests, baseline: firstTraffic.requests },
        {
          metric: 'page requests answered 304',
          ours: `${again.notModified} of ${fetched} (${round(share304 * 100)} %)`,
          baseline: `${firstTraffic.notModified} of ${firstTraffic.ok + firstTraffic.notModified}`,
          target: '≥ 90 %',
          pass: share304 >= 0.9,
        },
        {
          metric: 'bytes sent by the site',
          ours: again.bytes,
          baseline: firstTraffic.bytes,
          ratio: firstTraffic.bytes > 0 ? round(again.bytes / firstTraffic.bytes, 4) : undefined,
        },
        {
          metric: 'embedding tokens',
          ours: p.embeddingTokens ?? 0,
          baseline: first.job.progress.embeddingTokens ?? 0,
          target: '0',
          pass: (p.embeddingTokens ?? 0) === 0,
        },
        { metric: 'pages unchanged / documents created', ours: `${p.pagesUnchanged ?? 0} / ${p.documentsCreated ?? 0}`, baseline: '—' },
        {
          metric: 'pages added / changed / removed (GET …/changes)',
          ours: `${changes?.counts.added ?? 0} / ${changes?.counts.changed ?? 0} / ${changes?.counts.removed ?? 0}`,
          baseline: '—',
        },
        { metric: 'seconds (schedule set → re-crawl done)', ours: round(seconds), baseline: round(first.seconds) },
      ],
      notes: [
        'The ratio for bytes is re-crawl / first crawl. robots.txt and sitemap.xml requests (404 here) count as requests and bytes.',
        'The site has no sitemap, so every page is revalidated with a conditional GET; a sitemap with unchanged <lastmod> skips the request altogether.',
      ],
      details: { maxPages: options.maxPages, firstTraffic, again, firstJob: first.job, scheduledJob: scheduled, changes },
    };
  } finally {
    await kb.stop();
    await kb.cleanRedis();
    await db.drop();
    await site.close();
  }
}
