import { createHash, randomBytes } from 'node:crypto';
import { TooManyRequestsError } from '@kbchat/shared/errors';
import { rateLimitSubject } from '@kbchat/shared/leads/rate-limit';
import type { Logger } from '@kbchat/shared/logger';
import type { Redis } from '@kbchat/shared/redis';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ClientContext, Result } from 'ioredis';
import type { GatewayDeps } from '../deps.ts';

/**
 * The chat limit (spec §8: 60 requests per minute per clientId), shared by /api/chat and
 * /api/chat/stream and held in Redis so every gateway replica counts against one budget — and,
 * inside it, each visitor's share (CHAT_VISITOR_RATE_LIMIT_PER_MINUTE, 20), counted per address
 * (an IPv6 /64) and per sessionId, so that one visitor cannot spend the whole client's minute and
 * take its chat offline for everyone else (docs/retrieval.md "Rate limit").
 *
 * A sliding-window log in one Lua script rather than @fastify/rate-limit: that plugin's Redis
 * store is a fixed window (up to 2× the limit across a window edge), and its hook runs before we
 * know whether the clientId exists. Here the check runs after validation and the client lookup,
 * so malformed requests and unknown clients (400/404) never create keys or spend a client's
 * budget, and "the 61st request within any 60 s" is exact. Redis' own clock (TIME) is used, so
 * replicas with skewed clocks agree. The visitor's windows are checked first and every window is
 * charged only when all have room, in one script: a request refused for the visitor's share costs
 * the client nothing, and rejected requests are logged nowhere, so a visitor hammering past the
 * limit regains capacity as its accepted requests age out. The keys of one client share a
 * {hash tag}, so the script also runs on Redis Cluster.
 *
 * Redis down: each gateway process falls back to a sliding window of its own, in memory, with the
 * same limit (a warning is logged at most every 30 s). Chat stays up for every tenant, and a flood
 * is still bounded — by the limit times the number of gateway processes instead of the limit.
 * The in-memory window starts empty when Redis stops answering.
 */
const SLIDING_WINDOWS = `
local windowMs = tonumber(ARGV[1])
local clientLimit = tonumber(ARGV[2])
local visitorLimit = tonumber(ARGV[3])
local member = ARGV[4]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function resetOf(key)
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if oldest[2] then return tonumber(oldest[2]) + windowMs - now end
  return windowMs
end
local counts = {}
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - windowMs)
  counts[i] = redis.call('ZCARD', key)
end
-- KEYS[1] is the client's window, the others the visitor's: 2 = refused for the visitor's share.
local visitorCount, visitorReset = 0, 0
for i = 2, #KEYS do
  if counts[i] >= visitorCount then
    visitorCount = counts[i]
    visitorReset = resetOf(KEYS[i])
  end
  if counts[i] >= visitorLimit then
    return {2, counts[1], resetOf(KEYS[1]), counts[i], resetOf(KEYS[i])}
  end
end
if counts[1] >= clientLimit then
  return {0, counts[1], resetOf(KEYS[1]), visitorCount, visitorReset}
end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, now .. ':' .. member)
  redis.call('PEXPIRE', key, windowMs)
  counts[i] = counts[i] + 1
end
visitorCount = 0
for i = 2, #KEYS do
  if counts[i] > visitorCount then visitorCount = counts[i] end
end
return {1, counts[1], resetOf(KEYS[1]), visitorCount, visitorReset}
`;

const WINDOW_MS = 60_000;

declare module 'ioredis' {
  interface RedisCommander<Context extends ClientContext = { type: 'default' }> {
    kbchatSlidingWindows(
      numberOfKeys: number,
      ...keysAndArgs: (string | number)[]
    ): Result<[number, number, number, number, number], Context>;
  }
}

export interface ChatRateLimitDeps {
  redis: Redis;
  log: Logger;
  keyPrefix: string;
  limitPerMinute: number;
  /** Each visitor's share of limitPerMinute, per address and per sessionId; unset: none. */
  visitorLimitPerMinute?: number;
  /** Which budget: 'chat' (default) or another public endpoint's own (e.g. 'feedback'). */
  name?: string;
}

/** Redis holds no addresses or session ids: they are hashed. */
const digest = (s: string) => createHash('sha256').update(s).digest('base64url').slice(0, 22);

