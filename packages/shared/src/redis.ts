import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { Redis, type RedisOptions } from 'ioredis';
import { isUnavailableError } from './errors.ts';
import type { Logger } from './logger.ts';

export { Redis };
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * A connection for commands issued on a request path: fails fast while Redis is away instead of
 * queueing commands offline (the caller decides what to do), and reconnects by itself.
 */
export function createRedis(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    connectTimeout: 5_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
    lazyConnect: false,
    ...options,
  });
}

/** A connection for BullMQ workers: blocking commands, never gives up on a request. */
export function createWorkerRedis(url: string): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
}

/**
 * The 'error' listener of a Redis connection or of a BullMQ queue or worker built on one (without a
 * listener ioredis prints each error to stderr). A lost connection is logged at debug: while Redis
 * is away it repeats on every reconnect attempt, and the outage already shows in /readyz and in the
 * requests that fail with 503. Anything else is logged at warn. `context` says which connection.
 */
export function logRedisErrors(log: Logger, context: Record<string, unknown>): (err: Error) => void {
  return (err) => {
    if (isUnavailableError(err)) log.debug({ ...context, err: { message: err.message } }, 'redis connection error');
    else log.warn({ ...context, err: { message: err.message } }, 'redis error');
  };
}

/** True when a Redis server answers PING at url within the timeout. */
export async function pingRedis(url: string, timeoutMs = 1_000): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // Not logged: this is a probe, and a refused connection is its expected "no" (returned as false below).
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

export interface PrivateRedis {
  url: string;
  stop(): Promise<void>;
}

export function hasRedisServerBinary(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * Starts a redis-server child process on a free loopback port, persisting to `dir` with an
 * append-only file, so queued jobs survive a restart of the embedded service.
 */
export async function startPrivateRedis(dir: string, log?: Logger, port?: number): Promise<PrivateRedis & { port: number }> {
  await mkdir(dir, { recursive: true });
  port ??= await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      path.resolve(dir),
      '--appendonly',
      'yes',
      '--save',
      '',
      '--protected-mode',
      'yes',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let exited = false;
  child.on('exit', (code, signal) => {
    exited = true;
    log?.warn({ code, signal }, 'private redis-server exited');
  });
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  while (!(await pingRedis(url, 500))) {
    if (exited || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start on port ${port}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port,
    async stop() {
      if (exited) return;
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([done, new Promise((r) => setTimeout(r, 5_000))]);
      if (!exited) child.kill('SIGKILL');
    },
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Deletes every key matching pattern (SCAN, never KEYS). */
export async function deleteKeys(redis: Redis, pattern: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) deleted += await redis.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}
