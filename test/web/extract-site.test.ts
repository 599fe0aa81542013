import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { extractPage } from '@kbchat/crawler/web/extract';
import { fetchPage } from '@kbchat/crawler/web/fetch-page';
import { chunkSections } from '@kbchat/shared/crawl/chunker';
import { isSameSite, normalizeUrl } from '@kbchat/shared/crawl/url';
import { createOutboundClient } from '@kbchat/shared/net/outbound';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_FACTS, type FixtureSite, serveDirectory, startFixtureSite, startGeneratedSite } from '../support/fixture-site.ts';

// Fetch → extract → chunk over the fixture website, the way a crawl does it, over real HTTP.

const client = createOutboundClient({ allowPrivateNetworks: true });
let site: FixtureSite;

async function page(pathname: string) {
  const out = await fetchPage(client, `${site.url}${pathname}`, { maxBytes: 5_000_000, timeoutMs: 5_000 });
  if (out.kind !== 'html') throw new Error(`${pathname}: ${out.kind} ${'reason' in out ? out.reason : ''}`);
  const extracted = extractPage(out.html, out.finalUrl, { xRobotsTag: out.xRobotsTag });
  return { out, extracted, text: extracted.sections.map((s) => `${s.heading ?? ''}\n${s.text}`).join('\n') };
}

beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await site?.close();
});

describe('extraction over the fixture site', () => {
  it('drops the boilerplate that is on every page and keeps the content', async () => {
    for (const p of ['/', '/about', '/pricing', '/services', '/contact', '/blog/forecasting-holiday-demand']) {
      const { text, extracted } = await page(p);
      expect(extracted.textLength, p).toBeGreaterThan(100);
      for (const boilerplate of [
        'We use cookies',
        'Accept all cookies',
        'Forecasts your shelves can trust',
        'Subscribe to the Brightwater newsletter',
        'Org. no.',
        'Staff wiki',
      ]) {
        expect(text, `${p} keeps "${boilerplate}"`).not.toContain(boilerplate);
      }
    }
    expect((await page('/pricing')).text).toContain(FIXTURE_FACTS.starterPrice);
    expect((await page('/about')).text).toContain(FIXTURE_FACTS.founded);
    expect((await page('/blog/forecasting-holiday-demand')).text).toContain(FIXTURE_FACTS.holidayArticle);
    const contact = await page('/contact');
    expect(contact.text).toContain(FIXTURE_FACTS.phone);
    expect(contact.text).not.toContain('Send');
  });

  it('keeps the headings with their sections', async () => {
    const { extracted } = await page('/pricing');
    expect(extracted.title).toBe('Pricing — Brightwater Analytics');
    // The h1 has no text of its own before the next heading: no empty section for it.
    expect(extracted.sections.map((s) => s.heading)).toEqual(['Starter', 'Growth', 'Enterprise']);
    const chunks = chunkSections(extracted.sections);
    // The plans are short sections: one chunk holds them all, each later heading written as a line.
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({
      heading: 'Starter',
      content: expect.stringContaining('Growth\nThe Growth plan costs 890 EUR per month'),
    });
  });

  it('finds every link of the home page, nav and footer included, for the crawl to filter', async () => {
    const { extracted } = await page('/');
    const links = extracted.links;
    for (const href of [
      '/about/',
      '/services?ref=nav',
      '/pricing#plans',
      '/private/internal-wiki',
      '/calendar'.replace('/calendar', '/events'),
    ]) {
      expect(links, href).toContain(`${site.url}${href}`);
    }
    expect(links).toContain('mailto:hello@brightwater.example');
    expect(links).toContain('tel:+4755501234');
    expect(links).toContain('https://partner.example.net/brightwater');
    // What the crawl keeps after normalising and the same-site rule.
    const frontier = new Set(links.map((l) => normalizeUrl(l)).filter((u): u is string => !!u && isSameSite(site.url, u)));
    expect(frontier).toContain(`${site.url}/about`);
    expect(frontier).toContain(`${site.url}/services`);
    expect(frontier).toContain(`${site.url}/pricing`);
    expect(frontier).toContain(`${site.url}/blog/shelfwise-launch`);
    expect(frontier).toContain(`${site.url}/blog/data-privacy`);
    expect([...frontier].some((u) => /mailto|tel:|javascript|partner\.example|blog\.brightwater/.test(u))).toBe(false);
  });

  it('reports canonical duplicates and noindex', async () => {
    expect((await page('/services-print')).extracted.canonical).toBe(`${site.url}/services`);
    expect((await page('/services?ref=x')).extracted.canonical).toBe(`${site.url}/services`);
    expect((await page('/thank-you')).extracted.noindex).toBe(true);
    expect((await page('/about')).extracted.noindex).toBe(false);
  });

  it('extracts the ISO-8859-1 and Shift_JIS pages with their words intact', async () => {
    const latin = await page('/docs/latin1');
    for (const w of FIXTURE_FACTS.latin1Words) expect(latin.text).toContain(w);
    expect(latin.extracted.lang).toBe('de');
    expect(latin.extracted.title).toBe('Über uns - Brightwater Analytics Deutschland');
    const ja = await page('/ja/company');
    for (const w of FIXTURE_FACTS.shiftJisWords) expect(ja.text).toContain(w);
    expect(ja.extracted.lang).toBe('ja');
    expect(ja.text).not.toContain('お問い合わせ');
    expect(ja.extracted.sections.map((s) => s.heading)).toEqual(['会社概要', '事業内容']);
    // Both sections are short: the chunker folds the second into the first, its heading written as a line.
    const chunks = chunkSections(ja.extracted.sections);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.content).toContain('事業内容\n需要予測サービス');
  });

  it('the calendar trap really is infinite (the crawl must bound it)', async () => {
    let next = '/calendar?month=0';
    for (let i = 0; i < 5; i++) {
      const { extracted } = await page(next);
      const forward = extracted.links.find((l) => l.includes(`month=${i + 1}`));
      expect(forward).toBeDefined();
      next = new URL(forward!).pathname + new URL(forward!).search;
    }
  });
});

