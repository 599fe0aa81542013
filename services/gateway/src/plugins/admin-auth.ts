import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ForbiddenError, TooManyRequestsError, UnauthorizedError } from '@kbchat/shared/errors';
import { rateLimitSubject } from '@kbchat/shared/leads/rate-limit';
import type { Logger } from '@kbchat/shared/logger';
import { classifyAddress } from '@kbchat/shared/net/address-policy';
import type { Redis } from '@kbchat/shared/redis';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ClientContext, Result } from 'ioredis';

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** 127.0.0.0/8, ::1 and their IPv4-mapped form; anything that is not an IP address (a forged header value) is not. */
export function isLoopback(ip: string): boolean {
  try {
    const { range } = classifyAddress(ip);
    return range === 'loopback' || range === 'ipv4Mapped→loopback';
  } catch {
    return false;
  }
}

/**
 * Wrong admin keys per address, a sliding-window log in Redis (shared by every replica, Redis'
 * clock). `check` only counts; `fail` logs one wrong key unless the address is already at the
 * limit — atomically, so concurrent guesses cannot get past it. Failures refused for the limit are
 * not logged, so a throttled address regains its budget as its failures age out.
 * Returns {logged, count, retryMs}: retryMs is how long until the address drops below the limit.
 */
const AUTH_FAILURES = `
local key = KEYS[1]
local windowMs = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - windowMs)
local count = redis.call('ZCARD', key)
local logged = 0
if ARGV[4] == 'fail' and count < limit then
  redis.call('ZADD', key, now, now .. ':' .. ARGV[3])
  redis.call('PEXPIRE', key, windowMs)
  count = count + 1
  logged = 1
end
local retryMs = 0
if count >= limit then
  local entry = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
  if entry[2] then retryMs = tonumber(entry[2]) + windowMs - now end
end
return {logged, count, retryMs}
`;

const WINDOW_MS = 60_000;

declare module 'ioredis' {
  interface RedisCommander<Context extends ClientContext = { type: 'default' }> {
    kbchatAuthFailures(
      key: string,
      windowMs: number,
      limit: number,
      member: string,
      mode: 'check' | 'fail',
    ): Result<[number, number, number], Context>;
  }
}

export interface AdminAuthOptions {
  /** ADMIN_API_KEY; unset: loopback callers only. */
  key: string | undefined;
  redis: Redis;
  log: Logger;
  keyPrefix: string;
  /** ADMIN_AUTH_FAILURES_PER_MINUTE. */
  failuresPerMinute: number;
}

/**
 * onRequest hook for every admin route (/api/admin/*, /admin/*): `Authorization: Bearer <key>`
 * compared in constant time (digests of equal length). With no key configured, only loopback
 * callers are served, so a fresh install is never an open admin API.
 *
 * An address that sent ADMIN_AUTH_FAILURES_PER_MINUTE wrong keys within a minute gets 429 for
 * every admin request until its failures age out, the right key included: were it let through, a
 * 200 among the 429s would tell a guesser which guess was right (docs/SECURITY.md). A missing key
 * is not a guess and is not counted. Redis down: fail open (the key check still runs), warning at
 * most every 30 s.
 */
export function adminAuthHook(options: AdminAuthOptions) {
  const expected = options.key ? sha256(options.key) : undefined;
  const { redis, log, failuresPerMinute } = options;
  if (!redis.kbchatAuthFailures) redis.defineCommand('kbchatAuthFailures', { numberOfKeys: 1, lua: AUTH_FAILURES });
  const memberPrefix = `${randomBytes(6).toString('base64url')}.`;
  let sequence = 0;
  let lastWarning = 0;
  // Redis holds no addresses: the subject is hashed.
  const keyOf = (ip: string) =>
    `${options.keyPrefix}:admin-auth-failures:${createHash('sha256').update(rateLimitSubject(ip)).digest('base64url').slice(0, 22)}`;
  const failures = async (ip: string, mode: 'check' | 'fail'): Promise<[number, number, number] | undefined> => {
    try {
      return await redis.kbchatAuthFailures(keyOf(ip), WINDOW_MS, failuresPerMinute, memberPrefix + (sequence++).toString(36), mode);
    } catch (err) {
      if (Date.now() - lastWarning > 30_000) {
        lastWarning = Date.now();
        log.warn({ err: { message: (err as Error).message } }, 'admin key throttle unavailable (Redis); checking keys without it');
      }
      return undefined;
    }
  };
  const throttled = (reply: FastifyReply, retryMs: number) => {
    const seconds = Math.max(1, Math.ceil(retryMs / 1000));
    // On the reply too: the queue dashboard's scope has its own error handler.
    reply.header('retry-after', String(seconds));
    return new TooManyRequestsError(seconds, [
      `more than ${failuresPerMinute} wrong admin keys a minute from this address; every admin request from it is refused for ${seconds} s`,
    ]);
  };

  return async function adminAuth(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (expected) {
      const header = req.headers.authorization ?? '';
      const match = /^Bearer\s+(.+)$/i.exec(header.trim());
      const right = match?.[1] !== undefined && timingSafeEqual(sha256(match[1]), expected);
      // One Redis call either way: a wrong key is logged (or refused at the limit), others only look.
      const wrong = match?.[1] !== undefined && !right;
      const state = await failures(req.ip, wrong ? 'fail' : 'check');
      if (state) {
        const [logged, count, retryMs] = state;
        if (wrong ? logged === 0 : count >= failuresPerMinute) throw throttled(reply, retryMs);
        if (wrong && count === failuresPerMinute)
          req.log.warn({ ip: req.ip }, 'admin key throttle: address reached the limit of wrong keys');
      }
      if (right) return;
      // On the reply too, not only on the error: a scope with its own error handler (the queue dashboard) keeps it.
      reply.header('www-authenticate', 'Bearer');
      throw new UnauthorizedError('Unauthorized', wrong ? 'the admin API key is not valid' : 'send Authorization: Bearer <ADMIN_API_KEY>');
    }
    // Every hop, not just req.ip: behind a proxy trusted as a whole (TRUST_PROXY=true) the
    // leftmost X-Forwarded-For entry is whatever the caller wrote, and the proxy appends the truth.
    if (!(req.ips ?? [req.ip]).every(isLoopback)) {
      throw new ForbiddenError('Forbidden', 'admin routes answer only loopback callers until ADMIN_API_KEY is set');
    }
  };
}
