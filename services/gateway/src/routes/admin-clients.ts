import { deleteClient, insertClient, listClients, updateClient } from '@kbchat/shared/db/clients';
import { ClientNotFoundError } from '@kbchat/shared/errors';
import {
  clientView,
  clientWithSecretView,
  createClientBody,
  toClientView,
  updateClientBody,
  widgetPatch,
} from '@kbchat/shared/schemas/clients';
import { errorBody, paginationQuery } from '@kbchat/shared/schemas/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GatewayDeps } from '../deps.ts';
import { requireClient } from '../helpers/require-client.ts';
import { assertWebhookUrlAllowed } from '../helpers/webhook-url.ts';

const clientParams = z.object({ clientId: z.string() });

/** Client administration (spec §2 "Client"; every route is in the OpenAPI page at /docs). Registered inside the authenticated admin scope. */
export function adminClientRoutes(deps: GatewayDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/api/admin/clients',
      {
        schema: {
          tags: ['admin'],
          summary: 'Create a client (tenant). The webhook secret is returned only here.',
          body: createClientBody,
          response: { 201: clientWithSecretView, 400: errorBody },
        },
      },
      async (req, reply) => {
        if (req.body.leadWebhookUrl) await assertWebhookUrlAllowed(deps.config, req.body.leadWebhookUrl);
        const row = await insertClient(deps.pool, { ...req.body, widget: req.body.widget && widgetPatch(req.body.widget).set });
        return reply.status(201).send({ ...toClientView(row), webhookSecret: row.webhook_secret });
      },
    );

    app.get(
      '/api/admin/clients',
      {
        schema: {
          tags: ['admin'],
          summary: 'List clients',
          querystring: paginationQuery,
          response: { 200: z.object({ clients: z.array(clientView), total: z.number(), limit: z.number(), offset: z.number() }) },
        },
      },
      async (req) => {
        const { rows, total } = await listClients(deps.pool, req.query);
        return { clients: rows.map(toClientView), total, limit: req.query.limit, offset: req.query.offset };
      },
    );

    app.get(
      '/api/admin/clients/:clientId',
      { schema: { tags: ['admin'], summary: 'Get a client', params: clientParams, response: { 200: clientView, 404: errorBody } } },
      async (req) => {
        return toClientView(await requireClient(deps.pool, req.params.clientId));
      },
    );

    app.patch(
      '/api/admin/clients/:clientId',
      {
        schema: {
          tags: ['admin'],
          summary: 'Update a client; rotateWebhookSecret returns the new secret once',
          params: clientParams,
          body: updateClientBody,
          response: { 200: clientView.extend({ webhookSecret: z.string().optional() }), 400: errorBody, 404: errorBody },
        },
      },
      async (req) => {
        if (req.body.leadWebhookUrl) await assertWebhookUrlAllowed(deps.config, req.body.leadWebhookUrl);
        const row = await updateClient(deps.pool, req.params.clientId, {
          ...req.body,
          widget: req.body.widget && widgetPatch(req.body.widget),
        });
        if (!row) throw new ClientNotFoundError();
        return { ...toClientView(row), ...(req.body.rotateWebhookSecret ? { webhookSecret: row.webhook_secret } : {}) };
      },
    );

    app.delete(
      '/api/admin/clients/:clientId',
      {
        schema: {
          tags: ['admin'],
          summary: 'Delete a client and all of its data',
          params: clientParams,
          response: { 200: z.object({ success: z.boolean(), clientId: z.string(), message: z.string() }), 404: errorBody },
        },
      },
      async (req) => {
        const deleted = await deleteClient(deps.pool, req.params.clientId);
        if (!deleted) throw new ClientNotFoundError();
        return { success: true, clientId: req.params.clientId, message: 'Client and all its data deleted' };
      },
    );
  };
}
