import { gunzipSync } from 'node:zlib';
import { findOutboundBlockedError } from '@kbchat/shared/net/outbound';
import { XMLParser } from 'fast-xml-parser';
import type { Got } from 'got';

/**
 * Sitemap discovery (docs/crawling.md "Sitemaps").
 *
 * Reads each sitemap URL through the guarded client: XML urlsets, sitemap index files (followed in
 * document order, depth-first, at most maxDepth levels below the given URLs), gzip-compressed sitemaps
 * — recognised by their bytes, so a .gz served as application/x-gzip, application/octet-stream or with a
 * .gz name is read as well as one sent with Content-Encoding — and plain-text sitemaps (one URL a line).
 * Limits: at most `limit` page URLs, maxSitemaps files, maxBytes per file both on the wire and once
 * gunzipped (a gzip bomb stops there). One sitemap failing does not fail the rest. Callers pass
 * robots' Sitemap lines plus <origin>/sitemap.xml.
 */
export interface SitemapOptions {
  /** Levels of sitemap index below the given URLs (default 3). */
  maxDepth?: number;
  /** Sitemap files read at most (default 50). */
  maxSitemaps?: number;
  /** Bytes per sitemap, compressed and uncompressed (default 10 MB). */
  maxBytes?: number;
  timeoutMs?: number;
  /** Told about each sitemap that could not be read (the crawl logs it). */
  onError?: (sitemapUrl: string, error: Error) => void;
  /** Filled with each page's <lastmod> as the sitemap wrote it (a re-crawl skips a page whose lastmod is unchanged). */
  lastmods?: Map<string, string>;
}

const xml = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => name === 'url' || name === 'sitemap',
  // DOCTYPE entities stay bounded (billion laughs); sitemaps have no business declaring any.
  processEntities: { enabled: true, maxEntityCount: 100, maxEntitySize: 1000, maxTotalExpansions: 10_000, maxExpandedLength: 100_000 },
  htmlEntities: false,
});

export async function collectSitemapUrls(
  client: Got,
  sitemapUrls: string[],
  limit: number,
  options: SitemapOptions = {},
): Promise<string[]> {
  const maxDepth = options.maxDepth ?? 3;
  const maxSitemaps = options.maxSitemaps ?? 50;
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 15_000;

  const pages: string[] = [];
  const seenPages = new Set<string>();
  const seenSitemaps = new Set<string>();
  let read = 0;

  const visit = async (sitemapUrl: string, depth: number): Promise<void> => {
    if (pages.length >= limit || read >= maxSitemaps || seenSitemaps.has(sitemapUrl)) return;
    seenSitemaps.add(sitemapUrl);
    read++;
    let parsed: ReturnType<typeof parseSitemap>;
    try {
      const body = await download(client, sitemapUrl, maxBytes, timeoutMs);
      parsed = parseSitemap(body, sitemapUrl);
    } catch (err) {
      options.onError?.(sitemapUrl, err as Error);
      return;
    }
    for (const page of parsed.pages) {
      if (pages.length >= limit) return;
      if (!seenPages.has(page)) {
        seenPages.add(page);
        pages.push(page);
        const lastmod = parsed.lastmods.get(page);
        if (lastmod) options.lastmods?.set(page, lastmod);
      }
    }
    if (depth < maxDepth) for (const child of parsed.sitemaps) await visit(child, depth + 1);
  };

  for (const url of sitemapUrls) {
    const absolute = toHttpUrl(url);
    if (absolute) await visit(absolute, 0);
  }
  return pages;
}

/**
 * Page and child-sitemap URLs of one sitemap document (XML urlset / sitemapindex, or plain text), and
 * the pages' <lastmod> values as written (compared as strings with the last crawl's, never parsed).
 */
export function parseSitemap(text: string, sitemapUrl: string): { pages: string[]; sitemaps: string[]; lastmods: Map<string, string> } {
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  const lastmods = new Map<string, string>();
  if (trimmed.startsWith('<')) {
    const doc = xml.parse(trimmed) as {
      urlset?: { url?: { loc?: unknown; lastmod?: unknown }[] };
      sitemapindex?: { sitemap?: { loc?: unknown }[] };
    };
    const locs = (list: { loc?: unknown }[] | undefined) =>
      (list ?? []).map((e) => (typeof e?.loc === 'string' ? toHttpUrl(e.loc, sitemapUrl) : undefined)).filter((u): u is string => !!u);
    for (const entry of doc.urlset?.url ?? []) {
      const url = typeof entry?.loc === 'string' ? toHttpUrl(entry.loc, sitemapUrl) : undefined;
      const lastmod = typeof entry?.lastmod === 'string' ? entry.lastmod.trim().slice(0, 64) : '';
      if (url && lastmod) lastmods.set(url, lastmod);
    }
    return { pages: locs(doc.urlset?.url), sitemaps: locs(doc.sitemapindex?.sitemap), lastmods };
  }
  const pages = trimmed
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => /^https?:\/\//i.test(line))
    .map((line) => toHttpUrl(line))
    .filter((u): u is string => !!u);
  return { pages, sitemaps: [], lastmods };
}

function toHttpUrl(raw: string, base?: string): string | undefined {
  try {
    const u = new URL(raw.trim(), base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString() : undefined;
  } catch {
    return undefined;
  }
}

async function download(client: Got, url: string, maxBytes: number, timeoutMs: number): Promise<string> {
  const request = client.stream(url, { timeout: { request: timeoutMs }, retry: { limit: 0 }, throwHttpErrors: false });
  let status = 0;
  request.once('response', (res: { statusCode: number }) => {
    status = res.statusCode;
  });
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request as AsyncIterable<Buffer>) {
      if (status >= 300) break;
      size += chunk.length;
      if (size > maxBytes) throw new Error(`sitemap larger than ${maxBytes} bytes`);
      chunks.push(chunk);
    }
  } catch (err) {
    throw findOutboundBlockedError(err) ?? err;
  } finally {
    request.destroy();
  }
  if (status < 200 || status >= 300) throw new Error(`sitemap answered ${status}`);
  let body = Buffer.concat(chunks);
  if (body[0] === 0x1f && body[1] === 0x8b) {
    // maxOutputLength makes zlib stop (and throw) instead of inflating a bomb into memory.
    body = gunzipSync(body, { maxOutputLength: maxBytes });
  }
  return body.toString('utf8');
}
