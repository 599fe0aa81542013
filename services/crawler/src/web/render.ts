import { accessSync, constants } from 'node:fs';
import net from 'node:net';
import {
  assertPublicUrl,
  createOutboundClient,
  DEFAULT_USER_AGENT,
  findOutboundBlockedError,
  type OutboundOptions,
  resetOnReusedSocket,
} from '@kbchat/shared/net/outbound';
import type { Got } from 'got';
import type { Browser, BrowserContext, Route } from 'playwright-core';
import type { ExtractedPage } from './extract.ts';

/**
 * JS rendering with playwright-core driving a system Chromium — never a downloaded browser
 * (docs/crawling.md "Rendering").
 *
 * Chromium gets no network of its own: it is launched with a proxy that is a local black hole, and
 * every request it makes is intercepted (route) and answered by the same guarded outbound client the
 * rest of the crawl uses — so the address guard holds at connect time for Chromium's requests too
 * (rebinding included), preconnects and stray sockets go nowhere, and WebSockets are closed. Only
 * document, script, xhr and fetch requests are served; images, fonts, media, stylesheets and the rest
 * are aborted. Main-frame redirects are followed by render() itself, hop by hop, so the page keeps
 * its real URL while each hop is fetched through the guard.
 * One browser per renderer, launched lazily and relaunched after a crash; a fresh context per page;
 * at most `concurrency` pages at once; render() resolves with the DOM's HTML after network idle (or
 * the load state reached within the timeout) and the final URL.
 */
export interface Renderer {
  render(url: string, options: { timeoutMs: number }): Promise<{ html: string; finalUrl: string; status?: number }>;
  close(): Promise<void>;
}

export interface RendererOptions {
  allowPrivateNetworks: boolean;
  executablePath?: string;
  userAgent?: string;
  concurrency?: number;
  /** Passed to the outbound client (see OutboundOptions). */
  allowAddresses?: string[];
  lookup?: OutboundOptions['lookup'];
  /** Largest body served to Chromium per request (default 5 MB). */
  maxResourceBytes?: number;
  /** Extra Chromium switches (e.g. --lang=de), after the fixed ones. */
  launchArgs?: string[];
}

export class RenderError extends Error {
  readonly url: string;
  readonly retryable: boolean;
  constructor(url: string, message: string, retryable: boolean, cause?: unknown) {
    super(message, { cause });
    this.name = 'RenderError';
    this.url = url;
    this.retryable = retryable;
  }
}

export const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** Headless, and none of Chromium's own background traffic (it would be refused on a closed network). */
export const CHROMIUM_BASE_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const CHROMIUM_ARGS = [
  ...CHROMIUM_BASE_ARGS,
  '--disable-dev-shm-usage',
  '--disable-extensions',
  '--mute-audio',
  // WebRTC could otherwise reach the network beside the proxy.
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
];

const SERVED_TYPES = new Set(['document', 'script', 'xhr', 'fetch']);
const MAX_REDIRECTS = 10;
const NETWORK_IDLE_MS = 3_000;
// Headers the outbound client sets itself, or that describe the wire rather than the message.
const DROP_REQUEST_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'accept-encoding',
  'keep-alive',
  'proxy-connection',
  'upgrade',
]);
const DROP_RESPONSE_HEADERS = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

/** The first executable Chromium: the given path (CHROMIUM_PATH), else the usual system locations. */
export function findChromium(executablePath?: string): string | null {
  const candidates = executablePath ? [executablePath] : CHROMIUM_CANDIDATES;
  for (const path of candidates) {
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here; try the next
    }
  }
  return null;
}

/**
 * render:auto — render when the static HTML yields too little text, or is a bare JS-app mount point.
 * A page without any script cannot change when rendered, so it never needs it.
 */
export const MIN_STATIC_TEXT = 200;
export function needsRender(extracted: ExtractedPage): boolean {
  if (extracted.scripts === 0) return false;
  return extracted.textLength < MIN_STATIC_TEXT || extracted.appShell === true;
}

