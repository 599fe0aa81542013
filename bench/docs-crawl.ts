// Measures a crawl of the PostgreSQL documentation served on loopback, with each service in its own
// process (as deployed): wall time, pages/s, documents, peak RSS per service; then with the
// OpenAI-compatible fake: embedding requests and tokens, and the same for an immediate re-crawl.
// Reports, never asserts (not part of `pnpm test`).
//
//   apt-get download postgresql-doc-15 && dpkg -x postgresql-doc-15_*.deb /tmp/corpora
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379 \
//     node bench/docs-crawl.ts [/tmp/corpora/usr/share/doc/postgresql-doc-15/html]
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePort } from '@kbchat/shared/redis';
import pg from 'pg';
import { startFakeOpenAI } from '../test/support/fake-openai.ts';
import { serveDirectory } from '../test/support/fixture-site.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIR = process.argv[2] ?? '/tmp/corpora/usr/share/doc/postgresql-doc-15/html';
const SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const MAX_PAGES = Number(process.env.MAX_PAGES ?? 1200);

interface Services {
  baseUrl: string;
  children: Record<string, ChildProcess>;
  stop(): Promise<void>;
}

async function startServices(databaseUrl: string, env: Record<string, string>): Promise<Services> {
  const port = await freePort();
  const common = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATABASE_URL: databaseUrl,
    REDIS_URL,
    REDIS_PREFIX: `kbmeasure-${Date.now().toString(36)}`,
    LOG_LEVEL: 'warn',
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    CRAWL_SYNC_WAIT_MS: '0',
    MAX_PAGES_LIMIT: String(Math.max(1000, MAX_PAGES)),
    ...env,
  };
  const children: Record<string, ChildProcess> = {};
  for (const service of ['gateway', 'crawler', 'embedder']) {
    const child = spawn(process.execPath, [`services/${service}/src/main.ts`], {
      cwd: ROOT,
      env: { ...common, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    children[service] = child;
  }
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const ok = await fetch(`${baseUrl}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (i > 600) throw new Error('gateway did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 1000)); // workers connect
  return {
    baseUrl,
    children,
    async stop() {
      await Promise.all(
        Object.values(children).map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.exitCode !== null) return resolve();
              c.once('exit', () => resolve());
              c.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}

function peakRssMb(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

async function json<T>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

interface Job {
  status: string;
  progress: {
    pagesIndexed: number;
    pagesUnchanged: number;
    pagesSkipped: number;
    pagesFailed: number;
    documentsCreated: number;
    embeddingTokens: number;
    skipReasons: Record<string, number>;
  };
  result: Record<string, unknown> | null;
  message: string;
}

async function crawl(baseUrl: string, clientId: string, url: string): Promise<{ job: Job; seconds: number }> {
  const started = performance.now();
  const res = await fetch(`${baseUrl}/api/admin/crawl`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ clientId, url, maxPages: MAX_PAGES, wait: false }),
  });
  if (res.status !== 202) throw new Error(`crawl: ${res.status} ${await res.text()}`);
  const { jobId } = await json<{ jobId: string }>(res);
  for (;;) {
    const job = await json<Job>(await fetch(`${baseUrl}/api/admin/jobs/${jobId}`));
    if (job.status === 'completed' || job.status === 'failed') return { job, seconds: (performance.now() - started) / 1000 };
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function run(label: string, env: Record<string, string>, site: string, recrawl: boolean, after?: () => Record<string, unknown>) {
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  const name = `kbchat_measure_${Date.now().toString(36)}`;
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  const services = await startServices(url.toString(), env);
  try {
    const client = await json<{ clientId: string }>(
      await fetch(`${services.baseUrl}/api/admin/clients`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `measure ${label}` }),
      }),
    );
    const first = await crawl(services.baseUrl, client.clientId, `${site}/index.html`);
    const p = first.job.progress;
    const out: Record<string, unknown> = {
      run: label,
      status: first.job.status,
      wallSeconds: Number(first.seconds.toFixed(1)),
      pagesIndexed: p.pagesIndexed,
      pagesPerSecond: Number((p.pagesIndexed / first.seconds).toFixed(1)),
      pagesSkipped: p.pagesSkipped,
      skipReasons: p.skipReasons,
      pagesFailed: p.pagesFailed,
      documents: p.documentsCreated,
      embeddingTokens: p.embeddingTokens,
      peakRssMb: Object.fromEntries(Object.entries(services.children).map(([k, c]) => [k, peakRssMb(c.pid)])),
      ...after?.(),
    };
    if (recrawl) {
      const second = await crawl(services.baseUrl, client.clientId, `${site}/index.html`);
      out.recrawl = {
        wallSeconds: Number(second.seconds.toFixed(1)),
        pagesIndexed: second.job.progress.pagesIndexed,
        pagesUnchanged: second.job.progress.pagesUnchanged,
        documentsCreated: second.job.progress.documentsCreated,
        embeddingTokens: second.job.progress.embeddingTokens,
        ...after?.(),
      };
    }
    console.log(JSON.stringify(out, null, 2));
  } finally {
    await services.stop();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}

const server = await serveDirectory(DIR);
// Never leave the services behind: a failed run still stops them (see run's finally).
process.on('unhandledRejection', (err) => {
  console.error(err);
  process.exitCode = 1;
});
try {
  if (process.env.MEASURE_RUNS !== 'openai') await run('local embedder', { EMBEDDING_PROVIDER: 'local' }, server.url, false);
  const fake = await startFakeOpenAI();
  try {
    let seen = 0;
    let seenTokens = 0;
    const delta = () => {
      const ok = fake.requests.embeddings.filter((r) => r.status === 200);
      const d = { embeddingRequests: ok.length - seen, fakeBilledTokens: fake.embeddedTokens() - seenTokens };
      seen = ok.length;
      seenTokens = fake.embeddedTokens();
      return d;
    };
    await run('openai (fake server)', { EMBEDDING_PROVIDER: 'openai', ...fake.env }, server.url, true, delta);
  } finally {
    await fake.close();
  }
} finally {
  await server.close();
}