describe('startGeneratedSite', () => {
  it('serves N linked pages with unique text, all reachable from /', async () => {
    const gen = await startGeneratedSite({ pages: 40 });
    try {
      const home = await fetchPage(client, `${gen.url}/`, { maxBytes: 1e6, timeoutMs: 5_000 });
      if (home.kind !== 'html') throw new Error(home.kind);
      const links = extractPage(home.html, home.finalUrl).links.filter((l) => l.includes('/p/'));
      expect(links).toHaveLength(40);
      const texts = new Set<string>();
      for (const l of links.slice(0, 10)) {
        const p = await fetchPage(client, l, { maxBytes: 1e6, timeoutMs: 5_000 });
        if (p.kind !== 'html') throw new Error(p.kind);
        const e = extractPage(p.html, p.finalUrl);
        texts.add(e.sections[0]!.text);
        expect(e.sections[0]!.text).toContain(gen.pageText(Number(l.split('/p/')[1])));
      }
      expect(texts.size).toBe(10);
      expect((await fetchPage(client, `${gen.url}/p/40`, { maxBytes: 1e6, timeoutMs: 5_000 })).kind).toBe('skipped');
    } finally {
      await gen.close();
    }
  });
});

describe('serveDirectory', () => {
  it('serves files with types, directory indexes and validators, and nothing outside its root', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kbchat-static-'));
    writeFileSync(path.join(dir, 'index.html'), '<!DOCTYPE html><title>Index</title><p>Root index page</p>');
    writeFileSync(path.join(dir, 'a.html'), '<!DOCTYPE html><title>A</title><p>Page A</p>');
    mkdirSync(path.join(dir, 'manual'));
    writeFileSync(path.join(dir, 'manual', 'index.html'), '<!DOCTYPE html><title>Manual</title><a href="install.html">Install</a>');
    const server = await serveDirectory(dir);
    try {
      // A directory asked for without its slash is redirected to it, so its index's relative links
      // resolve inside it (the crawler asks for /manual: "manual/index.html" is that page).
      const manual = await fetchPage(client, `${server.url}/manual`, { maxBytes: 1e6, timeoutMs: 5_000 });
      if (manual.kind !== 'html') throw new Error(manual.kind);
      expect(manual.finalUrl).toBe(`${server.url}/manual/`);
      expect(extractPage(manual.html, manual.finalUrl).links).toEqual([`${server.url}/manual/install.html`]);
      const root = await fetchPage(client, `${server.url}/`, { maxBytes: 1e6, timeoutMs: 5_000 });
      expect(root).toMatchObject({ kind: 'html', html: expect.stringContaining('Root index page') });
      const a = await fetchPage(client, `${server.url}/a.html`, { maxBytes: 1e6, timeoutMs: 5_000 });
      if (a.kind !== 'html') throw new Error(a.kind);
      expect(await fetchPage(client, `${server.url}/a.html`, { maxBytes: 1e6, timeoutMs: 5_000, etag: a.etag })).toMatchObject({
        kind: 'not-modified',
      });
      const traversal = await fetch(`${server.url}/..%2F..%2Fetc%2Fpasswd`);
      expect(traversal.status).toBe(404);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const pgDocs = '/tmp/corpora/usr/share/doc/postgresql-doc-15/html';
  it.skipIf(!existsSync(pgDocs))('serves the PostgreSQL docs corpus, whose pages extract without their navigation tables', async () => {
    const server = await serveDirectory(pgDocs);
    try {
      const p = await fetchPage(client, `${server.url}/sql-select.html`, { maxBytes: 5e6, timeoutMs: 5_000 });
      if (p.kind !== 'html') throw new Error(p.kind);
      const e = extractPage(p.html, p.finalUrl);
      expect(e.title).toBe('SELECT');
      expect(e.sections[0]).toMatchObject({ heading: 'SELECT', text: 'SELECT, TABLE, WITH — retrieve rows from a table or view' });
      expect(e.sections.map((s) => s.text).join(' ')).not.toMatch(/\bPrev\b|\bNext\b/);
      expect(e.links).toContain(`${server.url}/sql-selectinto.html`);
    } finally {
      await server.close();
    }
  });
});
