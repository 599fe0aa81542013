import {
  type ConversationRow,
  conversationMessages,
  deleteConversation,
  listConversations,
  statsSeries,
} from '@kbchat/shared/db/conversations';
import { NotFoundError } from '@kbchat/shared/errors';
import { SESSION_ID_PATTERN } from '@kbchat/shared/schemas/chat';
import { errorBody } from '@kbchat/shared/schemas/common';
import { conversationList, conversationsQuery, conversationView, statsQuery, statsView } from '@kbchat/shared/schemas/conversations';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GatewayDeps } from '../deps.ts';
import { requireClient } from '../helpers/require-client.ts';

const clientParams = z.object({ clientId: z.string() });
const sessionParams = z.object({ clientId: z.string(), sessionId: z.string().max(200) });
const sessionNotFound = () => new NotFoundError('Conversation not found', ['this client has no conversation with this sessionId']);
/** A session id the chat would refuse (a NUL, a space, …) names no conversation, and never reaches SQL. */
const storableSessionId = (sessionId: string) => SESSION_ID_PATTERN.test(sessionId);

function summaryView(r: ConversationRow) {
  return {
    sessionId: r.session_id,
    startedAt: r.started_at.toISOString(),
    lastMessageAt: r.last_message_at.toISOString(),
    messageCount: r.message_count,
    firstQuestion: r.first_question,
    pageUrl: r.page_url,
    leadCaptured: r.lead_captured,
    declinedCount: r.declined_count,
    feedback: { up: r.feedback_up, down: r.feedback_down },
  };
}

/**
 * What visitors asked and got (docs/operators.md): conversations with their transcripts, a visitor's
 * erasure, and the client's figures per day or week. Registered inside the authenticated admin scope.
 */
export function adminConversationRoutes(deps: GatewayDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/admin/clients/:clientId/conversations',
      {
        schema: {
          tags: ['admin'],
          summary: "A client's conversations, newest first; q searches the messages, lead and feedback filter",
          params: clientParams,
          querystring: conversationsQuery,
          response: { 200: conversationList, 400: errorBody, 404: errorBody },
        },
      },
      async (req) => {
        const client = await requireClient(deps.pool, req.params.clientId);
        const { items, total } = await listConversations(deps.pool, { clientId: client.id, ...req.query });
        return { items: items.map(summaryView), total };
      },
    );

    app.get(
      '/api/admin/clients/:clientId/conversations/:sessionId',
      {
        schema: {
          tags: ['admin'],
          summary: 'One conversation: every message with its sources, whether it declined, and the visitor’s rating',
          params: sessionParams,
          response: { 200: conversationView, 404: errorBody },
        },
      },
      async (req) => {
        const client = await requireClient(deps.pool, req.params.clientId);
        if (!storableSessionId(req.params.sessionId)) throw sessionNotFound();
        const messages = await conversationMessages(deps.pool, client.id, req.params.sessionId);
        if (!messages) throw sessionNotFound();
        return {
          sessionId: req.params.sessionId,
          messages: messages.map((m) => ({
            messageId: m.public_id,
            role: m.role,
            content: m.content,
            sources: m.sources,
            leadCaptureIntent: m.lead_capture_intent,
            declined: m.declined,
            feedback: m.feedback,
            feedbackComment: m.feedback_comment,
            createdAt: m.created_at.toISOString(),
          })),
        };
      },
    );

    app.delete(
      '/api/admin/clients/:clientId/conversations/:sessionId',
      {
        schema: {
          tags: ['admin'],
          summary: 'Erase a conversation (a visitor’s request): the session and its messages; leads stay',
          params: sessionParams,
          response: { 204: z.null(), 404: errorBody },
        },
      },
      async (req, reply) => {
        const client = await requireClient(deps.pool, req.params.clientId);
        if (!storableSessionId(req.params.sessionId) || !(await deleteConversation(deps.pool, client.id, req.params.sessionId))) {
          throw sessionNotFound();
        }
        return reply.status(204).send(null);
      },
    );

    app.get(
      '/api/admin/clients/:clientId/stats',
      {
        schema: {
          tags: ['admin'],
          summary: 'Conversations, messages, answered and declined answers, leads, ratings, tokens and cost per day or week (UTC)',
          params: clientParams,
          querystring: statsQuery,
          response: { 200: statsView, 400: errorBody, 404: errorBody },
        },
      },
      async (req) => {
        const client = await requireClient(deps.pool, req.params.clientId);
        const rows = await statsSeries(deps.pool, client.id, req.query.from, req.query.to, req.query.interval);
        const series = rows.map((r) => ({
          start: r.start.toISOString(),
          conversations: r.conversations,
          messages: r.messages,
          answered: r.answered,
          declined: r.declined,
          leads: r.leads,
          feedbackUp: r.feedback_up,
          feedbackDown: r.feedback_down,
          tokens: r.tokens,
          costUsd: Math.round(r.cost_usd * 1e6) / 1e6,
        }));
        const totals = {
          conversations: 0,
          messages: 0,
          answered: 0,
          declined: 0,
          leads: 0,
          feedbackUp: 0,
          feedbackDown: 0,
          tokens: 0,
          costUsd: 0,
        };
        for (const s of series) for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += s[k];
        totals.costUsd = Math.round(totals.costUsd * 1e6) / 1e6;
        return { series, totals };
      },
    );
  };
}
