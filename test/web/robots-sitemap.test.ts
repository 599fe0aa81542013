import { gzipSync } from 'node:zlib';
import { fetchRobots, MAX_CRAWL_DELAY_MS } from '@kbchat/crawler/web/robots';
import { collectSitemapUrls, parseSitemap } from '@kbchat/crawler/web/sitemap';
import { createOutboundClient, OutboundBlockedError } from '@kbchat/shared/net/outbound';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.ts';

const client = createOutboundClient({ allowPrivateNetworks: true });
let site: FixtureSite;

beforeAll(async () => {
  site = await startFixtureSite({ crawlDelaySeconds: 0.25 });
});
afterAll(async () => {
  await site?.close();
});

describe('fetchRobots', () => {
  it('applies the kbchat-bot group (not *), its Crawl-delay, and lists the Sitemap lines resolved', async () => {
    const robots = await fetchRobots(client, site.url, 'kbchat-bot');
    expect(robots.error).toBeUndefined();
    expect(robots.isAllowed(`${site.url}/private/internal-wiki`)).toBe(false);
    expect(robots.isAllowed(`${site.url}/internal-only/roadmap`)).toBe(false);
    // Disallowed for * only: our own group replaces the * group.
    expect(robots.isAllowed(`${site.url}/star-only/notes`)).toBe(true);
    expect(robots.isAllowed(`${site.url}/pricing`)).toBe(true);
    expect(robots.isAllowed(`${site.url}/`)).toBe(true);
    expect(robots.crawlDelayMs).toBe(250);
    expect(robots.sitemaps).toEqual([`${site.url}/sitemap_index.xml`, `${site.url}/sitemap.txt`]);
  });

  it('falls back to the * group for another bot', async () => {
    const robots = await fetchRobots(client, site.url, 'otherbot');
    expect(robots.isAllowed(`${site.url}/star-only/notes`)).toBe(false);
    expect(robots.isAllowed(`${site.url}/internal-only/roadmap`)).toBe(true);
    expect(robots.crawlDelayMs).toBe(5000);
  });

  it('judges the path whatever the scheme or www-ness of the URL, so a hop cannot step around a Disallow', async () => {
    const robots = await fetchRobots(client, site.url, 'kbchat-bot');
    const u = new URL(site.url);
    expect(robots.isAllowed(`https://${u.host}/private/x`)).toBe(false);
    expect(robots.isAllowed(`http://www.example.com/private/x`)).toBe(false);
    expect(robots.isAllowed('not a url')).toBe(false);
  });

  it('allows everything when robots.txt is missing (404), and says why on a 5xx or network failure', async () => {
    site.setPage('/robots.txt', null);
    const missing = await fetchRobots(client, site.url, 'kbchat-bot');
    expect(missing).toMatchObject({ crawlDelayMs: null, sitemaps: [] });
    expect(missing.error).toBeUndefined();
    expect(missing.isAllowed(`${site.url}/private/internal-wiki`)).toBe(true);

    site.setPage('/robots.txt', (_req, res) => {
      res.writeHead(503);
      res.end();
    });
    const broken = await fetchRobots(client, site.url, 'kbchat-bot');
    expect(broken.error).toMatch(/503/);
    expect(broken.isAllowed(`${site.url}/private/internal-wiki`)).toBe(true);

    const gone = await startFixtureSite();
    await gone.close();
    const unreachable = await fetchRobots(client, gone.url, 'kbchat-bot');
    expect(unreachable.error).toMatch(/ECONNREFUSED/);
    site.setPage('/robots.txt', undefined);
  });

  it('caps a huge Crawl-delay and reads robots.txt behind a redirect', async () => {
    site.setPage('/robots.txt', (_req, res) => {
      res.writeHead(301, { location: '/robots-moved.txt' });
      res.end();
    });
    site.setPage('/robots-moved.txt', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('User-agent: *\nDisallow: /moved-rule\nCrawl-delay: 86400\n');
    });
    const robots = await fetchRobots(client, site.url, 'kbchat-bot');
    expect(robots.isAllowed(`${site.url}/moved-rule/page`)).toBe(false);
    expect(robots.crawlDelayMs).toBe(MAX_CRAWL_DELAY_MS);
  });

  it('refuses an origin the guard refuses, rather than treating it as "no robots.txt"', async () => {
    const guarded = createOutboundClient({ allowPrivateNetworks: false });
    await expect(fetchRobots(guarded, site.url, 'kbchat-bot')).rejects.toBeInstanceOf(OutboundBlockedError);
  });
});

