import { createChatService } from '@kbchat/shared/chat/chat-service';
import type { Runtime } from '@kbchat/shared/runtime';
import { chatBody, chatResponse } from '@kbchat/shared/schemas/chat';
import { errorBody } from '@kbchat/shared/schemas/common';
import type { preHandlerAsyncHookHandler } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { chatRateLimit } from '../plugins/chat-rate-limit.ts';
import { registerPublicCors } from '../plugins/public-cors.ts';
import { ClientClosedError, chatRequest, chatStreamRoute, disconnectSignal, publicChatError } from './chat-stream.ts';

/**
 * POST /api/chat (spec §4.1) and POST /api/chat/stream, in the public scope. Order of checks:
 * body (400) → client (404) → Origin against allowedOrigins (403) → rate limit (429) → answer.
 */
export function chatRoutes(rt: Pick<Runtime, 'config' | 'log' | 'pool' | 'redis'>): FastifyPluginAsyncZod {
  return async (app) => {
    const service = createChatService(rt);
    const cors = registerPublicCors(app, rt, ['/api/chat', '/api/chat/stream']);
    const limit = chatRateLimit({
      redis: rt.redis,
      log: rt.log,
      keyPrefix: rt.config.REDIS_PREFIX,
      limitPerMinute: rt.config.CHAT_RATE_LIMIT_PER_MINUTE,
    });
    const preHandler = [cors.preHandler, limit];

    app.post(
      '/api/chat',
      {
        onRequest: cors.onRequest,
        preHandler: preHandler as preHandlerAsyncHookHandler[],
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
          return await service.answer(chatRequest(client, req.body, signal));
        } catch (err) {
          if (signal.aborted) throw new ClientClosedError();
          throw publicChatError(err, req.log);
        }
      },
    );

    await app.register(chatStreamRoute(service, { onRequest: cors.onRequest, preHandler }));
  };
}
