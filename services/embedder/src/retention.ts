import { deleteExpiredConversations } from '@kbchat/shared/db/conversations';
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
