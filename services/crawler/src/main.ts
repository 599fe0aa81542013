import { type RunningService, runMain } from '@kbchat/shared/lifecycle';
import type { Runtime } from '@kbchat/shared/runtime';
import { buildCrawler } from './app.ts';

export async function startCrawler(rt: Runtime): Promise<RunningService> {
  const crawler = buildCrawler(rt);
  rt.log.info({ concurrency: rt.config.CRAWL_CONCURRENCY }, 'crawler workers started');
  return { name: 'crawler', stop: () => crawler.close() };
}

if (import.meta.main) await runMain({ crawler: startCrawler }, { RUN: 'crawler' });
