import { createHash, timingSafeEqual } from 'node:crypto';
import { ForbiddenError, UnauthorizedError } from '@kbchat/shared/errors';
import type { FastifyRequest } from 'fastify';

const sha256 = (s: string) => createHash('sha256').update(s).digest();

export function isLoopback(ip: string): boolean {
  return ip === '::1' || ip.startsWith('127.') || ip.startsWith('::ffff:127.');
}

/**
 * onRequest hook for every admin route (/api/admin/*, /admin/*): `Authorization: Bearer <key>`
 * compared in constant time (digests of equal length). With no key configured, only loopback
 * callers are served, so a fresh install is never an open admin API.
 */
export function adminAuthHook(adminApiKey: string | undefined) {
  const expected = adminApiKey ? sha256(adminApiKey) : undefined;
  return async function adminAuth(req: FastifyRequest): Promise<void> {
    if (expected) {
      const header = req.headers.authorization ?? '';
      const match = /^Bearer\s+(.+)$/i.exec(header.trim());
      if (!match?.[1]) throw new UnauthorizedError('Unauthorized', 'send Authorization: Bearer <ADMIN_API_KEY>');
      if (!timingSafeEqual(sha256(match[1]), expected)) throw new UnauthorizedError('Unauthorized', 'the admin API key is not valid');
      return;
    }
    if (!isLoopback(req.ip)) {
      throw new ForbiddenError('Forbidden', 'admin routes answer only loopback callers until ADMIN_API_KEY is set');
    }
  };
}
