import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Runtime } from '@kbchat/shared/runtime';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';

/**
 * The types every route and plugin of the gateway shares. They live here, not in app.ts, so a
 * route can name them without importing the module that imports every route.
 */

/** The Fastify instance buildApp returns: zod schemas type the requests and replies. */
export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, ZodTypeProvider>;

/** What the gateway needs from the runtime; each route plugin receives this one object. */
export type GatewayDeps = Pick<Runtime, 'config' | 'log' | 'pool' | 'redis' | 'queues'>;
