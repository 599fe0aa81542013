import { ForbiddenError } from '@kbchat/shared/errors';
import { toWidgetSettingsView, widgetSettingsView } from '@kbchat/shared/schemas/clients';
import { errorBody } from '@kbchat/shared/schemas/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GatewayDeps } from '../deps.ts';
import { requireClient } from '../helpers/require-client.ts';
import { isOriginAllowed } from '../plugins/public-cors.ts';

// Short: an operator's change reaches visitors within a minute, and a busy site asks once a minute per visitor at most.
const CONFIG_CACHE = 'public, max-age=60';

/**
 * GET /api/widget-config?clientId=… — the client's widget settings and nothing else (docs/widget.md,
 * "Settings"), for /widget.js. Public like /api/chat, with the same CORS rule: any origin while the
 * client's allowedOrigins is empty, else only those (403 without Access-Control-Allow-Origin). A GET
 * without custom headers needs no preflight.
 */
export function widgetConfigRoutes(deps: GatewayDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/widget-config',
      {
        schema: {
          tags: ['public'],
          summary: "The widget's look for a client: title, greeting, colour, starter questions, position (null = the default)",
          querystring: z.object({ clientId: z.string({ error: 'is required' }) }),
          response: { 200: widgetSettingsView, 400: errorBody, 403: errorBody, 404: errorBody },
        },
        async onRequest(req, reply) {
          reply.header('vary', 'Origin');
          const origin = req.headers.origin;
          if (origin) reply.header('access-control-allow-origin', origin);
        },
      },
      async (req, reply) => {
        const client = await requireClient(deps.pool, req.query.clientId);
        const origin = req.headers.origin;
        if (origin !== undefined && !isOriginAllowed(origin, client.allowed_origins)) {
          reply.removeHeader('access-control-allow-origin');
          throw new ForbiddenError('Origin not allowed', ["the calling page's origin is not in this client's allowedOrigins"]);
        }
        reply.header('cache-control', CONFIG_CACHE);
        return toWidgetSettingsView(client.widget);
      },
    );
  };
}
