import { prefersAsync, startCrawlJob, waitForJob } from '@kbchat/shared/jobs/start-job';
import { errorBody } from '@kbchat/shared/schemas/common';
import { crawlRequestBody, crawlResult, jobAccepted } from '@kbchat/shared/schemas/crawl';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { GatewayDeps } from '../deps.ts';
import { sendAccepted } from '../helpers/accepted.ts';
import { disconnectSignal } from '../helpers/disconnect.ts';

/**
 * POST /api/admin/crawl (spec §4.2): sync by default — 200 with the spec's body once pages are
 * stored and embedded (or their embedding failed); `wait: false`, `Prefer: respond-async`, or a
 * crawl outlasting CRAWL_SYNC_WAIT_MS → 202 with a statusUrl. details is a string here (spec §7).
 * A crawl of a source that is already being crawled joins the running job: its jobId, its result.
 */
export function adminCrawlRoutes(deps: GatewayDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/api/admin/crawl',
      {
        config: { errorDetails: 'string' },
        schema: {
          tags: ['admin'],
          summary: 'Crawl a website into the client knowledge base',
          description:
            'Waits for the result (200) unless `wait` is false or the request sends `Prefer: respond-async`, or the crawl takes longer than CRAWL_SYNC_WAIT_MS: then 202 with a statusUrl to poll.',
          body: crawlRequestBody(deps.config.MAX_PAGES_LIMIT),
          response: { 200: crawlResult, 202: jobAccepted, 400: errorBody, 404: errorBody },
        },
      },
      async (req, reply) => {
        const { job, joined } = await startCrawlJob(
          deps,
          {
            clientId: req.body.clientId,
            url: req.body.url,
            maxPages: req.body.maxPages ?? deps.config.MAX_PAGES_DEFAULT,
            render: req.body.render ?? 'auto',
            ...(req.body.include ? { include: req.body.include } : {}),
            ...(req.body.exclude ? { exclude: req.body.exclude } : {}),
          },
          'no client has this clientId',
        );
        const asked = req.body.wait === false || prefersAsync(req.headers.prefer);
        const finished = asked ? undefined : await waitForJob(deps.pool, job.id, deps.config.CRAWL_SYNC_WAIT_MS, disconnectSignal(reply));
        if (finished?.kind === 'crawl' && finished.result) return reply.status(200).send(finished.result);
        return sendAccepted(deps, req, reply, finished ?? job, asked, joined);
      },
    );
  };
}
