import { readFileSync } from 'node:fs';
import { type Config, httpCheckIntervalMs } from '@kbchat/shared/config';
import type { FastifyHttpOptions } from 'fastify';

type TimeoutOptions = 'requestTimeout' | 'connectionTimeout' | 'keepAliveTimeout' | 'maxRequestsPerSocket';
export type SlowClientOptions = Pick<FastifyHttpOptions<never>, TimeoutOptions> & {
  http: { requestTimeout: number; headersTimeout: number; connectionsCheckingInterval: number };
};

/**
 * Server options against slow and stalled clients (docs/SECURITY.md §7). Node times only what it
 * receives: a request whose line, headers and body have not all arrived within
 * HTTP_REQUEST_TIMEOUT_MS (headers: HTTP_HEADERS_TIMEOUT_MS) gets 408 JSON (clientErrorHandler) and
 * its socket closes; a long answer such as the SSE chat stream is not timed by these. Node looks
 * for overdue requests every httpCheckIntervalMs (its 30 s default made them up to 30 s late).
 */
export function slowClientOptions(config: Config): SlowClientOptions {
  return {
    requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
    connectionTimeout: config.HTTP_CONNECTION_TIMEOUT_MS,
    keepAliveTimeout: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    maxRequestsPerSocket: config.HTTP_MAX_REQUESTS_PER_SOCKET,
    http: {
      requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
      headersTimeout: config.HTTP_HEADERS_TIMEOUT_MS,
      connectionsCheckingInterval: httpCheckIntervalMs(config),
    },
  };
}

/**
 * HTTP_MAX_CONNECTIONS, or (0) three quarters of the open-file limit, so sockets held by slow
 * clients cannot take the descriptors the database pool, Redis and the crawler need: past it,
 * Node closes a new connection at once.
 */
export function maxConnections(config: Config, limitsFile = '/proc/self/limits'): number {
  if (config.HTTP_MAX_CONNECTIONS > 0) return config.HTTP_MAX_CONNECTIONS;
  let openFiles = 4096;
  try {
    const soft = /^Max open files\s+(\d+)/m.exec(readFileSync(limitsFile, 'utf8'))?.[1];
    if (soft) openFiles = Number(soft);
  } catch {
    // Not Linux: assume a common limit.
  }
  return Math.max(64, Math.floor(openFiles * 0.75));
}
