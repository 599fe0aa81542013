import type { JobHandlers } from '@kbchat/shared/queue/contract';
import type { crawlQueue } from '@kbchat/shared/queue/queues';
import type { Runtime } from '@kbchat/shared/runtime';
import { UnrecoverableError } from 'bullmq';

// Placeholder until the crawl pipeline lands (issue 4).
export function crawlHandlers(_rt: Runtime): JobHandlers<typeof crawlQueue> {
  const todo = async () => {
    throw new UnrecoverableError('crawling is not implemented yet');
  };
  return { 'crawl.start': todo, 'crawl.page': todo, 'crawl.finish': todo };
}
