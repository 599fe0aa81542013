import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startCrawler } from '@kbchat/crawler/main';
import { startEmbedder } from '@kbchat/embedder/main';
import { startGateway } from '@kbchat/gateway/main';
import { type Config, loadConfig, type Service } from '@kbchat/shared/config';
import { type RunningProcess, startProcess } from '@kbchat/shared/lifecycle';
import { inject } from 'vitest';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Environment for a kbchat instance under test: the run's Postgres and Redis, a Redis prefix of
 * its own (queues of concurrent test files never meet), quiet logs, loopback crawling allowed.
 */
export function testEnv(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_URL: inject('databaseUrl'),
    REDIS_URL: inject('redisUrl'),
    REDIS_PREFIX: `kbt-${inject('runId')}-${randomUUID().slice(0, 8)}`,
    HOST: '127.0.0.1',
    PORT: '0',
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    SHUTDOWN_TIMEOUT_MS: '10000',
    // Every test's requests come from one loopback address, standing for many visitors: the
    // per-visitor chat share is lifted here and tested where it is set (test/chat/visitor-rate-limit.test.ts).
    CHAT_VISITOR_RATE_LIMIT_PER_MINUTE: '1000000',
    ...overrides,
  };
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

export interface Kbchat {
  config: Config;
  process: RunningProcess;
  /** http://127.0.0.1:<port> when the gateway runs. */
  baseUrl: string;
  stop(): Promise<void>;
}

/** Starts the chosen services in this process, on the real code path (startProcess). */
export async function startKbchat(options: { env?: Record<string, string | undefined>; services?: Service[] } = {}): Promise<Kbchat> {
  const env = testEnv({ RUN: (options.services ?? ['gateway', 'crawler', 'embedder']).join(','), ...options.env });
  const config = loadConfig(env);
  const running = await startProcess(config, { gateway: startGateway, crawler: startCrawler, embedder: startEmbedder });
  const gateway = running.services.find((s) => s.name === 'gateway') as { url?: string } | undefined;
  return { config, process: running, baseUrl: gateway?.url ?? '', stop: () => running.shutdown() };
}

export interface JsonResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** fetch + JSON, for talking to the gateway like a client does. */
export async function api<T = Record<string, unknown>>(
  baseUrl: string,
  method: string,
  pathname: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<JsonResponse<T>> {
  const res = await fetch(new URL(pathname, baseUrl), {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // leave as text: tests assert on JSON and will fail with the body shown
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/** A fresh tenant per test: isolation by client, not by truncating tables. */
export async function createClient(baseUrl: string, input: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const res = await api<{ clientId: string; webhookSecret: string; name: string }>(
    baseUrl,
    'POST',
    '/api/admin/clients',
    { name: `test-${randomUUID().slice(0, 8)}`, ...input },
    headers,
  );
  if (res.status !== 201) throw new Error(`create client failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function tempDir(prefix = 'kbchat-test-'): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

export interface ChildService {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): void;
}

/** An empty working directory: a service under test never reads the developer's own .env from the checkout. */
let emptyDir: string | undefined;

/** Runs `node <script>` (relative to the repo root) as a separate process, collecting its output. cwd: an empty directory unless given. */
export function spawnNode(script: string, env: Record<string, string>, args: string[] = [], cwd?: string): ChildService {
  emptyDir ??= mkdtempSync(path.join(os.tmpdir(), 'kbchat-cwd-'));
  const child = spawn(process.execPath, [path.resolve(REPO_ROOT, script), ...args], {
    cwd: cwd ?? emptyDir,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited, kill: (signal = 'SIGTERM') => child.kill(signal) };
}

/** Polls fn until it returns a truthy value or the timeout passes. */
export async function waitFor<T>(
  fn: () => Promise<T> | T,
  options: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await fn();
      if (value) return value as NonNullable<T>;
    } catch (err) {
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 100));
  }
  throw new Error(`timed out waiting for ${options.what ?? 'condition'}${lastError ? `: ${(lastError as Error).message}` : ''}`);
}

/** GET url until it answers with the status (used after spawning a service). */
export async function waitForHttp(url: string, status = 200, timeoutMs = 60_000): Promise<void> {
  await waitFor(
    async () => {
      const res = await fetch(url).catch(() => undefined);
      return res?.status === status;
    },
    { timeoutMs, what: `${url} to answer ${status}` },
  );
}
