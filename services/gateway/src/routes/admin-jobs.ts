import { NotFoundError } from '@kbchat/shared/errors';
import { findJob } from '@kbchat/shared/jobs/job-store';
import { errorBody } from '@kbchat/shared/schemas/common';
import { jobParams, jobView, toJobView } from '@kbchat/shared/schemas/jobs';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { GatewayDeps } from '../deps.ts';

/** GET /api/admin/jobs/:jobId: state, live progress counters and, once finished, the result. */
export function adminJobRoutes(deps: GatewayDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/admin/jobs/:jobId',
      {
        schema: {
          tags: ['admin'],
          summary: 'A crawl or generate-embeddings job: status, progress, result',
          params: jobParams,
          response: { 200: jobView, 404: errorBody },
        },
      },
      async (req) => {
        const job = await findJob(deps.pool, req.params.jobId);
        if (!job) throw new NotFoundError('Job not found', ['no job has this jobId']);
        return toJobView(job);
      },
    );
  };
}
