import { createOutboundClient, DEFAULT_USER_AGENT, findOutboundBlockedError } from '@kbchat/shared/net/outbound';
import { createEmbeddingProvider } from '@kbchat/shared/providers/embeddings/embeddings';
import type { Runtime } from '@kbchat/shared/runtime';
import type { Got } from 'got';
import { createRenderer, type Renderer } from '../web/render.ts';
import type { Robots } from '../web/robots.ts';
import { HostPoliteness } from './politeness.ts';

/** The robots.txt product token we obey (the User-Agent names the same bot). */
export const ROBOTS_TOKEN = 'kbchat-bot';

/**
 * What every crawl handler of one process shares: the guarded HTTP client, per-host politeness,
 * a robots.txt cache, the (lazily launched) renderer and the embedding model documents must have.
 */
export interface CrawlContext {
  rt: Pick<Runtime, 'config' | 'log' | 'pool' | 'redis' | 'queues'>;
  http: Got;
  politeness: HostPoliteness;
  /** robots.txt of url's origin, fetched once per crawl and process. */
  robots(jobId: string, url: string): Promise<Robots>;
  /** The process's renderer; null when no Chromium is installed. */
  renderer(): Promise<Renderer | null>;
  /** Documents without an embedding of this model are put on the crawl's embedding list. */
  embeddingModel: string;
  close(): Promise<void>;
}

const ROBOTS_CACHE_MAX = 256;

export function createCrawlContext(rt: CrawlContext['rt']): CrawlContext {
  const { config } = rt;
  const http = createOutboundClient({
    allowPrivateNetworks: config.OUTBOUND_ALLOW_PRIVATE_NETWORKS,
    userAgent: DEFAULT_USER_AGENT,
    timeoutMs: config.CRAWL_FETCH_TIMEOUT_MS,
  });
  const politeness = new HostPoliteness({
    redis: rt.redis,
    redisPrefix: config.REDIS_PREFIX,
    perHostConcurrency: config.CRAWL_PER_HOST_CONCURRENCY,
    // A slot covers one fetch and, at worst, one render.
    leaseMs: config.CRAWL_FETCH_TIMEOUT_MS + config.CRAWL_RENDER_TIMEOUT_MS + 5_000,
  });

  // Insertion-ordered Map as a small LRU: one entry per (crawl, origin).
  const robotsCache = new Map<string, Promise<Robots>>();
  const robots = (jobId: string, url: string): Promise<Robots> => {
    const origin = new URL(url).origin;
    const key = `${jobId} ${origin}`;
    let hit = robotsCache.get(key);
    if (hit) {
      robotsCache.delete(key);
      robotsCache.set(key, hit);
      return hit;
    }
    const host = new URL(url).host;
    hit = politeness
      .withSlot(host, null, async () => {
        // Loaded with the first crawl (its decoder's charset tables with it), not at start.
        const { fetchRobots } = await import('../web/robots.ts');
        return fetchRobots(http, origin, ROBOTS_TOKEN, { timeoutMs: config.CRAWL_FETCH_TIMEOUT_MS });
      })
      .catch((err: Error) => {
        robotsCache.delete(key);
        // A refused address: every fetch of the origin will be refused too, and say so for each page.
        if (findOutboundBlockedError(err)) return { isAllowed: () => true, crawlDelayMs: null, sitemaps: [] } satisfies Robots;
        // fetchRobots reports its own failures in `error`; anything thrown is treated the same way (allow all).
        return { isAllowed: () => true, crawlDelayMs: null, sitemaps: [], error: err.message } satisfies Robots;
      });
    robotsCache.set(key, hit);
    if (robotsCache.size > ROBOTS_CACHE_MAX) robotsCache.delete(robotsCache.keys().next().value as string);
    return hit;
  };

  let rendererPromise: Promise<Renderer | null> | undefined;
  const renderer = () => {
    rendererPromise ??= createRenderer({
      allowPrivateNetworks: config.OUTBOUND_ALLOW_PRIVATE_NETWORKS,
      userAgent: DEFAULT_USER_AGENT,
      ...(config.CHROMIUM_PATH ? { executablePath: config.CHROMIUM_PATH } : {}),
    }).catch((err: Error) => {
      rt.log.warn({ err: { message: err.message } }, 'Chromium could not be started: JS pages are indexed from static HTML');
      return null;
    });
    return rendererPromise;
  };

  return {
    rt,
    http,
    politeness,
    robots,
    renderer,
    embeddingModel: createEmbeddingProvider(config).model,
    async close() {
      // Shutdown: a renderer that failed to launch has nothing to close (its launch failure was
      // logged when a page needed it), and a browser that fails to close dies with the process.
      const r = await rendererPromise?.catch(() => null);
      await r?.close().catch(() => {});
    },
  };
}