describe('collectSitemapUrls', () => {
  it('reads a sitemap index, its urlset child and its gzipped child (served as application/x-gzip), then a text sitemap, in order', async () => {
    const urls = await collectSitemapUrls(client, [`${site.url}/sitemap_index.xml`, `${site.url}/sitemap.txt`], 100);
    expect(urls).toEqual([
      `${site.url}/`,
      `${site.url}/about`,
      `${site.url}/services`,
      `${site.url}/pricing`,
      `${site.url}/contact`,
      `${site.url}/blog/forecasting-holiday-demand`,
      `${site.url}/blog/shelfwise-launch?utm_source=sitemap&x=1`,
      `${site.url}/case-studies/fjordmart`,
      `${site.url}/blog/data-privacy`,
      `${site.url}/careers`,
    ]);
    expect(site.hitCount('/sitemaps/case-studies.xml.gz')).toBe(1);
  });

  it('reads a sitemap sent with Content-Encoding: gzip, and a .gz file served as octet-stream', async () => {
    const xml = `<urlset><url><loc>${site.url}/encoded</loc></url></urlset>`;
    site.setPage('/encoded.xml', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml', 'content-encoding': 'gzip' });
      res.end(gzipSync(xml));
    });
    site.setPage('/download.xml.gz', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(gzipSync(xml.replace('/encoded', '/downloaded')));
    });
    const urls = await collectSitemapUrls(client, [`${site.url}/encoded.xml`, `${site.url}/download.xml.gz`], 10);
    expect(urls).toEqual([`${site.url}/encoded`, `${site.url}/downloaded`]);
  });

  it('stops at the limit', async () => {
    const urls = await collectSitemapUrls(client, [`${site.url}/sitemap_index.xml`], 3);
    expect(urls).toEqual([`${site.url}/`, `${site.url}/about`, `${site.url}/services`]);
  });

  it('survives a failing sitemap and reports it; the others still count', async () => {
    const errors: string[] = [];
    const urls = await collectSitemapUrls(client, [`${site.url}/sitemap.xml`, `${site.url}/sitemap.txt`], 100, {
      onError: (u) => errors.push(u),
    });
    expect(errors).toEqual([`${site.url}/sitemap.xml`]);
    expect(urls).toEqual([`${site.url}/careers`, `${site.url}/about`]);
  });

  it('bounds index depth, sitemap count and bytes, and does not loop on an index that lists itself', async () => {
    site.setPage('/loop-index.xml', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(
        `<sitemapindex><sitemap><loc>${site.url}/loop-index.xml</loc></sitemap><sitemap><loc>${site.url}/deep-1.xml</loc></sitemap></sitemapindex>`,
      );
    });
    for (let d = 1; d <= 5; d++) {
      site.setPage(`/deep-${d}.xml`, (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(
          `<sitemapindex><sitemap><loc>${site.url}/deep-${d + 1}.xml</loc></sitemap><sitemap><loc>${site.url}/leaf-${d}.xml</loc></sitemap></sitemapindex>`,
        );
      });
      site.setPage(`/leaf-${d}.xml`, (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(`<urlset><url><loc>${site.url}/depth-${d}</loc></url></urlset>`);
      });
    }
    const urls = await collectSitemapUrls(client, [`${site.url}/loop-index.xml`], 100, { maxDepth: 3 });
    // loop-index (0) → deep-1 (1) → deep-2 (2) → leaf-2 and deep-3 (3) → nothing deeper.
    expect(urls).toEqual([`${site.url}/depth-2`, `${site.url}/depth-1`]);
    expect(site.hitCount('/loop-index.xml')).toBe(1);
    expect(site.hitCount('/deep-4.xml')).toBe(0);

    const few = await collectSitemapUrls(client, [`${site.url}/deep-1.xml`], 100, { maxSitemaps: 2 });
    expect(few).toEqual([]);

    const big = `<urlset>${Array.from({ length: 5000 }, (_, i) => `<url><loc>${site.url}/many/${i}</loc></url>`).join('')}</urlset>`;
    site.setPage('/big.xml', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(big);
    });
    const errors: Error[] = [];
    expect(
      await collectSitemapUrls(client, [`${site.url}/big.xml`], 10_000, { maxBytes: 10_000, onError: (_u, e) => errors.push(e) }),
    ).toEqual([]);
    expect(errors[0]?.message).toMatch(/larger than/);
    expect(await collectSitemapUrls(client, [`${site.url}/big.xml`], 10_000)).toHaveLength(5000);
  });

  it('stops a gzip bomb at maxBytes of output', async () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(100_000);
    site.setPage('/bomb.xml.gz', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(bomb);
    });
    const errors: Error[] = [];
    const urls = await collectSitemapUrls(client, [`${site.url}/bomb.xml.gz`], 10, {
      maxBytes: 1024 * 1024,
      onError: (_u, e) => errors.push(e),
    });
    expect(urls).toEqual([]);
    expect(errors).toHaveLength(1);
  });
});

