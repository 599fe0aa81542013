import type { Got } from 'got';

/**
 * Sitemap discovery.
 * CONTRACT (owner: the "web" work package): reads each sitemap URL (XML urlset, sitemap index
 * files recursively with a depth bound, .gz compressed ones, plain-text sitemaps) through the
 * guarded client; returns page URLs in document order, at most `limit`; failures of one sitemap do
 * not fail the rest. Callers pass robots' Sitemap lines plus <origin>/sitemap.xml.
 * STUB: none.
 */
export async function collectSitemapUrls(_client: Got, _sitemapUrls: string[], _limit: number): Promise<string[]> {
  return [];
}