export async function createRenderer(options: RendererOptions): Promise<Renderer | null> {
  const executablePath = findChromium(options.executablePath);
  if (!executablePath) return null;
  const client = createOutboundClient({
    allowPrivateNetworks: options.allowPrivateNetworks,
    userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
    allowAddresses: options.allowAddresses,
    lookup: options.lookup,
  });
  const userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
  const maxResourceBytes = options.maxResourceBytes ?? 5 * 1024 * 1024;
  const slots = new Semaphore(Math.max(1, options.concurrency ?? 2));

  let launching: Promise<{ browser: Browser; blackHole: net.Server }> | null = null;
  let closed = false;

  const launch = async () => {
    // A proxy that accepts and drops: whatever Chromium tries to reach on its own goes nowhere.
    const blackHole = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const port = (blackHole.address() as net.AddressInfo).port;
    try {
      // Loaded on the first page that needs rendering: the module costs ~60 MB that an idle service
      // (and every crawl of static pages) never uses.
      const { chromium } = await import('playwright-core');
      const browser = await chromium.launch({
        executablePath,
        headless: true,
        args: [...CHROMIUM_ARGS, ...(options.launchArgs ?? [])],
        proxy: { server: `http://127.0.0.1:${port}`, bypass: '<-loopback>' },
        timeout: 30_000,
      });
      browser.on('disconnected', () => {
        // A crashed browser is replaced at the next render: the process heals without a restart.
        launching = null;
        blackHole.close();
      });
      return { browser, blackHole };
    } catch (err) {
      blackHole.close();
      throw err;
    }
  };
  const browser = async (): Promise<Browser> => {
    if (closed) throw new RenderError('', 'renderer is closed', false);
    launching ??= launch().catch((err) => {
      launching = null;
      throw err;
    });
    const current = launching;
    const { browser: b } = await current;
    if (b.isConnected()) return b;
    // Died before its 'disconnected' event was handled: start a new one now.
    if (launching === current) launching = null;
    return browser();
  };

  return {
    async render(url, { timeoutMs }) {
      await assertPublicUrl(url, options.allowPrivateNetworks, { allowAddresses: options.allowAddresses, lookup: options.lookup });
      return slots.run(async () => {
        const deadline = Date.now() + timeoutMs;
        let context: BrowserContext | undefined;
        try {
          context = await (await browser()).newContext({
            userAgent,
            javaScriptEnabled: true,
            serviceWorkers: 'block',
            acceptDownloads: false,
          });
          const state: NavigationState = { redirects: new Map(), blocked: null };
          await context.routeWebSocket(/.*/, (ws) => ws.close({ code: 1008, reason: 'websockets are not crawled' }));
          await context.route('**/*', (route) => serve(route, client, state, deadline, maxResourceBytes));
          const page = await context.newPage();
          let target = url;
          let status: number | undefined;
          for (let hop = 0; ; hop++) {
            const response = await page.goto(target, { waitUntil: 'load', timeout: Math.max(1, deadline - Date.now()) }).catch((err) => {
              // The guard's refusal reached Chromium as a failed navigation; report the refusal itself.
              throw state.blocked ?? err;
            });
            status = response?.status();
            const next = state.redirects.get(target);
            if (!next) break;
            if (hop >= MAX_REDIRECTS) throw new RenderError(url, `more than ${MAX_REDIRECTS} redirects`, false);
            target = next;
          }
          await page
            .waitForLoadState('networkidle', { timeout: Math.max(1, Math.min(NETWORK_IDLE_MS, deadline - Date.now())) })
            .catch(() => {
              // Pages that poll never go idle; what loaded by now is what we index.
            });
          return { html: await page.content(), finalUrl: page.url(), status };
        } catch (err) {
          const blocked = findOutboundBlockedError(err);
          if (blocked) throw blocked;
          if (err instanceof RenderError) throw err;
          const message = (err as Error).message ?? String(err);
          throw new RenderError(url, `render failed: ${message.split('\n')[0]}`, true, err);
        } finally {
          // The render's outcome is decided above; a context that fails to close goes with its browser.
          await context?.close().catch(() => {});
        }
      });
    },
    async close() {
      closed = true;
      const current = launching;
      launching = null;
      if (current) {
        // Shutdown: a browser that never launched has nothing to close (the launch failure already
        // failed the render that asked for it); one that fails to close dies with the process.
        const { browser: b, blackHole } = await current.catch(() => ({ browser: null, blackHole: null }));
        await b?.close().catch(() => {});
        blackHole?.close();
      }
    },
  };
}

