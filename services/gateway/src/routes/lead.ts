import { captureLead, quotaHeaders } from '@kbchat/shared/leads/lead-service';
import { errorBody } from '@kbchat/shared/schemas/common';
import { leadBody, leadResponse } from '@kbchat/shared/schemas/leads';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { GatewayDeps } from '../deps.ts';
import { requireClient } from '../helpers/require-client.ts';
import { registerPublicCors } from '../plugins/public-cors.ts';

/** POST /api/lead (spec §4.4). Public: identified by clientId, no credential; CORS from the client's allowedOrigins. */
export function leadRoutes(deps: GatewayDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const cors = registerPublicCors(app, { requireClient: (clientId) => requireClient(deps.pool, clientId) }, ['/api/lead']);
    app.post(
      '/api/lead',
      {
        onRequest: cors.onRequest,
        preHandler: cors.preHandler,
        schema: {
          tags: ['public'],
          summary: 'Capture a lead; the client webhook is notified (lead.created) when one is configured',
          body: leadBody,
          response: { 200: leadResponse, 400: errorBody, 403: errorBody, 404: errorBody, 429: errorBody },
        },
      },
      async (req, reply) => {
        const { leadId, quota } = await captureLead(deps, req.body, req.ip, req.publicClient);
        reply.headers(quotaHeaders(quota));
        app.outcomes.lead();
        return { success: true as const, leadId, message: 'Thank you! Your details have been received.' };
      },
    );
  };
}
