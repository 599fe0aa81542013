import { registerWorker } from '@kbchat/shared/queue/contract';
import { embedQueue } from '@kbchat/shared/queue/queues';
import { createWorkerRedis } from '@kbchat/shared/redis';
import type { Runtime } from '@kbchat/shared/runtime';
import type { Worker } from 'bullmq';
import { embedHandlers } from './embed/handlers.ts';

export interface EmbedderWorkers {
  workers: Worker[];
  close(): Promise<void>;
}

/** The embedder service: embed jobs (batching, token limits, provider calls, cost accounting). */
export function buildEmbedder(rt: Runtime): EmbedderWorkers {
  const connection = createWorkerRedis(rt.redisUrl);
  connection.on('error', () => {});
  const log = rt.log.child({ service: 'embedder' });
  const workers = [
    registerWorker(embedQueue, embedHandlers(rt), {
      connection,
      redisPrefix: rt.config.REDIS_PREFIX,
      concurrency: rt.config.EMBED_CONCURRENCY,
      log,
    }),
  ];
  return {
    workers,
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      connection.disconnect();
    },
  };
}
