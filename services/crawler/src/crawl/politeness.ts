import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * Per-host politeness shared by every crawler process: at most `limit` requests in flight to one
 * host, and with a robots Crawl-delay, request starts spaced by that delay. Both live in Redis
 * (a sorted set of leases scored by expiry, and a next-allowed-start time), checked and taken in
 * one script so two processes can never both take the last slot. Time is Redis's own clock, so
 * skew between machines does not matter. A lease expires by itself: a killed worker's slot frees.
 */
const ACQUIRE = `
local slots, nextKey = KEYS[1], KEYS[2]
local limit, leaseMs, token, delayMs = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', slots, '-inf', now)
if redis.call('ZCARD', slots) >= limit then
  return {0, 100}
end
if delayMs > 0 then
  local nextAt = tonumber(redis.call('GET', nextKey) or '0')
  if nextAt > now then return {0, nextAt - now} end
  redis.call('SET', nextKey, now + delayMs, 'PX', delayMs + 1000)
end
redis.call('ZADD', slots, now + leaseMs, token)
redis.call('PEXPIRE', slots, leaseMs + 1000)
return {1, 0}
`;

export interface HostSlot {
  release(): Promise<void>;
}

export type AcquireResult = { ok: true; slot: HostSlot } | { ok: false; waitMs: number };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class HostPoliteness {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly limit: number;
  private readonly leaseMs: number;

  constructor(options: { redis: Redis; redisPrefix: string; perHostConcurrency: number; leaseMs: number }) {
    this.redis = options.redis;
    this.prefix = `${options.redisPrefix}:polite`;
    this.limit = options.perHostConcurrency;
    this.leaseMs = options.leaseMs;
  }

  /**
   * Runs fn holding a slot of host, waiting (sleeping) for one as long as it takes: for the few
   * requests outside page jobs (robots.txt, sitemaps), which count against the host like any other.
   */
  async withSlot<T>(host: string, crawlDelayMs: number | null, fn: () => Promise<T>): Promise<T> {
    for (;;) {
      const got = await this.tryAcquire(host, crawlDelayMs);
      if (!got.ok) {
        await sleep(got.waitMs + Math.floor(Math.random() * 50));
        continue;
      }
      try {
        return await fn();
      } finally {
        await got.slot.release();
      }
    }
  }

  /** Tries once; on refusal says how long to wait before trying again. */
  async tryAcquire(host: string, crawlDelayMs: number | null): Promise<AcquireResult> {
    const token = randomUUID();
    const slots = `${this.prefix}:${host}:slots`;
    const next = `${this.prefix}:${host}:next`;
    const [ok, wait] = (await this.redis.eval(
      ACQUIRE,
      2,
      slots,
      next,
      this.limit,
      this.leaseMs,
      token,
      Math.max(0, Math.round(crawlDelayMs ?? 0)),
    )) as [number, number];
    if (ok !== 1) return { ok: false, waitMs: Math.max(10, Number(wait)) };
    let released = false;
    return {
      ok: true,
      slot: {
        release: async () => {
          if (released) return;
          released = true;
          // A failed release only delays the host by one lease: never fail the page for it.
          await this.redis.zrem(slots, token).catch(() => {});
        },
      },
    };
  }
}
