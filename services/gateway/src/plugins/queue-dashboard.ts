import { AppError, BadRequestError } from '@kbchat/shared/errors';
import type { Queues } from '@kbchat/shared/runtime';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type HTTPMethods, LogController } from 'fastify';
import { FASTIFY_CLIENT_ERRORS, registerErrorHandling } from './errors.ts';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

const METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** Hop-by-hop and length headers of the board's answer: the outer reply sets its own. */
const NOT_RELAYED = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date']);

/**
 * The queue dashboard (bull-board) at /admin/queues. Register it inside the authenticated admin
 * scope: it can retry, promote and delete jobs. bull-board and what it brings (its own copy of
 * bullmq's CommonJS build, lodash, valibot, a template engine: ~3 MB of source) are loaded on the
 * first request to the dashboard, not at start: an idle service never holds them
 * (docs/performance.md, 22.2). Its routes are served by a Fastify instance of their own, built then,
 * to which this scope's routes hand each request after the admin auth hook has passed it.
 */
export async function registerQueueDashboard(admin: FastifyInstance, queues: Queues): Promise<void> {
  let board: Promise<FastifyInstance> | undefined;
  const boardApp = () => {
    board ??= buildBoard(admin, queues);
    // A failed build is not kept: the next request tries again.
    board.catch(() => {
      board = undefined;
    });
    return board;
  };
  await admin.register(async (scope) => {
    // Bodies go to the board as they came: its instance parses them, as it did when it was this scope.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    const handler = async (req: FastifyRequest, reply: FastifyReply) => relay(await boardApp(), req, reply);
    scope.route({ method: METHODS, url: QUEUE_DASHBOARD_PATH, handler });
    scope.route({ method: METHODS, url: `${QUEUE_DASHBOARD_PATH}/*`, handler });
  });
  admin.addHook('onClose', async () => {
    await (await board?.catch(() => undefined))?.close();
  });
}

async function relay(app: FastifyInstance, req: FastifyRequest, reply: FastifyReply) {
  const headers = { ...req.headers };
  delete headers['content-length'];
  delete headers['transfer-encoding'];
  const payload = Buffer.isBuffer(req.body) ? req.body : undefined;
  const res = await app.inject({ method: req.method as HTTPMethods, url: req.url, headers, payload, remoteAddress: req.ip });
  reply.status(res.statusCode);
  for (const [name, value] of Object.entries(res.headers)) if (value !== undefined && !NOT_RELAYED.has(name)) reply.header(name, value);
  return reply.send(res.rawPayload);
}

async function buildBoard(admin: FastifyInstance, queues: Queues): Promise<FastifyInstance> {
  const [{ createBullBoard }, { BullMQAdapter }, { FastifyAdapter }] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullMQAdapter'),
    import('@bull-board/fastify'),
  ]);
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({
    queues: [new BullMQAdapter(queues.crawl.queue), new BullMQAdapter(queues.embed.queue), new BullMQAdapter(queues.webhook.queue)],
    // @bull-board/fastify 9.10.1 types against its own copy of @bull-board/api: same interface, another package instance.
    serverAdapter: serverAdapter as unknown as Parameters<typeof createBullBoard>[0]['serverAdapter'],
    options: { uiConfig: { boardTitle: 'kbchat queues' } },
  });
  // bull-board answers errors of its scope itself: keep them in our { error, details } shape, and
  // its own failures without internals. Fastify's own client errors stay 4xx here too.
  const boardErrors = (err: Error & { code?: string }) => {
    if (err instanceof AppError) return { status: err.statusCode, body: { error: err.message, details: err.details ?? [] } };
    const known = err.code ? FASTIFY_CLIENT_ERRORS[err.code] : undefined;
    if (known) return { status: known.status, body: { error: known.error, details: [known.details] } };
    admin.log.error({ err }, 'queue dashboard request failed');
    return { status: 500, body: { error: 'Internal server error', details: [] } };
  };
  serverAdapter.setErrorHandler(boardErrors as unknown as Parameters<typeof serverAdapter.setErrorHandler>[0]);
  // The gateway logs the request (at debug) as it arrives; this instance does not log it again.
  const app = Fastify({
    loggerInstance: admin.log,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: admin.initialConfig.bodyLimit,
    routerOptions: { ignoreTrailingSlash: true },
  });
  // Paths under /admin/queues that bull-board does not serve: the gateway's own 404 shape; bodies
  // are JSON, as everywhere in the gateway.
  registerErrorHandling(app);
  app.removeContentTypeParser('text/plain');
  // bull-board separates the parts of its validation messages with NUL and JSON-parses them back:
  // a value holding a NUL made its own error formatting throw (a 500). No job data needs one.
  app.addHook('preValidation', async (req) => {
    if (holdsNul(req.body) || holdsNul(req.query))
      throw new BadRequestError('Invalid request', ['the request must not contain NUL characters']);
  });
  await app.register(serverAdapter.registerPlugin(), { prefix: QUEUE_DASHBOARD_PATH });
  await app.ready();
  return app;
}

function holdsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (value === null || typeof value !== 'object' || depth > 64) return false;
  return Object.entries(value).some(([k, v]) => k.includes('\u0000') || holdsNul(v, depth + 1));
}
