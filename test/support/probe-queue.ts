import { defineQueue, RETENTION } from '@kbchat/shared/queue/contract';
import { z } from 'zod';

/** A queue used only by the contract test, defined exactly as the real ones are. */
export const probeQueue = defineQueue({
  name: 'probe',
  jobs: { 'probe.echo': z.object({ n: z.number().int(), label: z.string().min(1) }) },
  jobOptions: () => ({ defaultJobOptions: { attempts: 3, backoff: { type: 'fixed', delay: 100 }, ...RETENTION } }),
});
