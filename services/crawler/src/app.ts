import { startOutboxSweep } from '@kbchat/shared/leads/outbox';
import { reconcileSchedules } from '@kbchat/shared/pipeline/schedules';
import { registerWorker } from '@kbchat/shared/queue/contract';
import { crawlQueue, webhookQueue } from '@kbchat/shared/queue/queues';
import { createWorkerRedis, logRedisErrors } from '@kbchat/shared/redis';
import type { Runtime } from '@kbchat/shared/runtime';
import type { Worker } from 'bullmq';
import { createCrawlContext } from './crawl/context.ts';
import { crawlHandlers } from './crawl/handlers.ts';
import { startCrawlWatchdog } from './crawl/watchdog.ts';
import { closeExtractPool } from './web/extract-pool.ts';
import { webhookHandlers, webhookWorkerOptions } from './webhook/handlers.ts';

export interface CrawlerWorkers {
  workers: Worker[];
  close(): Promise<void>;
}

/**
 * The crawler service: crawl jobs and lead webhooks — every request to a user-supplied URL
 * leaves from this service. Workers are registered here and nowhere else.
 */
export function buildCrawler(rt: Runtime): CrawlerWorkers {
  const log = rt.log.child({ service: 'crawler' });
  const connection = createWorkerRedis(rt.redisUrl);
  connection.on('error', logRedisErrors(log, { connection: 'workers' }));
  const crawl = createCrawlContext({ ...rt, log });
  const workers = [
    registerWorker(crawlQueue, crawlHandlers(crawl), {
      connection,
      redisPrefix: rt.config.REDIS_PREFIX,
      owner: rt.installId,
      concurrency: rt.config.CRAWL_CONCURRENCY,
      log,
      // A killed worker's pages return to the queue once their lock lapses; a page may stall twice
      // (two crashes) before BullMQ gives up on it and the watchdog counts it as failed.
      worker: { lockDuration: rt.config.WORKER_LOCK_MS, stalledInterval: rt.config.WORKER_LOCK_MS, maxStalledCount: 2 },
    }),
    registerWorker(webhookQueue, webhookHandlers(rt), {
      connection,
      redisPrefix: rt.config.REDIS_PREFIX,
      owner: rt.installId,
      concurrency: rt.config.WEBHOOK_CONCURRENCY,
      log,
      worker: webhookWorkerOptions,
    }),
  ];
  // Leads committed while Redis was away get their webhook job from here (the lead outbox).
  const outbox = startOutboxSweep({ ...rt, log }, rt.config.WEBHOOK_OUTBOX_SWEEP_MS);
  // Claimed-but-lost pages, undrained ends, lost starts: see docs/pipeline.md "Crash safety".
  const watchdog = startCrawlWatchdog(crawl);
  // Re-crawl schedulers from the sources' rows: a Redis that lost them gets them back.
  let reconcileTimer: NodeJS.Timeout | undefined;
  const reconcile = () => {
    reconcileSchedules(rt.pool, rt.queues, log).catch((err: Error) => {
      log.warn({ err: { message: err.message } }, 're-crawl schedules not registered yet; retrying in 30 s');
      reconcileTimer = setTimeout(reconcile, 30_000);
      reconcileTimer.unref();
    });
  };
  reconcile();
  return {
    workers,
    async close() {
      clearTimeout(reconcileTimer);
      // close() stops fetching and waits for in-flight jobs; anything cut off returns via the stalled-job check.
      await outbox.stop();
      await watchdog.stop();
      await Promise.all(workers.map((w) => w.close()));
      await closeExtractPool();
      await crawl.close();
      connection.disconnect();
    },
  };
}
