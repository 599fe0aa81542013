import { captureLead, type LeadServiceDeps, quotaHeaders } from '@kbchat/shared/leads/lead-service';
import { errorBody } from '@kbchat/shared/schemas/common';
import { leadBody, leadResponse } from '@kbchat/shared/schemas/leads';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

/** POST /api/lead (spec §4.4). Public: identified by clientId, no credential. */
export function leadRoutes(deps: LeadServiceDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/api/lead',
      {
        schema: {
          tags: ['public'],
          summary: 'Capture a lead; the client webhook is notified (lead.created) when one is configured',
          body: leadBody,
          response: { 200: leadResponse, 400: errorBody, 404: errorBody, 429: errorBody },
        },
      },
      async (req, reply) => {
        const { leadId, quota } = await captureLead(deps, req.body, req.ip);
        if (quota) reply.headers(quotaHeaders(quota));
        return { success: true as const, leadId, message: 'Thank you! Your details have been received.' };
      },
    );
  };
}
