import { type EmbedDeps, embedDocuments, giveUpEmbedding, isRetryableEmbeddingError } from '@kbchat/shared/embedding/embed-documents';
import { isFinalAttempt } from '@kbchat/shared/queue/attempts';
import type { JobHandlers } from '@kbchat/shared/queue/contract';
import type { embedQueue } from '@kbchat/shared/queue/queues';
import { UnrecoverableError } from 'bullmq';

/**
 * embed.documents: embed what the job lists (and what its admin job still waits on). Errors
 * propagate so BullMQ retries with backoff (the openai SDK has already retried 429/5xx honouring
 * Retry-After); on the last attempt, or at once for a request the provider rejects, the documents
 * are given up on — kept without embeddings,
 * counted as failed, the admin job told to run generate-embeddings.
 */
export function embedHandlers(deps: EmbedDeps): JobHandlers<typeof embedQueue> {
  return {
    'embed.documents': async (data, job) => {
      // The lease owner is the BullMQ job: a retry (here or in another process) takes its documents back.
      const owner = `embed-${job.id}`;
      try {
        return await embedDocuments(deps, data, owner);
      } catch (err) {
        const retryable = !(err instanceof UnrecoverableError) && isRetryableEmbeddingError(err);
        if (!retryable || isFinalAttempt(job)) {
          await giveUpEmbedding(deps, data, owner, err);
          // A rejected request (bad key, bad input) fails the same way every time: no BullMQ retry.
          if (!retryable) throw new UnrecoverableError((err as Error).message);
        }
        throw err;
      }
    },
  };
}