/**
 * preHandler for the chat routes; runs after the client is known (req.publicClient, set by the
 * public CORS preHandler) and the body is valid. Sets RateLimit-Limit/-Remaining/-Reset on every
 * counted response — of whichever budget, the visitor's or the client's, has less left — and
 * Retry-After on a 429.
 */
export function chatRateLimit(deps: ChatRateLimitDeps) {
  if (!deps.redis.kbchatSlidingWindows) {
    deps.redis.defineCommand('kbchatSlidingWindows', { lua: SLIDING_WINDOWS });
  }
  let lastWarning = 0;
  const floor = new MemoryWindows(WINDOW_MS, deps.limitPerMinute);
  // Window entries must be unique across replicas: a random prefix per process, then a counter
  // (a getrandom call per request was ~30 µs of the event loop).
  const memberPrefix = `${randomBytes(6).toString('base64url')}.`;
  let sequence = 0;
  const name = deps.name ?? 'chat';
  const visitorLimit = deps.visitorLimitPerMinute;
  return async function chatRateLimitHook(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const clientId = req.publicClient?.id;
    if (!clientId) return;
    const base = `${deps.keyPrefix}:ratelimit:{${name}:${clientId}}`;
    const keys = [base];
    if (visitorLimit !== undefined) {
      keys.push(`${base}:ip:${digest(rateLimitSubject(req.ip))}`);
      const sessionId = (req.body as { sessionId?: unknown } | undefined)?.sessionId;
      if (typeof sessionId === 'string' && sessionId) keys.push(`${base}:session:${digest(sessionId)}`);
    }
    let result: [number, number, number, number, number];
    try {
      result = await deps.redis.kbchatSlidingWindows(
        keys.length,
        ...keys,
        WINDOW_MS,
        deps.limitPerMinute,
        visitorLimit ?? deps.limitPerMinute,
        memberPrefix + (sequence++).toString(36),
      );
    } catch (err) {
      if (Date.now() - lastWarning > 30_000) {
        lastWarning = Date.now();
        deps.log.warn({ err: { message: (err as Error).message } }, 'chat rate limit: Redis unavailable, limiting per process in memory');
      }
      // The in-memory floor counts the client's budget only: no visitor share while Redis is away.
      const [allowed, count, resetMs] = floor.take(`${deps.name ?? 'chat'}:${clientId}`, Date.now());
      result = [allowed, count, resetMs, 0, 0];
    }
    const [allowed, clientCount, clientResetMs, visitorCount, visitorResetMs] = result;
    const clientLeft = Math.max(0, deps.limitPerMinute - clientCount);
    const visitorLeft = visitorLimit === undefined ? Number.POSITIVE_INFINITY : Math.max(0, visitorLimit - visitorCount);
    // The budget with less left is the one the caller runs into first.
    const byVisitor = allowed === 2 || (allowed !== 0 && visitorLeft < clientLeft);
    const limit = byVisitor && visitorLimit !== undefined ? visitorLimit : deps.limitPerMinute;
    const resetSeconds = Math.max(1, Math.ceil((byVisitor ? visitorResetMs : clientResetMs) / 1000));
    reply.header('ratelimit-limit', String(limit));
    reply.header('ratelimit-remaining', String(byVisitor ? visitorLeft : clientLeft));
    reply.header('ratelimit-reset', String(resetSeconds));
    if (allowed === 2) {
      throw new TooManyRequestsError(resetSeconds, [
        `at most ${visitorLimit} ${name} requests per minute from one visitor (address or session); retry in ${resetSeconds} s`,
      ]);
    }
    if (allowed !== 1) {
      throw new TooManyRequestsError(resetSeconds, [
        `at most ${deps.limitPerMinute} ${name} requests per minute per client; retry in ${resetSeconds} s`,
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

/** The limiter of a public endpoint from the gateway's config: the chat's budget, or its own under `name`. */
export function publicRateLimit(deps: Pick<GatewayDeps, 'config' | 'log' | 'redis'>, name?: string) {
  return chatRateLimit({
    redis: deps.redis,
    log: deps.log,
    keyPrefix: deps.config.REDIS_PREFIX,
    limitPerMinute: deps.config.CHAT_RATE_LIMIT_PER_MINUTE,
    visitorLimitPerMinute: deps.config.CHAT_VISITOR_RATE_LIMIT_PER_MINUTE,
    ...(name ? { name } : {}),
  });
}
