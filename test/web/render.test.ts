import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { extractPage } from '@kbchat/crawler/web/extract';
import { createRenderer, findChromium, needsRender, RenderError, type Renderer } from '@kbchat/crawler/web/render';
import { OutboundBlockedError } from '@kbchat/shared/net/outbound';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClosingServer } from '../support/closing-server.ts';
import { FIXTURE_FACTS, type FixtureSite, startFixtureSite } from '../support/fixture-site.ts';

// Real Chromium (the system one) rendering the fixture site over loopback. Skipped only when this
// machine has no Chromium at all, which is what createRenderer reports as null.
const chromiumPath = findChromium();

describe.skipIf(!chromiumPath)('createRenderer (system Chromium)', () => {
  let site: FixtureSite;
  let renderer: Renderer;
  // A "public" site on 127.0.0.2 (reachable through the allowAddresses exception) that points inside.
  let outside: http.Server;
  let outsideUrl: string;

  beforeAll(async () => {
    site = await startFixtureSite({ slowMs: 4_000 });
    const r = await createRenderer({ allowPrivateNetworks: true, concurrency: 2 });
    if (!r) throw new Error('Chromium was found but createRenderer returned null');
    renderer = r;
    outside = http.createServer((req, res) => {
      if (req.url === '/redirect-inside') {
        res.writeHead(302, { location: `${site.url}/pricing` });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!DOCTYPE html><html><head><title>Outside</title></head><body><div id="out">Static text of the outside page.</div>
<script src="${site.url}/static/app.js"></script>
<script>fetch('${site.url}/api/app-content.json').then(r => r.text()).then(t => { document.getElementById('out').textContent += ' LEAKED ' + t; }).catch(() => { document.getElementById('out').textContent += ' fetch refused'; });</script>
</body></html>`);
    });
    await new Promise<void>((resolve) => outside.listen(0, '127.0.0.2', resolve));
    outsideUrl = `http://127.0.0.2:${(outside.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await renderer?.close();
    await site?.close();
    outside?.closeAllConnections();
    await new Promise((r) => outside?.close(r));
  });

  it('renders a page whose text exists only after JavaScript runs; images, styles and fonts are never fetched', async () => {
    const staticPage = await fetch(`${site.url}/app`).then((r) => r.text());
    const before = extractPage(staticPage, `${site.url}/app`);
    expect(before.textLength).toBe(0);
    expect(needsRender(before)).toBe(true);

    const { html, finalUrl, status } = await renderer.render(`${site.url}/app`, { timeoutMs: 20_000 });
    expect(finalUrl).toBe(`${site.url}/app`);
    expect(status).toBe(200);
    const after = extractPage(html, finalUrl);
    expect(after.title).toBe('ShelfWise app');
    expect(after.sections.map((s) => s.text).join(' ')).toContain(FIXTURE_FACTS.jsOnly);
    expect(needsRender(after)).toBe(false);

    expect(site.hitCount('/static/app.js')).toBe(1);
    expect(site.hitCount('/api/app-content.json')).toBe(1);
    expect(site.hitCount('/static/logo.png')).toBe(0);
    expect(site.hitCount('/static/site.css')).toBe(0);
    expect(site.hitCount('/static/font.woff2')).toBe(0);
  });

  it('follows main-frame redirects hop by hop and reports the final URL', async () => {
    const { html, finalUrl } = await renderer.render(`${site.url}/old-pricing`, { timeoutMs: 20_000 });
    expect(finalUrl).toBe(`${site.url}/pricing`);
    expect(html).toContain(FIXTURE_FACTS.starterPrice);
    expect(site.hitCount('/pricing-2023')).toBeGreaterThanOrEqual(1);
  });

  it('renders pages concurrently within its bound', async () => {
    const pages = ['/about', '/services', '/contact', '/blog/shelfwise-launch'];
    const results = await Promise.all(pages.map((p) => renderer.render(`${site.url}${p}`, { timeoutMs: 20_000 })));
    expect(results.map((r) => new URL(r.finalUrl).pathname)).toEqual(pages);
    expect(results[3]!.html).toContain(FIXTURE_FACTS.shelfwiseLaunch);
  });

  it('times out a page slower than the timeout with a retryable RenderError', async () => {
    const err = await renderer.render(`${site.url}/slow`, { timeoutMs: 1_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RenderError);
    expect((err as RenderError).retryable).toBe(true);
    // The renderer is still usable afterwards.
    const ok = await renderer.render(`${site.url}/about`, { timeoutMs: 20_000 });
    expect(ok.html).toContain(FIXTURE_FACTS.founded);
  });

  it('asks again on a new connection when a kept-alive one was closed under it, as a browser does', async () => {
    const closing = await startClosingServer();
    try {
      for (const path of ['/one', '/two', '/three']) {
        const { html, status } = await renderer.render(`${closing.url}${path}`, { timeoutMs: 20_000 });
        expect(status).toBe(200);
        expect(html).toContain(`Text of ${path}`);
      }
      expect(closing.served).toEqual(['/one', '/two', '/three']);
    } finally {
      await closing.close();
    }
  });

  it('never opens a WebSocket', async () => {
    site.setPage(
      '/ws',
      `<!DOCTYPE html><title>ws</title><p id="p">Socket page with enough text to be a page.</p>
<script>const ws = new WebSocket('ws://127.0.0.1:${site.port}/socket'); ws.onerror = () => { document.getElementById('p').textContent += ' ws failed'; };</script>`,
    );
    const { html } = await renderer.render(`${site.url}/ws`, { timeoutMs: 20_000 });
    expect(html).toContain('Socket page');
    expect(site.hitCount('/socket')).toBe(0);
  });

  describe('with private networks refused', () => {
    let guarded: Renderer;
    beforeAll(async () => {
      guarded = (await createRenderer({ allowPrivateNetworks: false, allowAddresses: ['127.0.0.2'] }))!;
    });
    afterAll(async () => {
      await guarded?.close();
    });

    it('refuses a loopback URL before Chromium is asked', async () => {
      const before = site.hitCount('/app');
      await expect(guarded.render(`${site.url}/app`, { timeoutMs: 10_000 })).rejects.toBeInstanceOf(OutboundBlockedError);
      await expect(guarded.render(`http://2130706433:${site.port}/app`, { timeoutMs: 10_000 })).rejects.toBeInstanceOf(
        OutboundBlockedError,
      );
      expect(site.hitCount('/app')).toBe(before);
    });

    it("refuses a public page's redirect into loopback, and every subresource and fetch it makes there", async () => {
      const pricing = site.hitCount('/pricing');
      const err = await guarded.render(`${outsideUrl}/redirect-inside`, { timeoutMs: 10_000 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OutboundBlockedError);
      expect((err as OutboundBlockedError).address).toBe('127.0.0.1');
      expect(site.hitCount('/pricing')).toBe(pricing);

      const scripts = site.hitCount('/static/app.js');
      const api = site.hitCount('/api/app-content.json');
      const { html } = await guarded.render(`${outsideUrl}/page`, { timeoutMs: 20_000 });
      expect(html).toContain('Static text of the outside page.');
      expect(html).toContain('fetch refused');
      expect(html).not.toContain('LEAKED {');
      expect(html).not.toContain(FIXTURE_FACTS.jsOnly);
      expect(site.hitCount('/static/app.js')).toBe(scripts);
      expect(site.hitCount('/api/app-content.json')).toBe(api);
    });
  });
});

describe.skipIf(!chromiumPath)('a renderer whose Chromium crashed', () => {
  it('launches a new one at the next render, without a restart of the process', async () => {
    const site = await startFixtureSite();
    // A marker switch lets the test find exactly its own Chromium processes (and kill them by pid).
    const marker = `--kbchat-test-marker=${randomUUID()}`;
    const renderer = (await createRenderer({ allowPrivateNetworks: true, launchArgs: [marker] }))!;
    try {
      expect((await renderer.render(`${site.url}/about`, { timeoutMs: 20_000 })).html).toContain(FIXTURE_FACTS.founded);
      const pids = processesWith(marker);
      expect(pids.length).toBeGreaterThan(0);
      for (const pid of pids) process.kill(pid, 'SIGKILL');
      await waitFor(() => processesWith(marker).every((pid) => !pids.includes(pid)));

      let html = '';
      for (let attempt = 0; attempt < 3 && !html; attempt++) {
        html = await renderer
          .render(`${site.url}/app`, { timeoutMs: 20_000 })
          .then((r) => r.html)
          .catch(() => '');
      }
      expect(html).toContain(FIXTURE_FACTS.jsOnly);
      const relaunched = processesWith(marker);
      expect(relaunched.length).toBeGreaterThan(0);
      expect(relaunched.some((pid) => pids.includes(pid))).toBe(false);
    } finally {
      await renderer.close();
      await site.close();
    }
  });
});

/** Pids of processes whose command line contains marker (read from /proc). */
function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

async function waitFor(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('createRenderer without Chromium', () => {
  it('returns null when the executable does not exist', async () => {
    expect(await createRenderer({ allowPrivateNetworks: true, executablePath: '/nonexistent/chromium' })).toBeNull();
    expect(findChromium('/nonexistent/chromium')).toBeNull();
  });
});
