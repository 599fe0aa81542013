import type { JobHandlers } from '@kbchat/shared/queue/contract';
import type { webhookQueue } from '@kbchat/shared/queue/queues';
import type { Runtime } from '@kbchat/shared/runtime';
import { UnrecoverableError } from 'bullmq';

// Placeholder until lead webhooks land (issue 3).
export function webhookHandlers(_rt: Runtime): JobHandlers<typeof webhookQueue> {
  return {
    'webhook.lead': async () => {
      throw new UnrecoverableError('webhooks are not implemented yet');
    },
  };
}
