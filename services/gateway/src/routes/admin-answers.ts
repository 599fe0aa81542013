import { groupGaps } from '@kbchat/shared/chat/knowledge-gaps';
import { type CuratedAnswerRow, listCuratedAnswers } from '@kbchat/shared/db/curated-answers';
import { dismissGap, gapDismissals, gapQuestions } from '@kbchat/shared/db/knowledge-gaps';
import { NotFoundError } from '@kbchat/shared/errors';
import { addingAlternate, createCuratedAnswer, deleteCuratedAnswer, updateCuratedAnswer } from '@kbchat/shared/pipeline/curated-answers';
import { createEmbeddingProvider } from '@kbchat/shared/providers/embeddings/embeddings';
import {
  alternateQuestionBody,
  curatedAnswerBody,
  curatedAnswerList,
  curatedAnswerPatch,
  curatedAnswerView,
  knowledgeGapList,
  knowledgeGapsQuery,
} from '@kbchat/shared/schemas/answers';
import { errorBody } from '@kbchat/shared/schemas/common';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GatewayDeps } from '../deps.ts';
import { publicBase } from '../helpers/public-base.ts';
import { requireClient } from '../helpers/require-client.ts';

const clientParams = z.object({ clientId: z.string() });
const answerParams = z.object({ clientId: z.string(), answerId: z.string() });
const gapParams = z.object({ clientId: z.string(), gapId: z.string() });

function view(row: CuratedAnswerRow) {
  return {
    answerId: row.id,
    question: row.question,
    alternateQuestions: row.alternates,
    answer: row.answer,
    url: row.url,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * Knowledge gaps and curated answers (docs/operators.md): what the bot could not answer, and the
 * operator's one-step fix. Registered inside the authenticated admin scope.
 */
export function adminAnswerRoutes(deps: GatewayDeps): FastifyPluginAsyncZod {
  const model = () => createEmbeddingProvider(deps.config).model;
  /** Saves a change (or a function of the answer as it is) to the answer the path names. */
  const edit = async (
    req: FastifyRequest<{ Params: z.infer<typeof answerParams> }>,
    patch: Parameters<typeof updateCuratedAnswer>[1]['patch'],
  ) => {
    const client = await requireClient(deps.pool, req.params.clientId);
    const row = await updateCuratedAnswer(deps, {
      clientId: client.id,
      answerId: req.params.answerId,
      patch,
      publicBase: publicBase(deps, req),
      model: model(),
    });
    return view(row);
  };
  return async (app) => {
    app.get(
      '/api/admin/clients/:clientId/knowledge-gaps',
      {
        schema: {
          tags: ['admin'],
          summary: 'Questions the bot declined and answers rated down, similar questions grouped, most asked first',
          params: clientParams,
          querystring: knowledgeGapsQuery,
          response: { 200: knowledgeGapList, 400: errorBody, 404: errorBody },
        },
      },
      async (req) => {
        const client = await requireClient(deps.pool, req.params.clientId);
        const [questions, curated, dismissed] = await Promise.all([
          gapQuestions(deps.pool, client.id, req.query.from, req.query.to),
          listCuratedAnswers(deps.pool, client.id),
          gapDismissals(deps.pool, client.id),
        ]);
        const items = groupGaps(questions, { curated, dismissed });
        return { items: items.map((g) => ({ ...g, lastAskedAt: g.lastAskedAt.toISOString() })) };
      },
    );

    app.post(
      '/api/admin/clients/:clientId/knowledge-gaps/:gapId/dismiss',
      {
        schema: {
          tags: ['admin'],
          summary: 'Hide a knowledge gap until its question is asked again',
          params: gapParams,
          response: { 200: z.object({ success: z.literal(true) }), 404: errorBody },
        },
      },
      async (req) => {
        const client = await requireClient(deps.pool, req.params.clientId);
        if (!/^[0-9a-f]{16}$/.test(req.params.gapId)) throw new NotFoundError('Gap not found', ['gapId is not a knowledge gap id']);
        await dismissGap(deps.pool, client.id, req.params.gapId);
        return { success: true as const };
      },
    );

    app.get(
      '/api/admin/clients/:clientId/answers',
      {
        schema: {
          tags: ['admin'],
          summary: "The client's curated answers",
          params: clientParams,
          response: { 200: curatedAnswerList, 404: errorBody },
        },
      },
      async (req) => {
        const client = await requireClient(deps.pool, req.params.clientId);
        return { items: (await listCuratedAnswers(deps.pool, client.id)).map(view) };
      },
    );

    app.post(
      '/api/admin/clients/:clientId/answers',
      {
        schema: {
          tags: ['admin'],
          summary: 'Add a curated answer: questions that mean the same in other words are answered with it',
          params: clientParams,
          body: curatedAnswerBody,
          response: { 201: curatedAnswerView, 400: errorBody, 404: errorBody },
        },
      },
      async (req, reply) => {
        const client = await requireClient(deps.pool, req.params.clientId);
        const row = await createCuratedAnswer(deps, {
          clientId: client.id,
          question: req.body.question,
          alternates: req.body.alternateQuestions ?? [],
          answer: req.body.answer,
          url: req.body.url ?? null,
          publicBase: publicBase(deps, req),
          model: model(),
        });
        return reply.status(201).send(view(row));
      },
    );

    app.patch(
      '/api/admin/clients/:clientId/answers/:answerId',
      {
        schema: {
          tags: ['admin'],
          summary: 'Change a curated answer’s question, alternate questions (the list is replaced), answer or url (null removes the url)',
          params: answerParams,
          body: curatedAnswerPatch,
          response: { 200: curatedAnswerView, 400: errorBody, 404: errorBody, 409: errorBody },
        },
      },
      (req) =>
        edit(req, {
          question: req.body.question,
          alternates: req.body.alternateQuestions,
          answer: req.body.answer,
          url: req.body.url,
        }),
    );

    app.post(
      '/api/admin/clients/:clientId/answers/:answerId/questions',
      {
        schema: {
          tags: ['admin'],
          summary:
            'Add another way visitors ask for this answer (a knowledge gap’s wording): questions worded like it are answered with it',
          params: answerParams,
          body: alternateQuestionBody,
          response: { 200: curatedAnswerView, 400: errorBody, 404: errorBody, 409: errorBody },
        },
      },
      (req) => edit(req, addingAlternate(req.body.question)),
    );

    app.delete(
      '/api/admin/clients/:clientId/answers/:answerId',
      {
        schema: {
          tags: ['admin'],
          summary: 'Remove a curated answer; it is never given again',
          params: answerParams,
          response: { 204: z.null(), 404: errorBody },
        },
      },
      async (req, reply) => {
        const client = await requireClient(deps.pool, req.params.clientId);
        await deleteCuratedAnswer(deps, client.id, req.params.answerId);
        return reply.status(204).send(null);
      },
    );
  };
}
