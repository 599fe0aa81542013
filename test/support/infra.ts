import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '@kbchat/shared/db/embedded-postgres';
import { migrate } from '@kbchat/shared/db/migrate';
import { deleteKeys, pingRedis, Redis, startPrivateRedis } from '@kbchat/shared/redis';
import pg from 'pg';

export type InfraMode = 'native' | 'docker' | 'embedded';

export interface TestInfra {
  mode: InfraMode;
  databaseUrl: string;
  redisUrl: string;
  runId: string;
  stop(): Promise<void>;
}

/**
 * Real Postgres + pgvector and real Redis for one test run:
 *  - DATABASE_URL / REDIS_URL when set (CI): a fresh database per run on that server, dropped after;
 *  - else testcontainers when a Docker engine answers;
 *  - else the embedded defaults (PGlite over the wire protocol, the local or a private Redis).
 * Redis keys of the run share a prefix and are deleted at the end.
 */
export async function startTestInfra(env: Record<string, string | undefined> = process.env): Promise<TestInfra> {
  const runId = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const fn of stops.reverse()) await fn().catch(() => {});
  };
  try {
    let mode: InfraMode;
    let databaseUrl: string;
    let redisUrl: string | undefined = env.REDIS_URL;

    if (env.DATABASE_URL) {
      mode = 'native';
      databaseUrl = await createRunDatabase(env.DATABASE_URL, runId, stops);
    } else if (dockerAvailable(env)) {
      mode = 'docker';
      const started = await startContainers(stops);
      databaseUrl = started.databaseUrl;
      redisUrl ??= started.redisUrl;
    } else {
      mode = 'embedded';
      const embedded = await startEmbeddedPostgres();
      stops.push(() => embedded.stop());
      databaseUrl = embedded.url;
    }
    await migrate(databaseUrl);

    if (!redisUrl) {
      if (await pingRedis('redis://127.0.0.1:6379')) redisUrl = 'redis://127.0.0.1:6379';
      else {
        const dir = await mkdtemp(path.join(os.tmpdir(), 'kbchat-redis-'));
        const priv = await startPrivateRedis(dir);
        stops.push(() => rm(dir, { recursive: true, force: true }));
        stops.push(() => priv.stop());
        redisUrl = priv.url;
      }
    }
    const finalRedisUrl = redisUrl;
    stops.push(async () => {
      const redis = new Redis(finalRedisUrl, { maxRetriesPerRequest: 1 });
      try {
        await deleteKeys(redis, `*kbt-${runId}*`);
      } finally {
        redis.disconnect();
      }
    });
    return { mode, databaseUrl, redisUrl: finalRedisUrl, runId, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** A database of its own for this run, so concurrent runs and reruns never see each other's rows. */
async function createRunDatabase(serverUrl: string, runId: string, stops: (() => Promise<unknown>)[]): Promise<string> {
  await dropStaleRunDatabases(serverUrl);
  const db = await createDatabase(serverUrl, `kbchat_test_${runId}`);
  stops.push(() => db.drop());
  return db.url;
}

/** Leftovers of runs that were killed before their teardown (older than six hours). */
async function dropStaleRunDatabases(serverUrl: string): Promise<void> {
  await withAdminClient(serverUrl, async (admin) => {
    const { rows } = await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'kbchat\\_test\\_%'");
    for (const { datname } of rows) {
      const ts = Number.parseInt(datname.slice('kbchat_test_'.length, -4), 36);
      if (Number.isFinite(ts) && Date.now() - ts > 6 * 3600_000)
        await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`).catch(() => {});
    }
  });
}

async function withAdminClient<T>(serverUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** An empty database named `name` on the server of serverUrl; drop() removes it (even with connections open). */
export async function createDatabase(serverUrl: string, name: string): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  await withAdminClient(serverUrl, (admin) => admin.query(`CREATE DATABASE "${name}"`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () =>
      withAdminClient(serverUrl, async (admin) => {
        // Pools that were just ended may still be closing their sockets: a forced drop would kill
        // them mid-goodbye and their clients would throw. Give them a moment, then force.
        for (let i = 0; i < 50; i++) {
          const { rows } = await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
          if ((rows[0]?.n ?? 0) === 0) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      }),
  };
}

function dockerAvailable(env: Record<string, string | undefined>): boolean {
  if (env.KBCHAT_TEST_NO_DOCKER === 'true') return false;
  return Boolean(env.DOCKER_HOST) || existsSync('/var/run/docker.sock');
}

async function startContainers(stops: (() => Promise<unknown>)[]): Promise<{ databaseUrl: string; redisUrl: string }> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const postgres = await new GenericContainer('pgvector/pgvector:pg17')
    .withEnvironment({ POSTGRES_PASSWORD: 'kbchat', POSTGRES_DB: 'kbchat' })
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .start();
  stops.push(() => postgres.stop());
  const redis = await new GenericContainer('redis:7-alpine').withExposedPorts(6379).start();
  stops.push(() => redis.stop());
  return {
    databaseUrl: `postgres://postgres:kbchat@${postgres.getHost()}:${postgres.getMappedPort(5432)}/kbchat`,
    redisUrl: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`,
  };
}
