import { refreshLsa } from '@kbchat/shared/db/lsa';
import type { CrawlContext } from './context.ts';

/**
 * The client's related words, learnt from what its pages now hold (docs/retrieval.md). Seconds of
 * CPU for a large site, outside any transaction; a failure keeps the previous vectors (the other
 * lists still answer) and is logged, and the crawl watchdog tries again (they stay stale).
 */
export async function rebuildRelatedWords(ctx: CrawlContext, job: { id?: string; client_id: string }): Promise<void> {
  try {
    const started = performance.now();
    const chunks = await refreshLsa(ctx.rt.pool, job.client_id);
    ctx.rt.log.info({ jobId: job.id, chunks, ms: Math.round(performance.now() - started) }, 'latent semantic vectors rebuilt');
  } catch (err) {
    ctx.rt.log.error({ jobId: job.id, err: { message: (err as Error).message } }, 'latent semantic vectors not rebuilt');
  }
}