describe('parseSitemap', () => {
  it('reads namespaced XML, entities, whitespace and skips non-http locations', () => {
    const xml = `<?xml version="1.0"?>
<ns:urlset xmlns:ns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <ns:url><ns:loc>
    https://example.com/a?x=1&amp;y=2
  </ns:loc></ns:url>
  <ns:url><ns:loc>ftp://example.com/file</ns:loc></ns:url>
  <ns:url><ns:loc>/relative</ns:loc></ns:url>
</ns:urlset>`;
    expect(parseSitemap(xml, 'https://example.com/sitemap.xml')).toEqual({
      pages: ['https://example.com/a?x=1&y=2', 'https://example.com/relative'],
      sitemaps: [],
      lastmods: new Map(),
    });
  });

  it("keeps each page's lastmod as written, and none for a page without one", () => {
    const xml = `<urlset><url><loc>https://example.com/a</loc><lastmod> 2026-03-01T10:00:00+00:00 </lastmod></url>
      <url><loc>https://example.com/b</loc></url></urlset>`;
    const parsed = parseSitemap(xml, 'https://example.com/sitemap.xml');
    expect(parsed.pages).toEqual(['https://example.com/a', 'https://example.com/b']);
    expect([...parsed.lastmods]).toEqual([['https://example.com/a', '2026-03-01T10:00:00+00:00']]);
  });

  it('reads a plain-text sitemap', () => {
    expect(
      parseSitemap('\uFEFFhttps://example.com/1\r\n  https://example.com/2  \n# comment\nmailto:x@y\n', 'https://example.com/s.txt').pages,
    ).toEqual(['https://example.com/1', 'https://example.com/2']);
  });

  it('does not expand entity bombs', () => {
    const laughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;"><!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;"><!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;"><!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">]>
<urlset><url><loc>https://example.com/&lol6;</loc></url></urlset>`;
    let result: { pages: string[] } | undefined;
    try {
      result = parseSitemap(laughs, 'https://example.com/s.xml');
    } catch {
      result = undefined; // refusing the document is as good as not expanding it
    }
    for (const p of result?.pages ?? []) expect(p.length).toBeLessThan(10_000);
  });
});