/** Answers one of Chromium's requests through the guarded client, or aborts it. */
interface NavigationState {
  /** Main-frame URL → where it redirected. */
  redirects: Map<string, string>;
  /** Set when the guard refused a main-frame navigation. */
  blocked: Error | null;
}

/**
 * Fails one of the page's requests, as Chromium would see a broken resource. Not logged when it
 * throws: that only happens when the page is already gone (the render finished or timed out), and
 * then there is nobody left to tell.
 */
async function abortRequest(route: Route, reason: 'blockedbyclient' | 'addressunreachable' | 'failed'): Promise<void> {
  await route.abort(reason).catch(() => {});
}

async function serve(route: Route, client: Got, state: NavigationState, deadline: number, maxBytes: number): Promise<void> {
  const request = route.request();
  const type = request.resourceType();
  const isMainNavigation = request.isNavigationRequest() && request.frame().parentFrame() === null;
  if (!SERVED_TYPES.has(type) || (type === 'document' && !isMainNavigation)) {
    await abortRequest(route, 'blockedbyclient');
    return;
  }
  const url = request.url();
  if (!/^https?:/i.test(url)) {
    await abortRequest(route, 'blockedbyclient');
    return;
  }
  try {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(await request.allHeaders())) if (!DROP_REQUEST_HEADERS.has(k.toLowerCase())) headers[k] = v;
    const body = request.postDataBuffer();
    const fetchOnce = async () => {
      const stream = client.stream(url, {
        method: request.method() as 'GET',
        headers,
        ...(body ? { body } : {}),
        // Main-frame redirects are followed by render() so the page's URL is right; the rest here, hop by hop guarded.
        followRedirect: !isMainNavigation,
        timeout: { request: Math.max(1, deadline - Date.now()) },
        throwHttpErrors: false,
        retry: { limit: 0 },
      });
      let response: { statusCode: number; headers: Record<string, string | string[] | undefined> } | undefined;
      stream.once('response', (r) => {
        response = r;
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxBytes) {
          stream.destroy();
          return 'too large' as const;
        }
        chunks.push(chunk);
      }
      return { response, chunks };
    };
    let fetched: Awaited<ReturnType<typeof fetchOnce>>;
    try {
      fetched = await fetchOnce();
    } catch (err) {
      // A kept-alive connection the server closed as the request went out: asked again once on a new one.
      if (!resetOnReusedSocket(err) || !IDEMPOTENT.has(request.method()) || Date.now() >= deadline) throw err;
      fetched = await fetchOnce();
    }
    if (fetched === 'too large') {
      await abortRequest(route, 'blockedbyclient');
      return;
    }
    const { response, chunks } = fetched;
    if (!response) throw new Error('no response');
    const location = response.headers.location;
    if (isMainNavigation && response.statusCode >= 300 && response.statusCode < 400 && typeof location === 'string') {
      state.redirects.set(url, new URL(location, url).toString());
      // A 204 would abort the navigation; an empty page lets goto() resolve so render() takes the next hop.
      await route.fulfill({ status: 200, contentType: 'text/html', body: '' });
      return;
    }
    const outHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(response.headers)) {
      if (v === undefined || DROP_RESPONSE_HEADERS.has(k)) continue;
      outHeaders[k] = Array.isArray(v) ? v.join('\n') : v;
    }
    await route.fulfill({ status: response.statusCode, headers: outHeaders, body: Buffer.concat(chunks) });
  } catch (err) {
    // A refused address or a network failure: Chromium sees a failed request, like any broken resource.
    const blocked = findOutboundBlockedError(err);
    if (blocked && isMainNavigation) state.blocked = blocked;
    await abortRequest(route, blocked ? 'addressunreachable' : 'failed');
  }
}

/** Requests that may be asked twice. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Bounded concurrency without a dependency. */
class Semaphore {
  #free: number;
  readonly #waiting: (() => void)[] = [];
  constructor(size: number) {
    this.#free = size;
  }
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await fn();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }
}
