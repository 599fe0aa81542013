import type { JobRow } from '@kbchat/shared/jobs/job-data';
import { prefersAsync } from '@kbchat/shared/jobs/start-job';
import { describePaused, type QueueName } from '@kbchat/shared/pipeline/paused-queues';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayDeps } from '../deps.ts';
import { publicBase } from './public-base.ts';

/** Where a job's status is polled: PUBLIC_URL when set (behind a proxy), else the request's own host. */
function statusUrlOf(deps: GatewayDeps, req: FastifyRequest, jobId: string): string {
  return `${publicBase(deps, req)}/api/admin/jobs/${jobId}`;
}

/**
 * The 202 of the crawl and generate-embeddings endpoints: where to poll, and Location saying the
 * same for clients that follow it. `asked` = the caller asked for async (else the sync wait ran
 * out, or was not started because a queue the job needs is paused); `joined` = the request joined
 * a crawl of the same source already running; `paused` = the queues the job waits on that are paused.
 */
export function sendAccepted(
  deps: GatewayDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  job: JobRow,
  asked: boolean,
  joined = false,
  paused: readonly QueueName[] = [],
) {
  const statusUrl = statusUrlOf(deps, req, job.id);
  const joinedNote = joined ? 'A crawl of this source was already running; this request joined it. ' : '';
  let message: string;
  if (paused.length > 0) {
    const text = describePaused(paused);
    message = `${joinedNote}Accepted, not waited for: ${text[0]?.toUpperCase()}${text.slice(1)} (resume it in /admin/queues); the job runs once it is resumed. Poll ${statusUrl} for progress and the result.`;
  } else {
    if (asked && prefersAsync(req.headers.prefer)) reply.header('preference-applied', 'respond-async');
    message =
      joinedNote +
      (asked
        ? `Accepted: poll ${statusUrl} for progress and the result.`
        : `Still running after ${Math.round(deps.config.CRAWL_SYNC_WAIT_MS / 1000)} s: poll ${statusUrl} for progress and the result.`);
  }
  return reply
    .status(202)
    .header('location', statusUrl)
    .send({ success: true, jobId: job.id, sourceId: job.source_id, status: job.status, statusUrl, message });
}
