import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { CHROMIUM_BASE_ARGS } from '@kbchat/crawler/web/render';
import { freePort } from '@kbchat/shared/redis';
import { type Browser, chromium } from 'playwright-core';
import { type ChildService, REPO_ROOT, spawnNode, testEnv, waitForHttp } from '../support/kbchat.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
export const ARTIFACTS = path.join(REPO_ROOT, 'test/artifacts');

/** Debian's Chromium, never a downloaded one; flags for a headless run in a container. */
export async function launchChromium(): Promise<Browser> {
  await mkdir(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_BASE_ARGS,
  });
}

export interface Gateway {
  baseUrl: string;
  service: ChildService;
  stop(): Promise<void>;
}

/**
 * kbchat as `pnpm start` runs it — a separate Node process, gateway + crawler + embedder — so the
 * browser gets /widget.js exactly as production serves it (Node's own type stripping, not the
 * test runner's transform).
 */
export async function startGatewayProcess(env: Record<string, string | undefined> = {}): Promise<Gateway> {
  const port = await freePort();
  const service = spawnNode('bin/kbchat.ts', testEnv({ PORT: String(port), LOG_LEVEL: 'warn', ...env }));
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await Promise.race([
      waitForHttp(`${baseUrl}/readyz`),
      service.exited.then((code) => {
        throw new Error(`kbchat exited with ${code} before it was ready:\n${service.output()}`);
      }),
    ]);
  } catch (err) {
    service.kill('SIGKILL');
    throw err;
  }
  return {
    baseUrl,
    service,
    async stop() {
      service.kill('SIGTERM');
      const timer = setTimeout(() => service.kill('SIGKILL'), 15_000);
      await service.exited;
      clearTimeout(timer);
    },
  };
}

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;

/** A small HTTP server on its own port (so another origin than the gateway) for host pages and sites. */
export async function startSite(
  handler: Handler,
  options: { hostname?: 'localhost' | '127.0.0.1' } = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    Promise.resolve(handler(req, res)).catch((err: Error) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(err.message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    // "localhost" by default: another origin than the gateway (127.0.0.1) even before the port differs.
    url: `http://${options.hostname ?? 'localhost'}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function html(res: http.ServerResponse, body: string, status = 200): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(body);
}

const SITE_PAGES: Record<string, { title: string; body: string; links: string[] }> = {
  '/': {
    title: 'Acme Plumbing — Home',
    body: 'Acme Plumbing has fixed leaks, boilers and drains across the city since 1998. Our certified plumbers arrive within two hours for emergencies and give a fixed price before any work starts.',
    links: ['/pricing', '/hours', '/contact'],
  },
  '/pricing': {
    title: 'Pricing',
    body: 'The premium maintenance plan costs 49 euros per month and includes a yearly boiler service, priority callouts and no callout fee at night or on weekends. A one-off drain unblocking costs 89 euros.',
    links: ['/', '/hours'],
  },
  '/hours': {
    title: 'Opening hours',
    body: 'Our office is open Monday to Friday from 8am to 6pm and on Saturday from 9am to 1pm. The emergency line answers around the clock, every day of the year, including public holidays.',
    links: ['/', '/contact'],
  },
  '/contact': {
    title: 'Contact us',
    body: 'Call us on 020 7946 0958 or write to hello@acme-plumbing.example. Our workshop is at 12 Canal Street; parking is available in the yard behind the building for customers collecting parts.',
    links: ['/'],
  },
};
export const SITE_PAGE_COUNT = Object.keys(SITE_PAGES).length;

/** A tiny plumber's website for crawls: four linked pages, each optionally slow to answer. */
export function startPlumberSite(options: { delayMs?: number } = {}) {
  return startSite(
    async (req, res) => {
      const page = SITE_PAGES[(req.url ?? '/').split('?')[0] ?? '/'];
      if (!page) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found');
        return;
      }
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      const nav = page.links.map((l) => `<a href="${l}">${SITE_PAGES[l]?.title ?? l}</a>`).join(' ');
      html(
        res,
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${page.title}</title></head>
        <body><nav>${nav}</nav><main><h1>${page.title}</h1><p>${page.body}</p><p>${page.body}</p></main></body></html>`,
      );
    },
    { hostname: '127.0.0.1' },
  );
}
