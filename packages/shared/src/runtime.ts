import path from 'node:path';
import type { Redis } from 'ioredis';
import { type Config, describeConfig, resolvedProviders } from './config.ts';
import { migrate } from './db/migrate.ts';
import { createPool, type Pool } from './db/pool.ts';
import { adoptQueue, derivedRedisPrefix, type QueueOwners, readInstallId, watchQueueOwners } from './install.ts';
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
  /** The database's id (kbchat_install): the owner stamped on every job this process enqueues. */
  installId: string;
  /** Other databases seen on this REDIS_PREFIX (docs/pipeline.md "One database per queue"). */
  queueOwners: QueueOwners;
  /** Fail-fast connection for request paths (rate limits, caches, readiness). */
  redis: Redis;
  queues: Queues;
  /** Closes queues, pool, Redis and any embedded servers, in that order. */
  close(): Promise<void>;
}

export class StartupError extends Error {}

export async function createRuntime(startConfig: Config, log: Logger): Promise<Runtime> {
  let config = startConfig;
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
      // Loaded only without a Postgres server: PGlite is a few MB of code a native deployment never runs.
      const { startEmbeddedPostgres } = await import('./db/embedded-postgres.ts');
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

    const installId = await readInstallId(pool);
    if (!config.DATABASE_URL && !config.REDIS_PREFIX_SET) {
      // An embedded install: queues of its own, whatever else runs on this machine's Redis.
      const derived = derivedRedisPrefix(config.REDIS_PREFIX, installId);
      const adopted = await adoptQueue(pool, config.REDIS_PREFIX, derived);
      if (adopted.leads + adopted.jobs > 0)
        log.info({ from: config.REDIS_PREFIX, to: derived, ...adopted }, "queue work moved to this install's prefix");
      config = { ...config, REDIS_PREFIX: derived };
    }
    log.info({ database: installId, redisPrefix: config.REDIS_PREFIX }, 'queue namespace');

    const redisUrl = await resolveRedis(config, log, cleanups);
    const redis = createRedis(redisUrl);
    redis.on('error', logRedisErrors(log, { connection: 'commands' }));
    cleanups.push(async () => redis.disconnect());
    // BullMQ checks the server version once when a queue is created; on a fail-fast connection that
    // is not connected yet the check fails and the queue stays broken, so producers wait for ready.
    await waitUntilReady(redis, 10_000);

    const queues: Queues = {
      crawl: new QueueProducer(crawlQueue, redis, config, log, installId),
      embed: new QueueProducer(embedQueue, redis, config, log, installId),
      webhook: new QueueProducer(webhookQueue, redis, config, log, installId),
    };
    cleanups.push(() => Promise.all(Object.values(queues).map((q) => q.close())));

    const queueOwners = watchQueueOwners(redis, { prefix: config.REDIS_PREFIX, installId, log });
    cleanups.push(async () => queueOwners.stop());
    await queueOwners.check().catch((err: Error) => log.warn({ err: { message: err.message } }, 'could not record this database in Redis'));

    return {
      config,
      log,
      pool,
      databaseUrl,
      redisUrl,
      installId,
      queueOwners,
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
