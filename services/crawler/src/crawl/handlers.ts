import { failCrawl } from '@kbchat/shared/jobs/finish-job';
import { findCrawlJob } from '@kbchat/shared/jobs/job-store';
import { runScheduledCrawl } from '@kbchat/shared/pipeline/schedules';
import { isFinalAttempt } from '@kbchat/shared/queue/attempts';
import type { JobHandlers } from '@kbchat/shared/queue/contract';
import type { crawlQueue } from '@kbchat/shared/queue/queues';
import type { CrawlContext } from './context.ts';
import { finishCrawl, startCrawl } from './crawl-run.ts';
import { processPage } from './page.ts';

/** Thin processors: parse (done by registerWorker), call the feature function, let errors propagate for a retry. */
export function crawlHandlers(ctx: CrawlContext): JobHandlers<typeof crawlQueue> {
  return {
    'crawl.start': async (data, job) => {
      try {
        return await startCrawl(ctx, data);
      } catch (err) {
        // The last attempt: end the crawl as failed rather than leave it active forever.
        if (isFinalAttempt(job, err)) {
          const row = await findCrawlJob(ctx.rt.pool, data.jobId);
          if (row) await failCrawl(ctx.rt.pool, row, `the crawl could not be started (${(err as Error).message.slice(0, 200)})`);
        }
        throw err;
      }
    },
    'crawl.page': (data, job) => processPage(ctx, data, job),
    'crawl.finish': (data) => finishCrawl(ctx, data),
    'crawl.scheduled': (data) => runScheduledCrawl(ctx.rt, data),
  };
}
