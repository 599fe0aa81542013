import { prefersAsync, startGenerateEmbeddingsJob, waitForJob } from '@kbchat/shared/jobs/start-job';
import { createEmbeddingProvider } from '@kbchat/shared/providers/embeddings/embeddings';
import { errorBody } from '@kbchat/shared/schemas/common';
import { jobAccepted } from '@kbchat/shared/schemas/crawl';
import { generateEmbeddingsBody, generateEmbeddingsResult } from '@kbchat/shared/schemas/embeddings';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { GatewayDeps } from '../deps.ts';
import { sendAccepted } from '../helpers/accepted.ts';
import { disconnectSignal } from '../helpers/disconnect.ts';

/**
 * POST /api/admin/generate-embeddings (spec §4.3): embeds the client's documents that have no
 * embedding or another model's; `skipped` = those already embedded with the current model.
 * Same sync/async rule as the crawl.
 */
export function adminEmbeddingRoutes(deps: GatewayDeps): FastifyPluginAsyncZod {
  // The model documents must have: the embedder runs on the same configuration.
  const model = createEmbeddingProvider(deps.config).model;
  return async (app) => {
    app.post(
      '/api/admin/generate-embeddings',
      {
        schema: {
          tags: ['admin'],
          summary: 'Embed the client documents that lack an embedding of the current model',
          body: generateEmbeddingsBody,
          response: { 200: generateEmbeddingsResult, 202: jobAccepted, 400: errorBody, 404: errorBody },
        },
      },
      async (req, reply) => {
        const { job } = await startGenerateEmbeddingsJob(deps, { clientId: req.body.clientId, model }, ['no client has this clientId']);
        const asked = req.body.wait === false || prefersAsync(req.headers.prefer);
        const finished = await waitForJob(deps.pool, job.id, asked ? 0 : deps.config.CRAWL_SYNC_WAIT_MS, disconnectSignal(reply));
        if (finished?.kind === 'generate-embeddings' && finished.result && !asked) return reply.status(200).send(finished.result);
        return sendAccepted(deps, req, reply, finished ?? job, asked);
      },
    );
  };
}
