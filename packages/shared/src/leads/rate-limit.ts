import { createHash } from 'node:crypto';
import net from 'node:net';
import type { Redis } from 'ioredis';
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

/**
 * Counts one lead against the (client, subject) hourly window: a fixed window that starts with the
 * first lead, held in Redis so it holds across gateway replicas. The address is hashed: Redis holds
 * no IP addresses. Resolves undefined when Redis cannot answer — the limit fails open, because
 * losing a real lead costs the client more than letting spam through for a moment.
 */
export async function consumeLeadQuota(
  redis: Redis,
  input: { prefix: string; clientId: string; ip: string; limit: number },
): Promise<QuotaState | undefined> {
  const subject = createHash('sha256').update(rateLimitSubject(input.ip)).digest('base64url').slice(0, 22);
  const key = `${input.prefix}:lead-rate:${input.clientId}:${subject}`;
  try {
    const replies = await withTimeout(
      redis.multi().set(key, '0', 'PX', WINDOW_MS, 'NX').incr(key).pttl(key).exec(),
      REDIS_TIMEOUT_MS,
      'lead rate limit: Redis did not answer',
    );
    if (!replies) return undefined;
    for (const [err] of replies) if (err) return undefined;
    const count = Number(replies[1]?.[1]);
    const pttl = Number(replies[2]?.[1]);
    const resetSeconds = Math.max(1, Math.ceil((pttl > 0 ? pttl : WINDOW_MS) / 1000));
    return {
      limit: input.limit,
      remaining: Math.max(0, input.limit - count),
      resetSeconds,
      allowed: count <= input.limit,
    };
  } catch {
    return undefined;
  }
}
