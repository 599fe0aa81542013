import { deleteExpiredConversations } from '@kbchat/shared/db/conversations';
import { graphMemory, graphMemoryWarning, reconcileVectorIndexes } from '@kbchat/shared/db/vector-index';
import { startPeriodic } from '@kbchat/shared/pipeline/periodic';
import type { Runtime } from '@kbchat/shared/runtime';

/**
 * Enforces each client's transcriptRetentionDays (docs/operators.md): conversations whose last
 * message is older go with their messages. One process of the deployment at a time; each tick
 * deletes in batches until none is left, so a backlog never holds one long transaction.
 */
export function startRetentionSweep(rt: Pick<Runtime, 'config' | 'log' | 'pool' | 'redis'>, intervalMs: number): { stop(): Promise<void> } {
  return startPeriodic({
    name: 'transcript-retention',
    redis: rt.redis,
    redisPrefix: rt.config.REDIS_PREFIX,
    intervalMs,
    log: rt.log,
    tick: async () => {
      let total = 0;
      for (let removed = await deleteExpiredConversations(rt.pool); removed > 0; removed = await deleteExpiredConversations(rt.pool)) {
        total += removed;
      }
      if (total > 0) rt.log.info({ conversations: total }, 'transcripts past their retention deleted');
    },
  });
}

/**
 * Gives tenants past the exact scan their own HNSW index, and takes it from shrunk or deleted ones
 * (packages/shared/src/db/vector-index.ts). Only on a Postgres server: the embedded database is one
 * backend, which a graph build would hold for its whole length, so it always scans exactly.
 */
export function startVectorIndexSweep(rt: Pick<Runtime, 'config' | 'log' | 'pool' | 'redis'>): { stop(): Promise<void> } {
  const abort = new AbortController();
  // Said when the process first sweeps and after each build, not every tick.
  let checkMemory = true;
  const periodic = startPeriodic({
    name: 'vector-indexes',
    redis: rt.redis,
    redisPrefix: rt.config.REDIS_PREFIX,
    intervalMs: rt.config.VECTOR_INDEX_SWEEP_MS,
    log: rt.log,
    tick: async () => {
      const { built, dropped } = await reconcileVectorIndexes(rt.pool, {
        exactScanMaxDocs: rt.config.RETRIEVAL_EXACT_SCAN_MAX_DOCS,
        log: rt.log,
        signal: abort.signal,
      });
      if (dropped.length > 0) rt.log.info({ indexes: dropped }, 'vector indexes no longer needed dropped');
      if (checkMemory || built.length > 0) {
        checkMemory = false;
        const memory = await graphMemory(rt.pool);
        const warning = graphMemoryWarning(memory);
        if (warning) rt.log.warn(memory, warning);
      }
    },
  });
  return {
    async stop() {
      abort.abort();
      await periodic.stop();
    },
  };
}
