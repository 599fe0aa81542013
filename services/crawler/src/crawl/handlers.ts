import { failCrawl } from '@kbchat/shared/jobs/finish-job';
import { findCrawlJob } from '@kbchat/shared/jobs/job-store';
import { runScheduledCrawl } from '@kbchat/shared/pipeline/schedules';
import { isFinalAttempt } from '@kbchat/shared/queue/attempts';
import type { JobHandlers } from '@kbchat/shared/queue/contract';
import type { crawlQueue } from '@kbchat/shared/queue/queues';
import type { CrawlContext } from './context.ts';

/**
 * What a crawl runs — fetching, decoding, HTML and sitemap parsing (linkedom, Readability,
 * htmlparser2, iconv-lite, fast-xml-parser: ~1.5 MB of code) — loaded with the first crawl job: a
 * service that has not crawled since its start never holds it (docs/performance.md, 22.2).
 */
let work: Promise<typeof import('./crawl-run.ts') & typeof import('./page.ts')> | undefined;
function crawlWork() {
  work ??= Promise.all([import('./crawl-run.ts'), import('./page.ts')]).then(([run, page]) => ({ ...run, ...page }));
  return work;
}

/** Thin processors: parse (done by registerWorker), call the feature function, let errors propagate for a retry. */
export function crawlHandlers(ctx: CrawlContext): JobHandlers<typeof crawlQueue> {
  return {
    'crawl.start': async (data, job) => {
      try {
        return await (await crawlWork()).startCrawl(ctx, data);
      } catch (err) {
        // The last attempt: end the crawl as failed rather than leave it active forever.
        if (isFinalAttempt(job, err)) {
          const row = await findCrawlJob(ctx.rt.pool, data.jobId);
          if (row) await failCrawl(ctx.rt.pool, row, `the crawl could not be started (${(err as Error).message.slice(0, 200)})`);
        }
        throw err;
      }
    },
    'crawl.page': async (data, job) => (await crawlWork()).processPage(ctx, data, job),
    'crawl.finish': async (data) => (await crawlWork()).finishCrawl(ctx, data),
    'crawl.scheduled': (data) => runScheduledCrawl(ctx.rt, data),
  };
}
