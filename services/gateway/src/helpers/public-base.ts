import type { FastifyRequest } from 'fastify';
import type { GatewayDeps } from '../deps.ts';

/** The origin of the links the API returns: PUBLIC_URL when set (behind a proxy), else the request's own. */
export function publicBase(deps: Pick<GatewayDeps, 'config'>, req: FastifyRequest): string {
  return deps.config.PUBLIC_URL?.replace(/\/+$/, '') ?? `${req.protocol}://${req.host}`;
}
