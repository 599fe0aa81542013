import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/**
 * Runs `tick` every intervalMs in this process, but in one process at a time across the
 * deployment (a Redis lock with a TTL, so a crashed holder's lock expires). Failures are logged
 * and retried at the next tick: a watchdog must survive the outages it exists to heal.
 */
export function startPeriodic(options: {
  name: string;
  redis: Redis;
  redisPrefix: string;
  intervalMs: number;
  log: Logger;
  tick: () => Promise<void>;
}): { stop(): Promise<void> } {
  const key = `${options.redisPrefix}:periodic:${options.name}`;
  let running: Promise<void> | undefined;
  let stopped = false;
  const run = async () => {
    const token = randomUUID();
    try {
      const got = await options.redis.set(key, token, 'PX', Math.max(options.intervalMs * 4, 10_000), 'NX');
      if (got !== 'OK') return;
      try {
        await options.tick();
      } finally {
        // The lock expires by itself (PX above): a failed release only delays the next run.
        await options.redis
          .eval(RELEASE, 1, key, token)
          .catch((err: Error) =>
            options.log.debug({ periodic: options.name, err: { message: err.message } }, 'periodic lock not released'),
          );
      }
    } catch (err) {
      options.log.warn({ periodic: options.name, err: { message: (err as Error).message } }, 'periodic task failed; retrying next tick');
    }
  };
  const timer = setInterval(() => {
    if (stopped || running) return;
    running = run().finally(() => {
      running = undefined;
    });
  }, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
