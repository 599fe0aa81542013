/**
 * JS rendering with playwright-core driving a system Chromium (never a downloaded browser).
 * CONTRACT (owner: the "web" work package): createRenderer returns null when no Chromium
 * executable is found (CHROMIUM_PATH, else /usr/bin/chromium, chromium-browser, google-chrome) —
 * render:auto then degrades to static and the crawl job says so. One browser per process, launched
 * lazily, a fresh context per page, bounded concurrency, a page timeout; every request Chromium
 * makes passes the same address guard as the outbound client (route interception), and only
 * document/script/xhr/fetch requests are allowed (no images, fonts, media). render() returns the
 * DOM's HTML after network idle (or the timeout) and the final URL.
 * STUB: no renderer.
 */
export interface Renderer {
  render(url: string, options: { timeoutMs: number }): Promise<{ html: string; finalUrl: string }>;
  close(): Promise<void>;
}

export interface RendererOptions {
  allowPrivateNetworks: boolean;
  executablePath?: string;
  userAgent?: string;
  concurrency?: number;
}

export async function createRenderer(_options: RendererOptions): Promise<Renderer | null> {
  return null;
}
