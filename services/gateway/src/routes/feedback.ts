import { isUuid } from '@kbchat/shared/db/clients';
import { setFeedback } from '@kbchat/shared/db/conversations';
import { NotFoundError } from '@kbchat/shared/errors';
import { errorBody } from '@kbchat/shared/schemas/common';
import { feedbackBody } from '@kbchat/shared/schemas/conversations';
import type { preHandlerAsyncHookHandler } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GatewayDeps } from '../deps.ts';
import { requireClient } from '../helpers/require-client.ts';
import { publicRateLimit } from '../plugins/chat-rate-limit.ts';
import { registerPublicCors } from '../plugins/public-cors.ts';

/**
 * POST /api/feedback (docs/operators.md): a visitor rates an answer up or down, with an optional
 * comment. Public like /api/chat — CORS by the client's allowedOrigins, its own per-client rate limit
 * of CHAT_RATE_LIMIT_PER_MINUTE with each visitor's share of it — and one rating per answer, the latest winning.
 */
export function feedbackRoutes(deps: GatewayDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const cors = registerPublicCors(app, { requireClient: (clientId) => requireClient(deps.pool, clientId) }, ['/api/feedback']);
    const limit = publicRateLimit(deps, 'feedback');
    app.post(
      '/api/feedback',
      {
        onRequest: cors.onRequest,
        preHandler: [cors.preHandler, limit] as preHandlerAsyncHookHandler[],
        schema: {
          tags: ['public'],
          summary: "Rate an answer up or down (the chat response's messageId); the latest rating of an answer wins",
          body: feedbackBody,
          response: { 200: z.object({ success: z.literal(true) }), 400: errorBody, 403: errorBody, 404: errorBody, 429: errorBody },
        },
      },
      async (req) => {
        const client = req.publicClient;
        if (!client) throw new Error('public client guard did not run');
        const { sessionId, messageId, rating, comment } = req.body;
        const saved =
          isUuid(messageId) &&
          (await setFeedback(deps.pool, { clientId: client.id, sessionId, messageId, rating, comment: comment || null }));
        if (!saved) throw new NotFoundError('Message not found', ['no answer of this client and session has this messageId']);
        app.outcomes.feedback(rating);
        return { success: true as const };
      },
    );
  };
}
