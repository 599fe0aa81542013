import { findOutboundBlockedError } from '@kbchat/shared/net/outbound';
import type { Got } from 'got';
import robotsParserModule from 'robots-parser';
import { decodeHtml } from './decode.ts';

// robots-parser is CommonJS whose typings claim an ES default export: under Node's ESM the import is the function itself.
type RobotsParser = typeof robotsParserModule.default;
const robotsParser: RobotsParser =
  typeof robotsParserModule === 'function' ? (robotsParserModule as unknown as RobotsParser) : robotsParserModule.default;

/**
 * robots.txt for one origin (docs/crawling.md "Politeness").
 *
 * Fetched through the guarded client (redirects followed, at most MAX_ROBOTS_BYTES read — what is past
 * that is ignored, as Google does) and parsed by robots-parser. The group for our User-Agent token
 * (e.g. `kbchat-bot`) applies, else `*`. isAllowed judges a URL's path and query against these rules,
 * whatever its scheme or www-ness, so an http→https or apex→www hop cannot step around a Disallow.
 * A missing robots.txt (any 4xx) allows everything; a 429/5xx or a network failure is treated as "allow
 * all" too, reported in `error` for the caller to log. Crawl-delay comes in ms, capped at
 * MAX_CRAWL_DELAY_MS so one robots.txt cannot park a worker for hours. Sitemap lines are resolved
 * against the origin; only http(s) ones are kept.
 */
export interface Robots {
  isAllowed(url: string): boolean;
  crawlDelayMs: number | null;
  sitemaps: string[];
  error?: string;
}

export const MAX_ROBOTS_BYTES = 500 * 1024;
export const MAX_CRAWL_DELAY_MS = 60_000;

export async function fetchRobots(
  client: Got,
  origin: string,
  userAgentToken: string,
  options: { timeoutMs?: number } = {},
): Promise<Robots> {
  const robotsUrl = new URL('/robots.txt', origin).toString();
  let text: string;
  try {
    const res = await readCapped(client, robotsUrl, options.timeoutMs ?? 10_000);
    if (res.status === 429 || res.status >= 500) return allowAll(`robots.txt answered ${res.status}; allowing all`);
    if (res.status >= 400) return allowAll();
    if (res.status >= 300) return allowAll(`robots.txt redirected without end (${res.status}); allowing all`);
    text = res.text;
  } catch (err) {
    // A refused address is not a "missing robots.txt": the whole origin is off limits.
    if (findOutboundBlockedError(err)) throw findOutboundBlockedError(err);
    return allowAll(`robots.txt could not be fetched (${(err as { code?: string }).code ?? (err as Error).message}); allowing all`);
  }

  const robots = robotsParser(robotsUrl, text);
  const base = new URL(robotsUrl);
  const delay = robots.getCrawlDelay(userAgentToken);
  return {
    isAllowed(url: string): boolean {
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        return false;
      }
      const onOrigin = `${base.origin}${target.pathname}${target.search}`;
      return robots.isAllowed(onOrigin, userAgentToken) ?? true;
    },
    crawlDelayMs:
      typeof delay === 'number' && Number.isFinite(delay) && delay > 0 ? Math.min(Math.round(delay * 1000), MAX_CRAWL_DELAY_MS) : null,
    sitemaps: resolveAll(robots.getSitemaps(), robotsUrl),
  };
}

function allowAll(error?: string): Robots {
  return { isAllowed: () => true, crawlDelayMs: null, sitemaps: [], ...(error ? { error } : {}) };
}

function resolveAll(urls: string[], base: string): string[] {
  const out: string[] = [];
  for (const u of urls) {
    try {
      const resolved = new URL(u.trim(), base);
      if ((resolved.protocol === 'http:' || resolved.protocol === 'https:') && !out.includes(resolved.toString()))
        out.push(resolved.toString());
    } catch {
      // an unparsable Sitemap line is ignored, like any other bad line
    }
  }
  return out;
}

async function readCapped(client: Got, url: string, timeoutMs: number): Promise<{ status: number; text: string }> {
  const request = client.stream(url, { timeout: { request: timeoutMs }, retry: { limit: 0 }, throwHttpErrors: false });
  const chunks: Buffer[] = [];
  let size = 0;
  let status = 0;
  request.once('response', (res: { statusCode: number }) => {
    status = res.statusCode;
  });
  for await (const chunk of request as AsyncIterable<Buffer>) {
    if (status >= 300) break;
    const room = MAX_ROBOTS_BYTES - size;
    chunks.push(room < chunk.length ? chunk.subarray(0, room) : chunk);
    size += Math.min(room, chunk.length);
    if (size >= MAX_ROBOTS_BYTES) break;
  }
  request.destroy();
  return { status, text: decodeHtml(Buffer.concat(chunks), 'text/plain; charset=utf-8').text };
}
