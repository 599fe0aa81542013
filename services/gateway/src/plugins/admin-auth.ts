import { createHash, timingSafeEqual } from 'node:crypto';
import { ForbiddenError, UnauthorizedError } from '@kbchat/shared/errors';
import { classifyAddress } from '@kbchat/shared/net/address-policy';
import type { FastifyReply, FastifyRequest } from 'fastify';

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
 * onRequest hook for every admin route (/api/admin/*, /admin/*): `Authorization: Bearer <key>`
 * compared in constant time (digests of equal length). With no key configured, only loopback
 * callers are served, so a fresh install is never an open admin API.
 */
export function adminAuthHook(adminApiKey: string | undefined) {
  const expected = adminApiKey ? sha256(adminApiKey) : undefined;
  return async function adminAuth(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (expected) {
      const header = req.headers.authorization ?? '';
      const match = /^Bearer\s+(.+)$/i.exec(header.trim());
      const problem = !match?.[1]
        ? 'send Authorization: Bearer <ADMIN_API_KEY>'
        : timingSafeEqual(sha256(match[1]), expected)
          ? undefined
          : 'the admin API key is not valid';
      if (!problem) return;
      // On the reply too, not only on the error: a scope with its own error handler (the queue dashboard) keeps it.
      reply.header('www-authenticate', 'Bearer');
      throw new UnauthorizedError('Unauthorized', problem);
    }
    // Every hop, not just req.ip: behind a proxy trusted as a whole (TRUST_PROXY=true) the
    // leftmost X-Forwarded-For entry is whatever the caller wrote, and the proxy appends the truth.
    if (!(req.ips ?? [req.ip]).every(isLoopback)) {
      throw new ForbiddenError('Forbidden', 'admin routes answer only loopback callers until ADMIN_API_KEY is set');
    }
  };
}
