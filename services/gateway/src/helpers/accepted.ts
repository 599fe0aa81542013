import type { JobRow } from '@kbchat/shared/jobs/job-data';
import { prefersAsync } from '@kbchat/shared/jobs/start-job';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayDeps } from '../deps.ts';

/** Where a job's status is polled: PUBLIC_URL when set (behind a proxy), else the request's own host. */
function statusUrlOf(deps: GatewayDeps, req: FastifyRequest, jobId: string): string {
  const base = deps.config.PUBLIC_URL?.replace(/\/+$/, '') ?? `${req.protocol}://${req.host}`;
  return `${base}/api/admin/jobs/${jobId}`;
}

/**
 * The 202 of the crawl and generate-embeddings endpoints: where to poll, and Location saying the
 * same for clients that follow it. `asked` = the caller asked for async (else the sync wait ran
 * out); `joined` = the request joined a crawl of the same source already running.
 */
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
