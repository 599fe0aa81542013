import type { Redis } from 'ioredis';
import type { Queryable } from './db/pool.ts';
import type { Logger } from './logger.ts';

/**
 * Which database a deployment's Redis keys belong to. Jobs carry ids only, so a job run by a worker
 * of another database finds nothing and is lost ("gone"). Two things keep databases apart:
 *  - an embedded install without REDIS_PREFIX takes a prefix of its own, derived from the database's
 *    random id (kbchat_install, made by the first migration run);
 *  - the queues' own prefix carries the database's id (queuePrefix in queue/contract.ts), so two
 *    databases on one REDIS_PREFIX still have queues of their own; every process records its
 *    database's id in Redis under its prefix and logs an error while another database's processes
 *    use the same prefix (their rate limits and periodic tasks' locks are still shared).
 */

export async function readInstallId(db: Queryable): Promise<string> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM kbchat_install');
  const id = rows[0]?.id;
  if (!id) throw new Error('kbchat_install has no row: the database was not migrated');
  return id;
}

/** A database's id as it appears in Redis key prefixes: its first 12 hex digits. */
export function installTag(installId: string): string {
  return installId.replaceAll('-', '').slice(0, 12);
}

export function derivedRedisPrefix(base: string, installId: string): string {
  return `${base}-${installTag(installId)}`;
}

/**
 * Undelivered leads and unfinished jobs that a database recorded under the prefix it used before it
 * derived its own (an embedded install upgraded to this version) move to the new prefix, where this
 * install's outbox and watchdogs find them. Only for a database no other deployment shares.
 */
export async function adoptQueue(db: Queryable, from: string, to: string): Promise<{ leads: number; jobs: number }> {
  const leads = await db.query(`UPDATE leads SET webhook_queue = $2 WHERE webhook_queue = $1 AND webhook_status IN ('pending', 'queued')`, [
    from,
    to,
  ]);
  const jobs = await db.query(
    `UPDATE jobs SET options = jsonb_set(options, '{queue}', to_jsonb($2::text))
      WHERE status IN ('queued', 'active') AND options ->> 'queue' = $1`,
    [from, to],
  );
  return { leads: leads.rowCount ?? 0, jobs: jobs.rowCount ?? 0 };
}

export interface QueueOwners {
  /** Ids of other databases whose processes were seen on this prefix recently. */
  others(): string[];
  /** Records this process and looks for others now (also done every intervalMs). */
  check(): Promise<string[]>;
  stop(): void;
}

/**
 * Every intervalMs: this database's id is stamped with the time in the hash `<prefix>:installs`, and
 * any other id stamped within three intervals is another database sharing these queues — logged as
 * an error once per id. A Redis that does not answer skips a round.
 */
export function watchQueueOwners(
  redis: Redis,
  input: { prefix: string; installId: string; log: Logger; intervalMs?: number },
): QueueOwners {
  const intervalMs = input.intervalMs ?? 30_000;
  const key = `${input.prefix}:installs`;
  const reported = new Set<string>();
  let others: string[] = [];
  const check = async (): Promise<string[]> => {
    const now = Date.now();
    const [, seen] = (await redis.multi().hset(key, input.installId, String(now)).hgetall(key).exec()) ?? [];
    const entries = Object.entries((seen?.[1] ?? {}) as Record<string, string>);
    others = entries.filter(([id, at]) => id !== input.installId && now - Number(at) < 3 * intervalMs).map(([id]) => id);
    const forgotten = entries.filter(([, at]) => now - Number(at) > 24 * 3600_000).map(([id]) => id);
    if (forgotten.length > 0) await redis.hdel(key, ...forgotten);
    for (const other of others) {
      if (reported.has(other)) continue;
      reported.add(other);
      input.log.error(
        { redisPrefix: input.prefix, database: input.installId, otherDatabase: other },
        'another database uses this Redis prefix (same Redis, same REDIS_PREFIX): their queues are apart, but rate limits and periodic tasks are shared. Give each deployment its own REDIS_PREFIX.',
      );
    }
    return others;
  };
  const timer = setInterval(() => {
    check().catch(() => {});
  }, intervalMs);
  timer.unref();
  return {
    others: () => others,
    check,
    stop: () => clearInterval(timer),
  };
}
