import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import { AppError, BadRequestError } from '@kbchat/shared/errors';
import type { Queues } from '@kbchat/shared/runtime';
import type { FastifyInstance } from 'fastify';
import { FASTIFY_CLIENT_ERRORS } from './errors.ts';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/**
 * The queue dashboard (bull-board) at /admin/queues. Register it inside the authenticated admin
 * scope: it can retry, promote and delete jobs. Its routes carry no zod schemas, so the plugin
 * gets fastify's own validator and serializer back in its scope.
 */
export async function registerQueueDashboard(admin: FastifyInstance, queues: Queues): Promise<void> {
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({
    queues: [new BullMQAdapter(queues.crawl.queue), new BullMQAdapter(queues.embed.queue), new BullMQAdapter(queues.webhook.queue)],
    // @bull-board/fastify 9.10.1 types against its own copy of @bull-board/api: same interface, another package instance.
    serverAdapter: serverAdapter as unknown as Parameters<typeof createBullBoard>[0]['serverAdapter'],
    options: { uiConfig: { boardTitle: 'kbchat queues' } },
  });
  // bull-board answers errors of its scope itself — the admin auth hook's 401/403 included: keep
  // those in our { error, details } shape, and its own failures without internals.
  // Fastify's own client errors (a body over BODY_LIMIT_BYTES, malformed JSON) stay 4xx here too.
  const boardErrors = (err: Error & { code?: string }) => {
    if (err instanceof AppError) return { status: err.statusCode, body: { error: err.message, details: err.details ?? [] } };
    const known = err.code ? FASTIFY_CLIENT_ERRORS[err.code] : undefined;
    if (known) return { status: known.status, body: { error: known.error, details: [known.details] } };
    admin.log.error({ err }, 'queue dashboard request failed');
    return { status: 500, body: { error: 'Internal server error', details: [] } };
  };
  serverAdapter.setErrorHandler(boardErrors as unknown as Parameters<typeof serverAdapter.setErrorHandler>[0]);
  await admin.register(async (board) => {
    // bull-board separates the parts of its validation messages with NUL and JSON-parses them back:
    // a value holding a NUL made its own error formatting throw (a 500). No job data needs one.
    board.addHook('preValidation', async (req) => {
      if (holdsNul(req.body) || holdsNul(req.query))
        throw new BadRequestError('Invalid request', ['the request must not contain NUL characters']);
    });
    await board.register(serverAdapter.registerPlugin(), { prefix: QUEUE_DASHBOARD_PATH });
  });
}

function holdsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (value === null || typeof value !== 'object' || depth > 64) return false;
  return Object.entries(value).some(([k, v]) => k.includes('\u0000') || holdsNul(v, depth + 1));
}
