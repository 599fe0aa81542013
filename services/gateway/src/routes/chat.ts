import { createChatService, type PreparedChat } from '@kbchat/shared/chat/chat-service';
import { chatBody, chatResponse } from '@kbchat/shared/schemas/chat';
import { errorBody } from '@kbchat/shared/schemas/common';
import type { preHandlerAsyncHookHandler } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { GatewayDeps } from '../deps.ts';
import { chatRequest, publicChatError } from '../helpers/chat-answer.ts';
import { ClientClosedError, disconnectSignal } from '../helpers/disconnect.ts';
import { requireClient } from '../helpers/require-client.ts';
import { sendAnswerStream } from '../helpers/sse-answer.ts';
import { publicRateLimit } from '../plugins/chat-rate-limit.ts';
import { registerPublicCors } from '../plugins/public-cors.ts';

/**
 * POST /api/chat (spec §4.1) and POST /api/chat/stream, in the public scope. Order of checks:
 * body (400) → client (404) → Origin against allowedOrigins (403) → rate limit (429) → answer.
 */
export function chatRoutes(deps: GatewayDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const service = createChatService(deps);
    const cors = registerPublicCors(app, { requireClient: (clientId) => requireClient(deps.pool, clientId) }, [
      '/api/chat',
      '/api/chat/stream',
    ]);
    const limit = publicRateLimit(deps);
    const preHandler = [cors.preHandler, limit] as preHandlerAsyncHookHandler[];

    app.post(
      '/api/chat',
      {
        onRequest: cors.onRequest,
        preHandler,
        schema: {
          tags: ['chat'],
          summary: "Answer a visitor's message from the client's knowledge base",
          body: chatBody,
          response: { 200: chatResponse, 400: errorBody, 403: errorBody, 404: errorBody, 429: errorBody, 500: errorBody, 503: errorBody },
        },
      },
      async (req, reply) => {
        const signal = disconnectSignal(reply);
        const client = req.publicClient;
        if (!client) throw new Error('public client guard did not run');
        try {
          const response = await service.answer(chatRequest(client, req.body, signal));
          app.outcomes.answer(response);
          return response;
        } catch (err) {
          if (signal.aborted) throw new ClientClosedError();
          throw publicChatError(err, req.log);
        }
      },
    );

    /**
     * The /api/chat request answered as Server-Sent Events (docs/retrieval.md, "Streaming").
     * Validation, client lookup, CORS, the rate limit, history, rewriting and retrieval all happen
     * before the first byte, so their errors are ordinary JSON responses with their status.
     */
    app.post(
      '/api/chat/stream',
      {
        onRequest: cors.onRequest,
        preHandler,
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
        await sendAnswerStream(service, prepared, req, reply, signal, (response) => app.outcomes.answer(response));
      },
    );
  };
}
