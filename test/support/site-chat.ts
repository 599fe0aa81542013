import { expect } from 'vitest';
import { type FixtureServer, serveDirectory } from './fixture-site.ts';
import { api, createClient, type Kbchat, startKbchat } from './kbchat.ts';

export type SiteChatBody = { answer: string; sources: { url: string }[]; leadCaptureIntent: boolean; sessionId: string };

/**
 * kbchat on the offline defaults, crawling sites served from folders (the small sites of
 * test/fixtures/small-sites) and asking them as a visitor would: the rate limits raised for a test's
 * hundreds of questions.
 */
export function siteChat() {
  let kb: Kbchat | undefined;
  const sites: FixtureServer[] = [];
  const started = () => {
    if (!kb) throw new Error('siteChat: start() first');
    return kb;
  };
  return {
    get kb() {
      return started();
    },
    async start() {
      kb = await startKbchat({
        env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', CHAT_VISITOR_RATE_LIMIT_PER_MINUTE: '1000', CHAT_RATE_LIMIT_PER_MINUTE: '1000' },
      });
    },
    async stop() {
      await kb?.stop();
      for (const site of sites) await site.close();
    },
    /** A client named `name` with the site in `dir` crawled from its index.html, and a visitor's `ask`. */
    async crawl(dir: string, name: string) {
      const { baseUrl } = started();
      const site = await serveDirectory(dir);
      sites.push(site);
      const { clientId } = await createClient(baseUrl, { name });
      const crawl = await api<{ pagesIndexed: number }>(baseUrl, 'POST', '/api/admin/crawl', { clientId, url: `${site.url}/index.html` });
      expect(crawl.status, JSON.stringify(crawl.body)).toBe(200);
      const ask = async (message: string, sessionId?: string) =>
        (await api<SiteChatBody>(baseUrl, 'POST', '/api/chat', { clientId, message, ...(sessionId ? { sessionId } : {}) })).body;
      return { site, clientId, pagesIndexed: crawl.body.pagesIndexed, ask };
    },
  };
}

/** A small site's folder under test/fixtures/small-sites. */
export const smallSite = (dir: string) => new URL(`../fixtures/small-sites/${dir}`, import.meta.url).pathname;
