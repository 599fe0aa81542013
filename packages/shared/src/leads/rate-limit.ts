import { createHash } from 'node:crypto';
import net from 'node:net';
import type { ClientContext, Redis, Result } from 'ioredis';
import { withTimeout } from './with-timeout.ts';

export interface QuotaState {
  limit: number;
  remaining: number;
  /** Seconds until the window ends. */
  resetSeconds: number;
  allowed: boolean;
}

const WINDOW_MS = 3600_000;
const REDIS_TIMEOUT_MS = 1_000;

/**
 * Who a lead comes from, for the per-IP limit: the address itself, except that IPv6 is taken per
 * /64 (one subscriber's allocation) — else a spammer rotates through 2^64 addresses.
 * IPv4-mapped IPv6 (::ffff:a.b.c.d) counts as the IPv4 address.
 */
export function rateLimitSubject(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped?.[1]) return mapped[1];
  if (net.isIPv6(ip)) return `${expandIpv6(ip).slice(0, 4).join(':')}::/64`;
  return ip;
}

function expandIpv6(ip: string): string[] {
  const [head = '', tail = ''] = ip.split('%')[0]?.split('::') ?? [];
  const h = head ? head.split(':') : [];
  const t = ip.includes('::') && tail ? tail.split(':') : [];
  const missing = 8 - h.length - t.length;
  return [...h, ...Array(Math.max(0, missing)).fill('0'), ...t].map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''));
}

/** Both limits of one lead: the sender's address and the client as a whole. */
export interface LeadQuota {
  allowed: boolean;
  /** The limit that refused the lead. */
  limitedBy?: 'address' | 'client';
  address: QuotaState;
  client: QuotaState;
}

export interface LeadLimits {
  clientId: string;
  ip: string;
  /** Leads per hour from one address (an IPv6 /64) for this client. */
  addressLimit: number;
  /** Leads per hour for this client from every address together. */
  clientLimit: number;
}

/**
 * The address is checked first and the client only for a lead its address may send: one abusive
 * address spends its own budget, never the client's. Both windows are fixed, starting with their
 * first lead. Replies {allowed, limitedBy (1 address, 2 client), addressCount, addressTtl, clientCount, clientTtl}.
 */
const FIXED_WINDOWS = `
local windowMs = tonumber(ARGV[1])
local function bump(key)
  redis.call('SET', key, '0', 'PX', windowMs, 'NX')
  local n = redis.call('INCR', key)
  return n, redis.call('PTTL', key)
end
local a, attl = bump(KEYS[1])
if a > tonumber(ARGV[2]) then
  local c = tonumber(redis.call('GET', KEYS[2]) or '0')
  local cttl = redis.call('PTTL', KEYS[2])
  return {0, 1, a, attl, c, cttl}
end
local c, cttl = bump(KEYS[2])
if c > tonumber(ARGV[3]) then return {0, 2, a, attl, c, cttl} end
return {1, 0, a, attl, c, cttl}
`;

declare module 'ioredis' {
  interface RedisCommander<Context extends ClientContext = { type: 'default' }> {
    kbchatLeadWindows(
      addressKey: string,
      clientKey: string,
      windowMs: number,
      addressLimit: number,
      clientLimit: number,
    ): Result<[number, number, number, number, number, number], Context>;
  }
}

function hashedSubject(ip: string): string {
  return createHash('sha256').update(rateLimitSubject(ip)).digest('base64url').slice(0, 22);
}

function quotaState(limit: number, count: number, resetMs: number): QuotaState {
  return {
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil((resetMs > 0 ? resetMs : WINDOW_MS) / 1000)),
    allowed: count <= limit,
  };
}

/**
 * Counts one lead against its address's and its client's hourly windows in Redis, so they hold
 * across gateway replicas. The address is hashed: Redis holds no IP addresses. Both keys carry the
 * client as a hash tag (one slot on a Redis Cluster). Resolves undefined when Redis cannot answer:
 * the caller then counts in Postgres (countLeadQuotaInDatabase).
 */
export async function consumeLeadQuota(redis: Redis, input: LeadLimits & { prefix: string }): Promise<LeadQuota | undefined> {
  if (!redis.kbchatLeadWindows) redis.defineCommand('kbchatLeadWindows', { numberOfKeys: 2, lua: FIXED_WINDOWS });
  const clientKey = `${input.prefix}:lead-rate:{${input.clientId}}`;
  const addressKey = `${clientKey}:${hashedSubject(input.ip)}`;
  try {
    const [allowed, by, a, attl, c, cttl] = await withTimeout(
      redis.kbchatLeadWindows(addressKey, clientKey, WINDOW_MS, input.addressLimit, input.clientLimit),
      REDIS_TIMEOUT_MS,
      'lead rate limit: Redis did not answer',
    );
    return {
      allowed: allowed === 1,
      ...(allowed === 1 ? {} : { limitedBy: by === 1 ? ('address' as const) : ('client' as const) }),
      address: quotaState(input.addressLimit, a, attl),
      client: quotaState(input.clientLimit, c, cttl),
    };
  } catch {
    return undefined;
  }
}

/** The client's leads of the last hour, per stored source address. */
export interface RecentLeads {
  sourceIp: string | null;
  count: number;
  /** Milliseconds since the oldest of them. */
  oldestAgeMs: number;
}

/**
 * The same two limits counted from the leads stored in Postgres over the last hour (a sliding
 * window), for when Redis cannot answer. The caller holds the client's lock while counting and
 * storing, so concurrent leads cannot all slip under the limit: real abuse is refused, normal
 * traffic goes through.
 */
export function leadQuotaFromDatabase(recent: RecentLeads[], input: LeadLimits): LeadQuota {
  const subject = rateLimitSubject(input.ip);
  const mine = recent.filter((r) => r.sourceIp !== null && rateLimitSubject(r.sourceIp) === subject);
  const state = (rows: RecentLeads[], limit: number): QuotaState => {
    const count = rows.reduce((n, r) => n + r.count, 0);
    const oldest = Math.max(0, ...rows.map((r) => r.oldestAgeMs));
    // With this lead counted; a slot frees when the oldest lead leaves the window.
    return quotaState(limit, count + 1, rows.length > 0 ? WINDOW_MS - oldest : WINDOW_MS);
  };
  const address = state(mine, input.addressLimit);
  const client = state(recent, input.clientLimit);
  const limitedBy = !address.allowed ? 'address' : !client.allowed ? 'client' : undefined;
  return { allowed: limitedBy === undefined, ...(limitedBy ? { limitedBy } : {}), address, client };
}

export const LEAD_WINDOW_MS = WINDOW_MS;
