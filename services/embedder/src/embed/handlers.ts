import type { JobHandlers } from '@kbchat/shared/queue/contract';
import type { embedQueue } from '@kbchat/shared/queue/queues';
import type { Runtime } from '@kbchat/shared/runtime';
import { UnrecoverableError } from 'bullmq';

// Placeholder until the embedding pipeline lands (issue 4).
export function embedHandlers(_rt: Runtime): JobHandlers<typeof embedQueue> {
  return {
    'embed.documents': async () => {
      throw new UnrecoverableError('embedding is not implemented yet');
    },
  };
}
