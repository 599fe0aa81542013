// What every benchmark part needs: the machine, the backing services, a database of its own,
// processes it starts and measures, and the evaluation corpora.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { relatedWordsFresh } from '@kbchat/shared/db/lsa';
import { deleteKeys, freePort, Redis } from '@kbchat/shared/redis';
import pg from 'pg';
import { createDatabase as createServerDatabase } from '../../test/support/infra.ts';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export const CORPORA = '/tmp/corpora';
export const PG_DOCS = `${CORPORA}/usr/share/doc/postgresql-doc-15/html`;
export const NODE_DOCS = `${CORPORA}/usr/share/doc/nodejs/api`;
export const NODE_QUESTIONS = '/work/shared/eval/nodejs-api-questions.json';

export interface BenchEnv {
  /** Native Postgres server (a database per part is created on it). */
  serverUrl: string;
  redisUrl: string;
}

export function benchEnv(): BenchEnv {
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  return { serverUrl, redisUrl };
}

export function machine() {
  const cpus = os.cpus();
  const [l1, l5, l15] = os.loadavg().map((l) => +l.toFixed(2));
  return {
    cpus: `${cpus.length} × ${cpus[0]?.model ?? 'cpu'}`,
    memoryGb: +(os.totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    loadAverage: [l1, l5, l15] as number[],
  };
}

export function log(msg: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A database for one part, created on the native server and dropped by the returned function. */
export function createDatabase(serverUrl: string, label: string): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  return createServerDatabase(serverUrl, `kbchat_bench_${label}_${Date.now().toString(36)}`);
}

/** Peak resident set (VmHWM) of a live process, MB; undefined once it has exited. */
export function peakRssMb(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds used by the Postgres backends serving one database, sampled while they live (a
 * backend's time is lost once it exits, so sample often and keep each pid's last value).
 */
export function postgresCpuSampler(serverUrl: string, database: string, intervalMs = 250) {
  const last = new Map<number, number>();
  const base = new Map<number, number>();
  const lastWait = new Map<number, number>();
  const baseWait = new Map<number, number>();
  const client = new pg.Client({ connectionString: serverUrl });
  let stopped = false;
  const ready = client.connect();
  const loop = (async () => {
    await ready;
    while (!stopped) {
      const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database]);
      for (const { pid } of rows) {
        const s = cpuSeconds(pid);
        if (s === undefined) continue;
        if (!base.has(pid)) base.set(pid, s);
        last.set(pid, s);
        const w = runQueueSeconds(pid);
        if (w === undefined) continue;
        if (!baseWait.has(pid)) baseWait.set(pid, w);
        lastWait.set(pid, w);
      }
      await sleep(intervalMs);
    }
  })();
  return {
    /** Seconds since sampling began, over every backend seen. */
    async stop(): Promise<number> {
      stopped = true;
      await loop.catch(() => {});
      await client.end().catch(() => {});
      let total = 0;
      for (const [pid, s] of last) total += s - (base.get(pid) ?? s);
      return total;
    },
    /** Seconds the same backends spent runnable but waiting for a CPU (after stop()). */
    waited(): number {
      let total = 0;
      for (const [pid, w] of lastWait) total += w - (baseWait.get(pid) ?? w);
      return total;
    },
  };
}

/**
 * Seconds a live process's threads have spent runnable but waiting for a CPU (/proc schedstat):
 * on a shared machine, the part of a latency that is not the process's own work or I/O.
 */
export function runQueueSeconds(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[1]);
    }
    return ns / 1e9;
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) a live process has used, from /proc. */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return ticks / 100;
  } catch {
    return undefined;
  }
}

