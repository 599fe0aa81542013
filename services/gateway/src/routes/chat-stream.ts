import type { ChatRequest, ChatService, PreparedChat } from '@kbchat/shared/chat/chat-service';
import { AppError, isUnavailableError } from '@kbchat/shared/errors';
import { chatBody } from '@kbchat/shared/schemas/chat';
import type { z } from 'zod';

type ChatBody = z.output<typeof chatBody>;

import { errorBody } from '@kbchat/shared/schemas/common';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

type Hook = (req: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** 499 (nginx's "client closed request"): the caller left; nothing is sent and nothing is stored. */
export class ClientClosedError extends AppError {
  constructor() {
    super(499, 'Client closed request');
  }
}

/**
 * Aborted when the caller disconnects before the response is complete, so the provider call
 * (tokens the caller would never read, on the client's bill) stops too.
 */
export function disconnectSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new ClientClosedError());
  });
  return controller.signal;
}

/** The service's request from a validated body: the same for /api/chat and /api/chat/stream. */
export function chatRequest(client: ChatRequest['client'], body: ChatBody, signal: AbortSignal): ChatRequest {
  return {
    client,
    message: body.message,
    ...(body.sessionId ? { sessionId: body.sessionId } : {}),
    ...(body.context?.pageUrl ? { pageUrl: body.context.pageUrl } : {}),
    signal,
  };
}

const ANSWER_FAILED = 'the answer could not be generated; please try again later';

/**
 * What a caller may see of a failure. An AppError of 5xx raised below us (a model provider that
 * failed, whose message names hosts and models) becomes the spec's plain 500; the original is
 * logged. Client errors and unavailable backing services keep their meaning.
 */
export function publicChatError(err: unknown, log: FastifyBaseLogger): unknown {
  if (err instanceof AppError && err.statusCode >= 500) {
    log.error({ err: { name: err.name, message: err.message, status: err.statusCode } }, 'chat answer failed');
    return new AppError(500, 'Internal server error', [ANSWER_FAILED]);
  }
  return err;
}

/** The `{error, details}` of an `event: error`, with no internals (same rules as the JSON error handler). */
export function streamErrorBody(err: unknown): { error: string; details: string[] } {
  if (err instanceof AppError && err.statusCode < 500) {
    return { error: err.message, details: Array.isArray(err.details) ? err.details.map(String) : err.details ? [String(err.details)] : [] };
  }
  if (isUnavailableError(err)) return { error: 'Service unavailable', details: ['a backing service is not reachable; retry shortly'] };
  return { error: 'Internal server error', details: [ANSWER_FAILED] };
}

/**
 * POST /api/chat/stream (docs/api.md "Streaming"): the /api/chat request answered as Server-Sent
 * Events. Validation, client lookup, CORS, the rate limit, history, rewriting and retrieval all
 * happen before the first byte, so their errors are ordinary JSON responses with their status.
 * Then:
 *   event: token  data: {"text": "..."}                                      (zero or more)
 *   event: done   data: {"answer","sources","sessionId","leadCaptureIntent"} (exactly once, last)
 *   event: error  data: {"error","details"}                                  (instead of done, then the stream ends)
 */
export function chatStreamRoute(service: ChatService, hooks: { onRequest: Hook; preHandler: Hook[] }): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/api/chat/stream',
      {
        onRequest: hooks.onRequest,
        preHandler: hooks.preHandler as preHandlerAsyncHookHandler[],
        schema: {
          tags: ['chat'],
          summary: 'Chat, streamed as Server-Sent Events (token…, then done; or error)',
          body: chatBody,
          produces: ['text/event-stream'],
          response: { 400: errorBody, 403: errorBody, 404: errorBody, 429: errorBody, 500: errorBody, 503: errorBody },
        },
      },
      async (req, reply) => {
        const signal = disconnectSignal(reply);
        const client = req.publicClient;
        if (!client) throw new Error('public client guard did not run');
        let prepared: PreparedChat;
        try {
          prepared = await service.prepare(chatRequest(client, req.body, signal));
        } catch (err) {
          if (signal.aborted) throw new ClientClosedError();
          throw publicChatError(err, req.log);
        }
        if (signal.aborted) throw new ClientClosedError();

        // From here on the response is ours: Fastify's onSend hooks will not run, so the headers
        // set so far (CORS, RateLimit-*) are copied over by hand.
        reply.hijack();
        const raw = reply.raw;
        for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) raw.setHeader(name, value);
        raw.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache, no-transform',
          // nginx and similar proxies would otherwise buffer the whole answer.
          'x-accel-buffering': 'no',
          'x-request-id': req.id,
        });
        raw.flushHeaders();
        const send = (event: string, data: unknown) => {
          if (!raw.destroyed) raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
        };
        try {
          for await (const event of service.stream(prepared)) {
            if (signal.aborted) break;
            if (event.type === 'token') send('token', { text: event.text });
            else send('done', event.response);
          }
        } catch (err) {
          if (signal.aborted) req.log.info('chat stream: client disconnected');
          else {
            if (err instanceof AppError && err.statusCode >= 500) publicChatError(err, req.log);
            else req.log.error({ err }, 'chat stream failed after it started');
            send('error', streamErrorBody(err));
          }
        } finally {
          raw.end();
        }
      },
    );
  };
}
