import type { Got } from 'got';

/**
 * robots.txt for one origin.
 * CONTRACT (owner: the "web" work package): fetched through the guarded client with a well-kept
 * parser (robots-parser); rules for our User-Agent token honoured; Crawl-delay in ms; Sitemap lines
 * listed. A missing robots.txt (4xx) allows everything; a 5xx or network failure on it is treated
 * as "allow all" but logged by the caller (reported in `error`).
 * STUB: allows everything.
 */
export interface Robots {
  isAllowed(url: string): boolean;
  crawlDelayMs: number | null;
  sitemaps: string[];
  error?: string;
}

export async function fetchRobots(_client: Got, _origin: string, _userAgentToken: string): Promise<Robots> {
  return { isAllowed: () => true, crawlDelayMs: null, sitemaps: [] };
}
