// Helpers shared by the pipeline tests: fast retry/watchdog settings, job polling, SQL checks.
import pg from 'pg';
import { inject } from 'vitest';
import { api, type ChildService, spawnNode, testEnv, waitFor } from '../../support/kbchat.ts';

/** Short retry and recovery timings, so fault paths finish in seconds (production defaults are minutes). */
export const PIPELINE_ENV: Record<string, string> = {
  PIPELINE_WATCHDOG_MS: '1000',
  WORKER_LOCK_MS: '4000',
  CRAWL_PAGE_ATTEMPTS: '2',
  CRAWL_RETRY_DELAY_MS: '50',
  CRAWL_FETCH_TIMEOUT_MS: '5000',
  EMBED_JOB_ATTEMPTS: '2',
  EMBED_RETRY_DELAY_MS: '50',
  CRAWL_SYNC_WAIT_MS: '60000',
  CRAWL_CONCURRENCY: '4',
};

export function testPool(): pg.Pool {
  return new pg.Pool({ connectionString: inject('databaseUrl'), max: 2 });
}

export interface JobBody {
  jobId: string;
  kind: string;
  status: 'queued' | 'active' | 'completed' | 'failed';
  phase: string;
  sourceId: string | null;
  progress: {
    pagesDiscovered: number;
    pagesFetched: number;
    pagesIndexed: number;
    pagesUnchanged: number;
    pagesSkipped: number;
    skipReasons: Record<string, number>;
    pagesFailed: number;
    pagesRemoved: number;
    documentsCreated: number;
    documentsSkipped: number;
    embeddingsDone: number;
    embeddingsFailed: number;
    embeddingTokens: number;
  };
  options: Record<string, unknown>;
  result: Record<string, unknown> | null;
  message: string | null;
  error: string | null;
  notes: string[];
}

export async function getJob(baseUrl: string, jobId: string): Promise<JobBody> {
  const res = await api<JobBody>(baseUrl, 'GET', `/api/admin/jobs/${jobId}`);
  if (res.status !== 200) throw new Error(`GET job ${jobId}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Polls the job until it has finished; returns every state seen on the way. */
export async function pollJob(baseUrl: string, jobId: string, timeoutMs = 90_000): Promise<{ final: JobBody; seen: JobBody[] }> {
  const seen: JobBody[] = [];
  const final = await waitFor(
    async () => {
      const job = await getJob(baseUrl, jobId);
      seen.push(job);
      return job.status === 'completed' || job.status === 'failed' ? job : undefined;
    },
    { timeoutMs, intervalMs: 100, what: `job ${jobId} to finish` },
  );
  return { final, seen };
}

export async function count(pool: pg.Pool, sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(sql, params);
  return Number(rows[0]?.n ?? 0);
}

/**
 * Crawler workers as separate processes on a kbchat instance's queues (crash and shutdown tests).
 * start() resolves once the workers run; killAll() SIGKILLs whatever is still alive.
 */
export function crawlerProcesses(prefix: () => string, env: Record<string, string>) {
  const children: ChildService[] = [];
  return {
    children,
    async start(): Promise<ChildService> {
      const child = spawnNode(
        'services/crawler/src/main.ts',
        testEnv({ ...env, RUN: 'crawler', LOG_LEVEL: 'info', REDIS_PREFIX: prefix() }),
      );
      children.push(child);
      await waitFor(() => child.output().includes('crawler workers started'), { timeoutMs: 60_000, what: 'crawler process' });
      return child;
    },
    async killAll(): Promise<void> {
      for (const c of children) {
        c.kill('SIGKILL');
        await c.exited;
      }
    },
  };
}
