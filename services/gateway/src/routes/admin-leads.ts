import { listLeads } from '@kbchat/shared/db/leads';
import { listDeliveries } from '@kbchat/shared/db/webhook-deliveries';
import { errorBody, paginationQuery } from '@kbchat/shared/schemas/common';
import { deliveryList, deliveryQuery, leadList, toDeliveryView, toLeadView } from '@kbchat/shared/schemas/leads';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GatewayDeps } from '../deps.ts';
import { requireClient } from '../helpers/require-client.ts';

const clientParams = z.object({ clientId: z.string() });

/** A client's leads and its webhook attempt log. Registered inside the authenticated admin scope. */
export function adminLeadRoutes(deps: GatewayDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/admin/clients/:clientId/leads',
      {
        schema: {
          tags: ['admin'],
          summary: "A client's leads, newest first, with each lead's webhook status",
          params: clientParams,
          querystring: paginationQuery,
          response: { 200: leadList, 400: errorBody, 404: errorBody },
        },
      },
      async (req) => {
        const { id: clientId } = await requireClient(deps.pool, req.params.clientId);
        const { rows, total } = await listLeads(deps.pool, clientId, req.query);
        return { leads: rows.map(toLeadView), total, limit: req.query.limit, offset: req.query.offset };
      },
    );

    app.get(
      '/api/admin/clients/:clientId/webhook-deliveries',
      {
        schema: {
          tags: ['admin'],
          summary: "A client's webhook delivery attempts, newest first (optionally of one lead)",
          params: clientParams,
          querystring: deliveryQuery,
          response: { 200: deliveryList, 400: errorBody, 404: errorBody },
        },
      },
      async (req) => {
        const { id: clientId } = await requireClient(deps.pool, req.params.clientId);
        const { rows, total } = await listDeliveries(deps.pool, clientId, req.query);
        return { deliveries: rows.map(toDeliveryView), total, limit: req.query.limit, offset: req.query.offset };
      },
    );
  };
}
