// A small, mutable website for pipeline tests: pages can be added, changed and removed between
// crawls, every request is recorded, and a page can be slowed down or made to fail.
// (The web package's fixture site covers the hostile cases: traps, charsets, binaries.)
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MiniPage {
  status?: number;
  body: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** Answer after this long. */
  delayMs?: number;
  /** Answer only once this settles (a test holds a page open to look at a crawl mid-way). */
  hold?: Promise<unknown>;
}

export interface MiniSite {
  url: string;
  origin: string;
  pages: Map<string, MiniPage | ((req: IncomingMessage) => MiniPage)>;
  requests: { path: string; at: number }[];
  /** In-flight requests right now and the most seen at once. */
  inFlight(): { now: number; max: number };
  hits(path: string): number;
  close(): Promise<void>;
}

export function html(title: string, body: string, head = ''): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>${head}</head><body><main>${body}</main></body></html>`;
}

/** A paragraph of distinct, readable words so chunks differ from page to page. */
export function prose(seed: string, sentences = 6): string {
  const words = ['alpha', 'river', 'garden', 'copper', 'lantern', 'meadow', 'harbor', 'violet', 'summit', 'orchard', 'falcon', 'ember'];
  const out: string[] = [];
  for (let i = 0; i < sentences; i++) {
    const w = Array.from(
      { length: 12 },
      (_, j) => words[(seed.length * 7 + i * 5 + j * 3 + seed.charCodeAt(j % seed.length)) % words.length],
    );
    out.push(`The ${seed} page explains ${w.join(' ')} in sentence ${i + 1}.`);
  }
  return `<p>${out.join(' ')}</p>`;
}

export async function startMiniSite(): Promise<MiniSite> {
  const pages: MiniSite['pages'] = new Map();
  const requests: MiniSite['requests'] = [];
  let now = 0;
  let max = 0;
  const server = http.createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0] as string;
    requests.push({ path, at: Date.now() });
    now++;
    max = Math.max(max, now);
    try {
      const entry = pages.get(path);
      const page = typeof entry === 'function' ? entry(req) : entry;
      if (page?.delayMs) await new Promise((r) => setTimeout(r, page.delayMs));
      if (page?.hold) await page.hold;
      if (!page) {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<html><body>not found</body></html>');
        return;
      }
      res.writeHead(page.status ?? 200, { 'content-type': page.contentType ?? 'text/html; charset=utf-8', ...page.headers });
      res.end(page.body);
    } finally {
      now--;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/`,
    origin,
    pages,
    requests,
    inFlight: () => ({ now, max }),
    hits: (p) => requests.filter((r) => r.path === p).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A site of n pages linked as a tree from / (each page links to the next few). */
export function addLinkedPages(site: MiniSite, n: number, prefix = '/p'): string[] {
  const paths = Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  const fanout = 5;
  site.pages.set('/', {
    body: html(
      'Home',
      `${prose('home')}${paths
        .slice(0, fanout)
        .map((p) => `<a href="${p}">${p}</a>`)
        .join(' ')}`,
    ),
  });
  paths.forEach((p, i) => {
    const children = paths.slice((i + 1) * fanout, (i + 2) * fanout);
    site.pages.set(p, {
      body: html(`Page ${p}`, `${prose(p.slice(1) || 'x')}${children.map((c) => `<a href="${c}">${c}</a>`).join(' ')}`),
    });
  });
  return paths;
}
