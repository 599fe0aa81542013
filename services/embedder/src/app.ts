import { createEmbeddingProvider } from '@kbchat/shared/providers/embeddings/embeddings';
import { registerWorker } from '@kbchat/shared/queue/contract';
import { embedQueue } from '@kbchat/shared/queue/queues';
import { createWorkerRedis, logRedisErrors } from '@kbchat/shared/redis';
import type { Runtime } from '@kbchat/shared/runtime';
import type { Worker } from 'bullmq';
import { embedHandlers } from './embed/handlers.ts';
import { startEmbedWatchdog } from './embed/watchdog.ts';
import { startRetentionSweep, startVectorIndexSweep } from './retention.ts';

export interface EmbedderWorkers {
  workers: Worker[];
  close(): Promise<void>;
}

/** The embedder service: embed jobs (batching, token limits, provider calls, cost accounting). */
export function buildEmbedder(rt: Runtime): EmbedderWorkers {
  const log = rt.log.child({ service: 'embedder' });
  const connection = createWorkerRedis(rt.redisUrl);
  connection.on('error', logRedisErrors(log, { connection: 'workers' }));
  const provider = createEmbeddingProvider(rt.config);
  const handlers = embedHandlers({
    pool: rt.pool,
    provider,
    log,
    limits: { maxInputs: rt.config.EMBED_BATCH_MAX_INPUTS, maxTokens: rt.config.EMBED_BATCH_MAX_TOKENS },
  });
  const workers = [
    registerWorker(embedQueue, handlers, {
      connection,
      redisPrefix: rt.config.REDIS_PREFIX,
      owner: rt.installId,
      // Each job sends its requests one after another: EMBED_CONCURRENCY bounds requests in flight per process.
      concurrency: rt.config.EMBED_CONCURRENCY,
      log,
      worker: { lockDuration: rt.config.WORKER_LOCK_MS, stalledInterval: rt.config.WORKER_LOCK_MS, maxStalledCount: 2 },
    }),
  ];
  const watchdog = startEmbedWatchdog({ ...rt, log });
  const retention = startRetentionSweep({ ...rt, log }, rt.config.RETENTION_SWEEP_MS);
  const vectorIndexes = rt.config.DATABASE_URL ? startVectorIndexSweep({ ...rt, log }) : undefined;
  return {
    workers,
    async close() {
      await watchdog.stop();
      await retention.stop();
      await vectorIndexes?.stop();
      await Promise.all(workers.map((w) => w.close()));
      connection.disconnect();
    },
  };
}