export interface Child {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * `node <script>` from the repo root, with only the given environment (plus PATH and HOME, and
 * BENCH_NODE_OPTIONS as NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=…` profiles every process a part starts).
 */
export function spawnNode(script: string, env: Record<string, string>, args: string[] = [], cwd = REPO_ROOT): Child {
  const child = spawn(process.execPath, [path.resolve(REPO_ROOT, script), ...args], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d: Buffer) => {
    out += d;
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export async function waitForHttp(url: string, timeoutMs = 90_000, child?: Child): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.child.exitCode !== null) throw new Error(`process exited before ${url} answered:\n${child.output().slice(-3000)}`);
    const res = await fetch(url).catch(() => undefined);
    if (res?.ok) return;
    await sleep(200);
  }
  throw new Error(`timed out waiting for ${url}${child ? `:\n${child.output().slice(-3000)}` : ''}`);
}

export interface KbchatProcess extends Child {
  baseUrl: string;
  env: Record<string, string>;
  /** Deletes the Redis keys of this instance (its prefix). */
  cleanRedis(): Promise<void>;
}

/**
 * A kbchat process (gateway, crawler and embedder unless RUN says otherwise) as in production:
 * its own Node process, production logging level, loopback crawling allowed for the corpora.
 */
export async function startKbchatProcess(options: {
  databaseUrl: string | undefined;
  redisUrl: string;
  env?: Record<string, string>;
  dataDir?: string;
}): Promise<KbchatProcess> {
  const port = await freePort();
  const prefix = `kbbench-${randomUUID().slice(0, 8)}`;
  const env: Record<string, string> = {
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
    REDIS_URL: options.redisUrl,
    REDIS_PREFIX: prefix,
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    DATA_DIR: options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'kbbench-data-'))),
    MAX_PAGES_LIMIT: '100000',
    CRAWL_SYNC_WAIT_MS: '0',
    ...options.env,
  };
  const child = spawnNode('bin/kbchat.ts', env);
  const baseUrl = `http://127.0.0.1:${port}`;
  const proc: KbchatProcess = {
    ...child,
    baseUrl,
    env,
    async cleanRedis() {
      const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 1 });
      try {
        await deleteKeys(redis, `*${prefix}*`);
      } finally {
        redis.disconnect();
      }
    },
  };
  try {
    await waitForHttp(`${baseUrl}/healthz`, 120_000, child);
  } catch (err) {
    await child.stop();
    throw err;
  }
  return proc;
}

export async function api<T = Record<string, unknown>>(baseUrl: string, method: string, pathname: string, body?: unknown): Promise<T> {
  const res = await fetch(new URL(pathname, baseUrl), {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${pathname}: ${res.status} ${text.slice(0, 500)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

export interface JobView {
  jobId: string;
  status: 'queued' | 'active' | 'completed' | 'failed';
  phase: string;
  progress: Record<string, number> & { skipReasons?: Record<string, number> };
  error: string | null;
  notes: string[];
}

/** Starts a crawl (202) and polls it to its end. */
export async function crawlSite(
  baseUrl: string,
  clientId: string,
  url: string,
  maxPages: number,
  timeoutMs = 15 * 60_000,
): Promise<{ job: JobView; seconds: number; phases: Record<string, number> }> {
  const started = performance.now();
  const phases: Record<string, number> = {};
  const accepted = await api<{ jobId: string }>(baseUrl, 'POST', '/api/admin/crawl', {
    clientId,
    url,
    maxPages,
    wait: false,
    render: 'never',
  });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await api<JobView>(baseUrl, 'GET', `/api/admin/jobs/${accepted.jobId}`);
    phases[job.phase] ??= round((performance.now() - started) / 1000, 2);
    if (job.status === 'completed' || job.status === 'failed') return { job, seconds: (performance.now() - started) / 1000, phases };
    if (Date.now() > deadline) throw new Error(`crawl ${accepted.jobId} did not finish in ${timeoutMs} ms: ${JSON.stringify(job)}`);
    await sleep(100);
  }
}

/**
 * Waits until the client's related words are learnt: a crawl completes before them (docs/retrieval.md
 * "Related words"), and answers measured at once would be measured without them.
 */
export async function waitForRelatedWords(databaseUrl: string, clientId: string, timeoutMs = 10 * 60_000): Promise<void> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await relatedWordsFresh(pool, clientId)) return;
      if (Date.now() > deadline) throw new Error(`the related words of ${clientId} were not learnt in ${timeoutMs} ms`);
      await sleep(50);
    }
  } finally {
    await pool.end();
  }
}

export async function createClient(baseUrl: string, name: string): Promise<string> {
  return (await api<{ clientId: string }>(baseUrl, 'POST', '/api/admin/clients', { name })).clientId;
}

/**
 * Debian documentation packages (../shared/eval, bench/lib/corpora.ts), unpacked (never installed:
 * nodejs-doc would replace the machine's Node) under /tmp/corpora when not there yet.
 */
export function ensureCorpora(
  corpora: { dir: string; pkg: string }[] = [
    { dir: PG_DOCS, pkg: 'postgresql-doc-15' },
    { dir: NODE_DOCS, pkg: 'nodejs-doc' },
  ],
): void {
  const wanted = corpora.filter((c) => !existsSync(path.join(c.dir, 'index.html')));
  if (wanted.length === 0) return;
  const tmp = execFileSync('mktemp', ['-d']).toString().trim();
  for (const c of wanted) {
    log(`downloading ${c.pkg} (apt-get download, unpacked with dpkg -x into ${CORPORA})`);
    execFileSync('apt-get', ['download', c.pkg], { cwd: tmp, stdio: 'inherit' });
    const deb = execFileSync('sh', ['-c', `ls ${tmp}/${c.pkg}_*.deb`])
      .toString()
      .trim();
    execFileSync('dpkg', ['-x', deb, CORPORA], { stdio: 'inherit' });
  }
}

export function round(x: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)] as number;
}
