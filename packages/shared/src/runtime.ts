import path from 'node:path';
import type { Redis } from 'ioredis';
import { type Config, describeConfig, resolvedProviders } from './config.ts';
import { startEmbeddedPostgres } from './db/embedded-postgres.ts';
import { migrate } from './db/migrate.ts';
import { createPool, type Pool } from './db/pool.ts';
import type { Logger } from './logger.ts';
import { QueueProducer } from './queue/contract.ts';
import { crawlQueue, embedQueue, webhookQueue } from './queue/queues.ts';
import { createRedis, DEFAULT_REDIS_URL, hasRedisServerBinary, logRedisErrors, pingRedis, startPrivateRedis } from './redis.ts';

export interface Queues {
  crawl: QueueProducer<typeof crawlQueue>;
  embed: QueueProducer<typeof embedQueue>;
  webhook: QueueProducer<typeof webhookQueue>;
}

/** What every service of a process shares: config, logger, database pool, Redis and queue producers. */
export interface Runtime {
  config: Config;
  log: Logger;
  pool: Pool;
  databaseUrl: string;
  redisUrl: string;
  /** Fail-fast connection for request paths (rate limits, caches, readiness). */
  redis: Redis;
  queues: Queues;
  /** Closes queues, pool, Redis and any embedded servers, in that order. */
  close(): Promise<void>;
}

export class StartupError extends Error {}

export async function createRuntime(config: Config, log: Logger): Promise<Runtime> {
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const providers = resolvedProviders(config);
    log.debug({ config: describeConfig(config), providers }, 'starting');
    if (providers.chat === 'extractive' || providers.embedding === 'local') {
      log.info(
        { chat: providers.chat, embedding: providers.embedding },
        config.OPENAI_API_KEY
          ? 'offline providers selected by configuration'
          : 'no OPENAI_API_KEY: answering with the extractive provider and embedding locally (no network)',
      );
    }

    let databaseUrl = config.DATABASE_URL;
    if (!databaseUrl) {
      const dir = path.resolve(config.DATA_DIR, 'pglite');
      const embedded = await startEmbeddedPostgres({ dataDir: dir });
      cleanups.push(() => embedded.stop());
      databaseUrl = embedded.url;
      log.info({ dataDir: dir }, 'no DATABASE_URL: embedded Postgres (PGlite + pgvector) started');
    }
    await migrate(databaseUrl, log);
    const pool = await createPool({
      connectionString: databaseUrl,
      max: config.DATABASE_POOL_MAX,
      preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
      log,
    });
    cleanups.push(() => pool.end());

    const redisUrl = await resolveRedis(config, log, cleanups);
    const redis = createRedis(redisUrl);
    redis.on('error', logRedisErrors(log, { connection: 'commands' }));
    cleanups.push(async () => redis.disconnect());
    // BullMQ checks the server version once when a queue is created; on a fail-fast connection that
    // is not connected yet the check fails and the queue stays broken, so producers wait for ready.
    await waitUntilReady(redis, 10_000);

    const queues: Queues = {
      crawl: new QueueProducer(crawlQueue, redis, config.REDIS_PREFIX, log),
      embed: new QueueProducer(embedQueue, redis, config.REDIS_PREFIX, log),
      webhook: new QueueProducer(webhookQueue, redis, config.REDIS_PREFIX, log),
    };
    cleanups.push(() => Promise.all(Object.values(queues).map((q) => q.close())));

    return {
      config,
      log,
      pool,
      databaseUrl,
      redisUrl,
      redis,
      queues,
      close: () => runCleanups(cleanups, log),
    };
  } catch (err) {
    await runCleanups(cleanups, log);
    throw err;
  }
}

function waitUntilReady(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      redis.off('ready', onReady);
      reject(new StartupError(`Redis did not become ready within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    redis.once('ready', onReady);
  });
}

async function resolveRedis(config: Config, log: Logger, cleanups: (() => Promise<unknown>)[]): Promise<string> {
  const url = config.REDIS_URL ?? DEFAULT_REDIS_URL;
  if (await pingRedis(url, 1_500)) return url;
  if (config.REDIS_URL) {
    throw new StartupError(`Redis at REDIS_URL (${new URL(url).host}) does not answer. Start it, or unset REDIS_URL to use a private one.`);
  }
  if (!hasRedisServerBinary()) {
    throw new StartupError(
      'No Redis answers at redis://127.0.0.1:6379 and redis-server is not installed: install Redis (apt-get install redis-server, brew install redis) or set REDIS_URL.',
    );
  }
  const dir = path.resolve(config.DATA_DIR, 'redis');
  const priv = await startPrivateRedis(dir, log);
  cleanups.push(() => priv.stop());
  log.info({ dir }, 'no Redis at redis://127.0.0.1:6379: started a private redis-server');
  return priv.url;
}

/** Runs cleanups last-in first-out; one failing does not stop the rest. */
async function runCleanups(cleanups: (() => Promise<unknown>)[], log: Logger): Promise<void> {
  while (cleanups.length > 0) {
    const fn = cleanups.pop();
    try {
      await fn?.();
    } catch (err) {
      log.warn({ err: { message: (err as Error).message } }, 'error while closing');
    }
  }
}
