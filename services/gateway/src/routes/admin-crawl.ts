import type { JobRow } from '@kbchat/shared/jobs/job-data';
import { prefersAsync, startCrawlJob, waitForJob } from '@kbchat/shared/jobs/start-job';
import { errorBody } from '@kbchat/shared/schemas/common';
import { crawlRequestBody, crawlResult, jobAccepted } from '@kbchat/shared/schemas/crawl';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { GatewayDeps } from '../app.ts';

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
        const finished = asked ? undefined : await waitForJob(deps.pool, job.id, deps.config.CRAWL_SYNC_WAIT_MS, hangUpSignal(reply));
        if (finished?.kind === 'crawl' && finished.result) return reply.status(200).send(finished.result);
        return sendAccepted(deps, req, reply, finished ?? job, asked, joined);
      },
    );
  };
}

export function statusUrlOf(deps: GatewayDeps, req: FastifyRequest, jobId: string): string {
  const base = deps.config.PUBLIC_URL?.replace(/\/+$/, '') ?? `${req.protocol}://${req.host}`;
  return `${base}/api/admin/jobs/${jobId}`;
}

/** 202 with where to poll; Location says the same for clients that follow it. */
export function sendAccepted(deps: GatewayDeps, req: FastifyRequest, reply: FastifyReply, job: JobRow, asked: boolean, joined = false) {
  const statusUrl = statusUrlOf(deps, req, job.id);
  const joinedNote = joined ? 'A crawl of this source was already running; this request joined it. ' : '';
  if (asked && prefersAsync(req.headers.prefer)) reply.header('preference-applied', 'respond-async');
  return reply
    .status(202)
    .header('location', statusUrl)
    .send({
      success: true,
      jobId: job.id,
      sourceId: job.source_id,
      status: job.status,
      statusUrl,
      message:
        joinedNote +
        (asked
          ? `Accepted: poll ${statusUrl} for progress and the result.`
          : `Still running after ${Math.round(deps.config.CRAWL_SYNC_WAIT_MS / 1000)} s: poll ${statusUrl} for progress and the result.`),
    });
}

/** Aborts when the caller hangs up, so a sync wait does not poll for nobody. The job runs on. */
export function hangUpSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}
