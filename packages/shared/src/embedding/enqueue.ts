import type { Queues } from '../runtime.ts';

/** Ids per embed job: one full API request's worth (an embed job also picks up its admin job's other waiting documents). */
export const EMBED_JOB_SLICE = 2048;

/**
 * Enqueues embed jobs for documents, in slices, with deterministic BullMQ ids derived from `key`
 * (e.g. the crawl job and page): enqueueing the same documents twice is one job.
 */
export async function enqueueEmbedding(
  queues: Pick<Queues, 'embed'>,
  input: { clientId: string; jobId?: string; documentIds: string[]; key: string; delayMs?: number },
): Promise<number> {
  let jobs = 0;
  for (let i = 0; i < input.documentIds.length; i += EMBED_JOB_SLICE) {
    const slice = input.documentIds.slice(i, i + EMBED_JOB_SLICE);
    await queues.embed.add(
      'embed.documents',
      { clientId: input.clientId, ...(input.jobId ? { jobId: input.jobId } : {}), documentIds: slice },
      {
        jobId: i === 0 ? input.key : `${input.key}-${i / EMBED_JOB_SLICE}`,
        ...(input.delayMs ? { delay: input.delayMs } : {}),
      },
    );
    jobs++;
  }
  return jobs;
}
