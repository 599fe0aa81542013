import { jobsWithUnleasedDocuments } from '@kbchat/shared/db/documents';
import { withTransaction } from '@kbchat/shared/db/pool';
import { enqueueEmbedding } from '@kbchat/shared/embedding/enqueue';
import { settleJobIfDone } from '@kbchat/shared/jobs/finish-job';
import { listUnfinishedJobs } from '@kbchat/shared/jobs/job-store';
import { startPeriodic } from '@kbchat/shared/pipeline/periodic';
import type { Runtime } from '@kbchat/shared/runtime';

/**
 * Heals the embedding side: documents an active admin job waits on that no live lease holds and
 * whose embed job was lost (never reached Redis, or failed for good without giving up on them) get
 * a sweep job — one per admin job per period, so a backlog is not flooded — and a job whose last
 * document was settled by a process that died before settling the job is settled here.
 */
export function startEmbedWatchdog(rt: Pick<Runtime, 'config' | 'log' | 'pool' | 'redis' | 'queues'>): { stop(): Promise<void> } {
  const period = Math.max(rt.config.PIPELINE_WATCHDOG_MS * 4, 60_000);
  return startPeriodic({
    name: 'embed-watchdog',
    redis: rt.redis,
    redisPrefix: rt.config.REDIS_PREFIX,
    intervalMs: rt.config.PIPELINE_WATCHDOG_MS,
    log: rt.log,
    tick: async () => {
      const bucket = Math.floor(Date.now() / period);
      for (const row of await jobsWithUnleasedDocuments(rt.pool, rt.config.REDIS_PREFIX)) {
        await enqueueEmbedding(rt.queues, {
          clientId: row.client_id,
          jobId: row.job_id,
          documentIds: [row.document_id],
          key: `sweep-${row.job_id}-${bucket}`,
        });
      }
      for (const job of await listUnfinishedJobs(rt.pool, rt.config.REDIS_PREFIX, undefined)) {
        if (job.status === 'active' && job.phase === 'embedding') await withTransaction(rt.pool, (tx) => settleJobIfDone(tx, job.id));
      }
    },
  });
}
