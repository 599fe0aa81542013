import { randomBytes } from 'node:crypto';
import { TooManyRequestsError } from '@kbchat/shared/errors';
import type { Logger } from '@kbchat/shared/logger';
import type { Redis } from '@kbchat/shared/redis';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ClientContext, Result } from 'ioredis';

/**
 * The chat limit (spec §8: 60 requests per minute per clientId), shared by /api/chat and
 * /api/chat/stream and held in Redis so every gateway replica counts against one budget.
 *
 * A sliding-window log in one Lua script rather than @fastify/rate-limit: that plugin's Redis
 * store is a fixed window (up to 2× the limit across a window edge), and its hook runs before we
 * know whether the clientId exists. Here the check runs after validation and the client lookup,
 * so malformed requests and unknown clients (400/404) never create keys or spend a client's
 * budget, and "the 61st request within any 60 s" is exact. Redis' own clock (TIME) is used, so
 * replicas with skewed clocks agree. Rejected requests are not logged in the window, so a client
 * hammering past its limit regains capacity as its accepted requests age out.
 *
 * Redis down: each gateway process falls back to a sliding window of its own, in memory, with the
 * same limit (a warning is logged at most every 30 s). Chat stays up for every tenant, and a flood
 * is still bounded — by the limit times the number of gateway processes instead of the limit.
 * The in-memory window starts empty when Redis stops answering.
 */
const SLIDING_WINDOW = `
local key = KEYS[1]
local windowMs = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - windowMs)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, now .. ':' .. ARGV[3])
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', key, windowMs)
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
local resetMs = windowMs
if oldest[2] then resetMs = tonumber(oldest[2]) + windowMs - now end
return {allowed, count, resetMs}
`;

const WINDOW_MS = 60_000;

declare module 'ioredis' {
  interface RedisCommander<Context extends ClientContext = { type: 'default' }> {
    kbchatSlidingWindow(key: string, windowMs: number, limit: number, member: string): Result<[number, number, number], Context>;
  }
}

export interface ChatRateLimitDeps {
  redis: Redis;
  log: Logger;
  keyPrefix: string;
  limitPerMinute: number;
  /** Which budget: 'chat' (default) or another public endpoint's own (e.g. 'feedback'). */
  name?: string;
}

/**
 * preHandler for the chat routes; runs after the client is known (req.publicClient, set by the
 * public CORS preHandler). Sets RateLimit-Limit/-Remaining/-Reset on every counted response and
 * Retry-After on a 429.
 */
export function chatRateLimit(deps: ChatRateLimitDeps) {
  if (!deps.redis.kbchatSlidingWindow) {
    deps.redis.defineCommand('kbchatSlidingWindow', { numberOfKeys: 1, lua: SLIDING_WINDOW });
  }
  let lastWarning = 0;
  const floor = new MemoryWindows(WINDOW_MS, deps.limitPerMinute);
  // Window entries must be unique across replicas: a random prefix per process, then a counter
  // (a getrandom call per request was ~30 µs of the event loop).
  const memberPrefix = `${randomBytes(6).toString('base64url')}.`;
  let sequence = 0;
  return async function chatRateLimitHook(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const clientId = req.publicClient?.id;
    if (!clientId) return;
    let result: [number, number, number];
    try {
      result = await deps.redis.kbchatSlidingWindow(
        `${deps.keyPrefix}:ratelimit:${deps.name ?? 'chat'}:${clientId}`,
        WINDOW_MS,
        deps.limitPerMinute,
        memberPrefix + (sequence++).toString(36),
      );
    } catch (err) {
      if (Date.now() - lastWarning > 30_000) {
        lastWarning = Date.now();
        deps.log.warn({ err: { message: (err as Error).message } }, 'chat rate limit: Redis unavailable, limiting per process in memory');
      }
      result = floor.take(`${deps.name ?? 'chat'}:${clientId}`, Date.now());
    }
    const [allowed, count, resetMs] = result;
    const resetSeconds = Math.max(1, Math.ceil(resetMs / 1000));
    reply.header('ratelimit-limit', String(deps.limitPerMinute));
    reply.header('ratelimit-remaining', String(Math.max(0, deps.limitPerMinute - count)));
    reply.header('ratelimit-reset', String(resetSeconds));
    if (allowed !== 1) {
      throw new TooManyRequestsError(resetSeconds, [
        `at most ${deps.limitPerMinute} ${deps.name ?? 'chat'} requests per minute per client; retry in ${resetSeconds} s`,
      ]);
    }
  };
}

/** Most clients the in-memory fallback tracks at once; the least recently seen is forgotten first. */
const MEMORY_MAX_KEYS = 10_000;

/**
 * The same sliding-window log as the Lua script, in this process's memory: the floor while Redis is
 * away. Bounded: at most `limit` timestamps per key and MEMORY_MAX_KEYS keys.
 */
export class MemoryWindows {
  private readonly logs = new Map<string, number[]>();
  private readonly windowMs: number;
  private readonly limit: number;
  constructor(windowMs: number, limit: number) {
    this.windowMs = windowMs;
    this.limit = limit;
  }

  /** Same reply as the script: [allowed (1|0), count in the window, ms until a slot frees]. */
  take(key: string, now: number): [number, number, number] {
    const log = (this.logs.get(key) ?? []).filter((t) => t > now - this.windowMs);
    this.logs.delete(key);
    let allowed = 0;
    if (log.length < this.limit) {
      log.push(now);
      allowed = 1;
    }
    this.logs.set(key, log);
    if (this.logs.size > MEMORY_MAX_KEYS) {
      const oldest = this.logs.keys().next().value;
      if (oldest !== undefined) this.logs.delete(oldest);
    }
    const resetMs = (log[0] ?? now) + this.windowMs - now;
    return [allowed, log.length, resetMs];
  }
}
