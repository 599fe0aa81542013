import type { ClientRow } from '@kbchat/shared/db/clients';
import { ClientNotFoundError, ForbiddenError } from '@kbchat/shared/errors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The client of a public endpoint's body, loaded by the public CORS preHandler. */
    publicClient?: ClientRow;
  }
}

/** Headers a browser script may read from our answers (the widget backs off on 429). */
const EXPOSED_HEADERS = 'Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, X-Request-Id';
/** Chrome caps a preflight cache at two hours; longer values are ignored there. */
const PREFLIGHT_MAX_AGE_SECONDS = 7200;

export interface PublicCorsHooks {
  /** Sets the permissive CORS headers early, so even a 400 is readable by the calling page. */
  onRequest: (req: FastifyRequest, reply: FastifyReply) => Promise<void>;
  /**
   * Once the body is validated: loads the client (404 when the clientId is malformed or unknown),
   * then lets its allowedOrigins decide (empty = any origin; no Origin header = a server, allowed).
   * A disallowed Origin gets 403 JSON and no Access-Control-Allow-Origin. Sets req.publicClient.
   */
  preHandler: (req: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

/**
 * CORS for the credential-free public endpoints (/api/chat, /api/chat/stream, /api/lead; docs/retrieval.md "CORS").
 * A preflight cannot know the client (it has no body), so it is answered permissively; the
 * client's allowedOrigins are enforced on the actual POST, where the clientId is known.
 *
 * Usage, in the route plugin that owns the path (the chat routes do exactly this):
 *
 *   const cors = registerPublicCors(app, { requireClient }, ['/api/lead']);   // adds OPTIONS /api/lead
 *   app.post('/api/lead', { onRequest: cors.onRequest, preHandler: cors.preHandler, schema }, async (req) => {
 *     const client = req.publicClient!;   // 400, 404 and 403 are already answered
 *   });
 *
 * More preHandlers (a rate limit) go after it: `preHandler: [cors.preHandler, limit]`.
 * `requireClient` loads the client or throws the 404 (helpers/require-client.ts): the lookup is
 * the routes' data access, not this plugin's.
 */
export function registerPublicCors(
  app: FastifyInstance,
  deps: { requireClient: (clientId: string) => Promise<ClientRow> },
  paths: string[],
): PublicCorsHooks {
  for (const path of paths) {
    app.options(path, { schema: { hide: true } }, async (req, reply) => {
      const origin = req.headers.origin;
      reply.header('vary', 'Origin');
      if (origin) {
        reply.header('access-control-allow-origin', origin);
        reply.header('access-control-allow-methods', 'POST, OPTIONS');
        reply.header('access-control-allow-headers', 'Content-Type');
        reply.header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS));
      }
      return reply.status(204).send();
    });
  }

  return {
    async onRequest(req, reply) {
      const origin = req.headers.origin;
      reply.header('vary', 'Origin');
      if (!origin) return;
      reply.header('access-control-allow-origin', origin);
      reply.header('access-control-expose-headers', EXPOSED_HEADERS);
    },

    async preHandler(req, reply) {
      const clientId = (req.body as { clientId?: unknown } | undefined)?.clientId;
      if (typeof clientId !== 'string') throw new ClientNotFoundError();
      const client = await deps.requireClient(clientId);
      const origin = req.headers.origin;
      if (origin !== undefined && !isOriginAllowed(origin, client.allowed_origins)) {
        reply.removeHeader('access-control-allow-origin');
        reply.removeHeader('access-control-expose-headers');
        throw new ForbiddenError('Origin not allowed', ["the calling page's origin is not in this client's allowedOrigins"]);
      }
      req.publicClient = client;
    },
  };
}

/** Empty list = any origin. Compared as origins (scheme, host, port), so case and default ports do not matter. */
export function isOriginAllowed(origin: string, allowed: readonly string[]): boolean {
  if (allowed.length === 0) return true;
  const normal = asOrigin(origin);
  if (!normal) return false;
  return allowed.some((a) => asOrigin(a) === normal);
}

function asOrigin(value: string): string | undefined {
  try {
    const u = new URL(value);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    return u.origin;
  } catch {
    return undefined;
  }
}
