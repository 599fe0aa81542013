// Real HTTP servers on 127.0.0.1 for crawl tests: a small company website with the traps a crawler
// meets in the wild (startFixtureSite), a generated site of N linked pages (startGeneratedSite), and a
// static file server for the evaluation corpora (serveDirectory). Nothing here is mocked: they speak
// HTTP to got and to Chromium like any web server. Test-only: never imported from src/.
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const FIXTURES = fileURLToPath(new URL('../fixtures/site/', import.meta.url));

export type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

export interface FixtureServer {
  /** http://127.0.0.1:<port> (no trailing slash). */
  url: string;
  port: number;
  /** Requests per path (pathname, without the query). */
  hits: Map<string, number>;
  /** Every request, in order: method, path with query, and the headers that tests look at. */
  requests: {
    method: string;
    path: string;
    userAgent: string | undefined;
    ifNoneMatch: string | undefined;
    ifModifiedSince: string | undefined;
  }[];
  /** Requests so far for a path. */
  hitCount(pathname: string): number;
  close(): Promise<void>;
}

/** Distinct facts of the fixture company, for tests that ask questions about the crawled site. */
export const FIXTURE_FACTS = {
  company: 'Brightwater Analytics',
  founded: 'founded in 2011 in Tromsø, Norway, by Ingrid Halvorsen',
  employees: '48 employees',
  starterPrice: 'Starter plan costs 290 EUR per month',
  growthPrice: 'Growth plan costs 890 EUR per month',
  trial: '30-day free trial',
  email: 'hello@brightwater.example',
  phone: '+47 555 01 234',
  holidayArticle: 'cut holiday stockouts by 23 percent at Fjordmart',
  shelfwiseLaunch: 'ShelfWise launched on 4 March 2024',
  privacy: 'ISO 27001 certified since 2019',
  jsOnly: 'approve reorders with a single tap in the ShelfWise mobile app',
  sitemapOnlyCase: 'Fjordmart reduced waste by 31 percent',
  careers: 'hiring a senior data engineer in Bergen',
  latin1Words: ['Größenordnung', 'Kundenzufriedenheit', 'Smørrebrød', 'Süßwarenglück', '“Brightwater Bühne” – a tradition'],
  shiftJisWords: ['会社概要', '東京都千代田区丸の内', 'データ分析', 'シェルフワイズ'],
} as const;

/** Nav, header, cookie banner, sidebar and footer: the boilerplate that is on every page. */
export function layout(title: string, main: string, options: { head?: string; lang?: string } = {}): string {
  return `<!DOCTYPE html>
<html lang="${options.lang ?? 'en'}">
<head>
<meta charset="utf-8">
<title>${title}</title>
<link rel="stylesheet" href="/static/site.css">
${options.head ?? ''}
</head>
<body>
<div class="cookie-banner" role="dialog">We use cookies to improve your experience. <button>Accept all cookies</button></div>
<header class="site-header">
  <a href="/"><img src="/static/logo.png" alt="Brightwater logo"></a>
  <span class="tagline">Forecasts your shelves can trust</span>
</header>
<nav class="main-nav">
  <a href="/">Home</a>
  <a href="/about/">About us</a>
  <a href="/services?ref=nav">Services</a>
  <a href="/pricing#plans">Pricing</a>
  <a href="/blog/">Blog</a>
  <a href="/contact">Contact</a>
</nav>
<main>
${main}
</main>
<aside class="sidebar">
  <h3>Newsletter</h3>
  <p>Subscribe to the Brightwater newsletter for monthly retail insights.</p>
</aside>
<footer class="site-footer">
  <p>© 2025 Brightwater Analytics AS · Storgata 1, 9008 Tromsø · Org. no. 912 345 678</p>
  <a href="/privacy-policy">Privacy policy</a> <a href="/private/internal-wiki">Staff wiki</a>
</footer>
</body>
</html>`;
}

const PAGES: Record<string, () => string> = {
  '/': () =>
    layout(
      'Brightwater Analytics — demand forecasting for retailers',
      `<h1>Demand forecasting for mid-sized retailers</h1>
<p>Brightwater Analytics helps mid-sized retailers forecast demand store by store, so shelves are full when customers come and stockrooms are not full of what nobody buys.</p>
<h2>What we do</h2>
<p>Our two products are TideCast, a demand forecasting service, and ShelfWise, which turns forecasts into reorder suggestions. Read about our <a href="/services">services</a>, see the <a href="/pricing">pricing</a>, or <a href="/contact">contact us</a>.</p>
<h2>From the blog</h2>
<ul>
  <li><a href="/blog/forecasting-holiday-demand">Forecasting holiday demand</a></li>
  <li><a href="/blog/shelfwise-launch?utm_source=home&amp;utm_medium=web">ShelfWise is here</a></li>
  <li><a href="/blog/data-privacy#storage">How we protect your data</a></li>
</ul>
<h2>More</h2>
<p>
  <a href="/old-pricing">Our old price list</a> ·
  <a href="/events">Events calendar</a> ·
  <a href="/app">ShelfWise app</a> ·
  <a href="/docs/latin1">Über uns (Deutsch)</a> ·
  <a href="/docs/latin1-header">Standort München</a> ·
  <a href="/docs/bom">Glossary</a> ·
  <a href="/ja/company">会社概要</a> ·
  <a href="/downloads/big-report">Annual report (full)</a> ·
  <a href="/downloads/brochure">Brochure</a> ·
  <a href="/downloads/archive">Price list archive</a> ·
  <a href="/slow">Live status</a> ·
  <a href="/flaky">Customer stories</a> ·
  <a href="/services-print">Services (print)</a> ·
  <a href="/internal-only/roadmap">Roadmap</a> ·
  <a href="/star-only/notes">Notes</a> ·
  <a href="/missing-page">A page that is gone</a> ·
  <a href="/thank-you">Thank you</a>
</p>
<p>
  Partners: <a href="https://partner.example.net/brightwater">Northwind Retail</a>,
  <a href="http://www.brightwater-analytics.example.org/">our sister company</a>,
  <a href="https://blog.brightwater.example/">the engineering blog</a>.
  Write to <a href="mailto:hello@brightwater.example">hello@brightwater.example</a>,
  call <a href="tel:+4755501234">+47 555 01 234</a>,
  or <a href="javascript:void(0)">open the chat</a>.
</p>`,
    ),
  '/about': () =>
    layout(
      'About us — Brightwater Analytics',
      `<h1>About Brightwater Analytics</h1>
<p>Brightwater Analytics was founded in 2011 in Tromsø, Norway, by Ingrid Halvorsen, a statistician who spent ten years planning stock for a grocery chain.</p>
<h2>Team</h2>
<p>Today we are 48 employees in Tromsø, Bergen and Munich. Half of the team are data scientists; the other half build and support the software.</p>
<h2>Values</h2>
<p>We publish our forecast accuracy every quarter, including the quarters when it was worse than we hoped.</p>`,
    ),
  '/services': () =>
    layout(
      'Services — Brightwater Analytics',
      `<h1>Services</h1>
<h2>TideCast demand forecasting</h2>
<p>TideCast forecasts daily demand for every product in every store, fourteen weeks ahead, from your sales history, promotions, local weather and school holidays.</p>
<h2>ShelfWise inventory optimisation</h2>
<p>ShelfWise turns TideCast forecasts into reorder suggestions that respect pack sizes, delivery days and shelf space.</p>
<h2>Price elasticity studies</h2>
<p>Our analysts measure how demand for your key products responds to price changes, and report within six weeks.</p>`,
      { head: '<link rel="canonical" href="/services">' },
    ),
  '/services-print': () =>
    layout(
      'Services (print version) — Brightwater Analytics',
      `<h1>Services</h1><p>TideCast forecasts daily demand for every product in every store, fourteen weeks ahead. ShelfWise turns the forecasts into reorder suggestions. Printable version of our services page.</p>`,
      { head: '<link rel="canonical" href="/services">' },
    ),
  '/pricing': () =>
    layout(
      'Pricing — Brightwater Analytics',
      `<h1 id="plans">Pricing</h1>
<h2>Starter</h2>
<p>The Starter plan costs 290 EUR per month and covers up to 5 stores, with TideCast forecasts refreshed weekly.</p>
<h2>Growth</h2>
<p>The Growth plan costs 890 EUR per month and covers up to 40 stores, with daily forecasts and ShelfWise included.</p>
<h2>Enterprise</h2>
<p>Enterprise pricing is custom. Every plan starts with a 30-day free trial, and annual billing saves 15 percent.</p>`,
    ),
  '/contact': () =>
    layout(
      'Contact — Brightwater Analytics',
      `<h1>Contact us</h1>
<p>Email hello@brightwater.example or call +47 555 01 234. Our office hours are Monday to Friday, 08:00 to 16:00 CET.</p>
<form action="/contact" method="post"><label>Name <input name="name"></label><label>Email <input name="email"></label><button>Send</button></form>`,
    ),
  '/blog': () =>
    layout(
      'Blog — Brightwater Analytics',
      `<h1>Blog</h1>
<article><h2><a href="/blog/forecasting-holiday-demand">Forecasting holiday demand</a></h2><p>What a decade of Christmas sales taught our models.</p></article>
<article><h2><a href="/blog/shelfwise-launch">ShelfWise is here</a></h2><p>Reorder suggestions that respect your delivery days.</p></article>
<article><h2><a href="/blog/data-privacy">How we protect your data</a></h2><p>Where your data lives and who can see it.</p></article>`,
    ),
  '/blog/forecasting-holiday-demand': () =>
    layout(
      'Forecasting holiday demand — Brightwater Analytics',
      `<article><h1>Forecasting holiday demand</h1>
<p>Holiday weeks break naive forecasts: sales of some products multiply by ten while others vanish. Our holiday model learns each store's own pattern from past years.</p>
<p>In the 2023 season our models cut holiday stockouts by 23 percent at Fjordmart, a chain of 31 grocery stores in northern Norway, while reducing leftover seasonal stock.</p></article>`,
    ),
  '/blog/shelfwise-launch': () =>
    layout(
      'ShelfWise is here — Brightwater Analytics',
      `<article><h1>ShelfWise is here</h1>
<p>ShelfWise launched on 4 March 2024. It integrates with Shopify and Lightspeed, and imports delivery schedules from your suppliers' EDI feeds.</p></article>`,
    ),
  '/blog/data-privacy': () =>
    layout(
      'How we protect your data — Brightwater Analytics',
      `<article><h1>How we protect your data</h1>
<h2 id="storage">Storage</h2>
<p>Customer data is stored in the Frankfurt region and never leaves the European Union. Brightwater Analytics is ISO 27001 certified since 2019.</p></article>`,
    ),
  '/case-studies/fjordmart': () =>
    layout(
      'Case study: Fjordmart — Brightwater Analytics',
      `<h1>Case study: Fjordmart</h1><p>With TideCast and ShelfWise, Fjordmart reduced waste by 31 percent in fresh produce within one year, across all of its stores.</p>`,
    ),
  '/careers': () =>
    layout(
      'Careers — Brightwater Analytics',
      `<h1>Careers</h1><p>We are hiring a senior data engineer in Bergen to build the pipelines that feed TideCast. Remote work within Norway is possible.</p>`,
    ),
  '/thank-you': () =>
    layout('Thank you', `<h1>Thank you</h1><p>Thank you for your message. We answer within one working day.</p>`, {
      head: '<meta name="robots" content="noindex">',
    }),
  '/privacy-policy': () =>
    layout(
      'Privacy policy — Brightwater Analytics',
      `<h1>Privacy policy</h1><p>We process personal data only to answer your enquiries and to provide our services. You may ask us to delete your data at any time.</p>`,
    ),
  '/private/internal-wiki': () => layout('Staff wiki', `<h1>Staff wiki</h1><p>INTERNAL: the 2026 price rise is 12 percent.</p>`),
  '/internal-only/roadmap': () => layout('Roadmap', `<h1>Roadmap</h1><p>INTERNAL ROADMAP: not for bots.</p>`),
  '/star-only/notes': () =>
    layout('Notes', `<h1>Notes</h1><p>These notes are disallowed for other robots but not for kbchat-bot, which has its own group.</p>`),
  '/app': () => `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>ShelfWise app</title>
<link rel="stylesheet" href="/static/site.css"><link rel="preload" href="/static/font.woff2" as="font" crossorigin></head>
<body><div id="root"></div><img src="/static/logo.png" alt=""><script src="/static/app.js"></script></body></html>`,
};

const APP_JS = `fetch('/api/app-content.json')
  .then((r) => r.json())
  .then((d) => {
    const root = document.getElementById('root');
    root.innerHTML = '<h1>' + d.title + '</h1>' + d.paragraphs.map((p) => '<p>' + p + '</p>').join('');
  });`;

const APP_CONTENT = {
  title: 'The ShelfWise mobile app',
  paragraphs: [
    'Store managers approve reorders with a single tap in the ShelfWise mobile app, even from the stockroom.',
    'The app shows tomorrow’s deliveries, flags products that will run out before the next delivery, and works offline in stores with poor coverage.',
  ],
};

export interface FixtureSiteOptions {
  /** Crawl-delay in robots.txt, seconds (default 0.1, so tests stay quick). */
  crawlDelaySeconds?: number;
  /** How long /slow takes to answer, ms (default 5000). */
  slowMs?: number;
  /** How many times /flaky answers 503 before it answers 200 (default 1). */
  flakyFailures?: number;
  /** Size of /downloads/big-report, bytes (default 10 MB). */
  bigBytes?: number;
}

export interface FixtureSite extends FixtureServer {
  /** Serve path with this HTML (or handler) from now on; null makes it 404 (a page that disappeared); undefined restores the original. */
  setPage(pathname: string, page: string | Handler | null | undefined): void;
}

/** The fixture company website with its traps, on 127.0.0.1. */
export async function startFixtureSite(options: FixtureSiteOptions = {}): Promise<FixtureSite> {
  const overrides = new Map<string, string | Handler | null>();
  let flakyLeft = options.flakyFailures ?? 1;
  const bigBytes = options.bigBytes ?? 10 * 1024 * 1024;
  let base = '';

  const server = await startServer(async (req, res) => {
    const u = new URL(req.url ?? '/', 'http://fixture');
    const p = u.pathname.length > 1 ? u.pathname.replace(/\/+$/, '') : u.pathname;

    if (overrides.has(p)) {
      const page = overrides.get(p);
      if (page === null) return notFound(res);
      if (typeof page === 'function') return page(req, res);
      return sendHtml(req, res, page as string);
    }

    switch (p) {
      case '/robots.txt':
        return send(
          res,
          200,
          'text/plain; charset=utf-8',
          `# Brightwater Analytics
User-agent: *
Disallow: /private/
Disallow: /star-only/
Crawl-delay: 5

User-agent: kbchat-bot
Disallow: /private/
Disallow: /internal-only/
Crawl-delay: ${options.crawlDelaySeconds ?? 0.1}

Sitemap: ${base}/sitemap_index.xml
Sitemap: /sitemap.txt
`,
        );
      case '/sitemap_index.xml':
        return send(
          res,
          200,
          'application/xml',
          `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>${base}/sitemaps/pages.xml</loc><lastmod>2025-01-01</lastmod></sitemap>
  <sitemap><loc>${base}/sitemaps/case-studies.xml.gz</loc></sitemap>
</sitemapindex>`,
        );
      case '/sitemaps/pages.xml':
        return send(
          res,
          200,
          'application/xml; charset=utf-8',
          `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${[
  '/',
  '/about',
  '/services',
  '/pricing',
  '/contact',
  '/blog/forecasting-holiday-demand',
  '/blog/shelfwise-launch?utm_source=sitemap&amp;x=1',
]
  .map((s) => `  <url><loc>${base}${s}</loc><changefreq>weekly</changefreq></url>`)
  .join('\n')}
</urlset>`,
        );
      case '/sitemaps/case-studies.xml.gz':
        // Served as a file download (no Content-Encoding): the reader must gunzip it itself.
        return send(
          res,
          200,
          'application/x-gzip',
          gzipSync(
            `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>${base}/case-studies/fjordmart</loc></url>
  <url><loc>${base}/blog/data-privacy</loc></url>
</urlset>`,
          ),
        );
      case '/sitemap.txt':
        return send(res, 200, 'text/plain', `${base}/careers\n${base}/about\n\nnot a url\n`);
      case '/old-pricing':
        return redirect(res, 301, '/pricing-2023');
      case '/pricing-2023':
        return redirect(res, 302, '/pricing');
      case '/events':
        return sendHtml(
          req,
          res,
          layout('Events — Brightwater Analytics', `<h1>Events</h1><p>See the <a href="/calendar?month=0">calendar</a>.</p>`),
        );
      case '/calendar': {
        // The infinite trap: every month links to the next and the previous, forever.
        const month = Number(u.searchParams.get('month') ?? 0) || 0;
        return sendHtml(
          req,
          res,
          layout(
            `Calendar month ${month}`,
            `<h1>Calendar, month ${month}</h1><p>No events this month.</p><p><a href="/calendar?month=${month - 1}">Previous month</a> <a href="/calendar?month=${month + 1}">Next month</a></p>`,
          ),
        );
      }
      case '/downloads/big-report':
        return streamBig(res, bigBytes, false);
      case '/downloads/big-report-sized':
        return streamBig(res, bigBytes, true);
      case '/downloads/brochure':
        return send(res, 200, 'text/html; charset=utf-8', readFileSync(path.join(FIXTURES, 'brochure.png')));
      case '/downloads/archive':
        return send(res, 200, 'text/html', readFileSync(path.join(FIXTURES, 'archive.zip')));
      case '/docs/latin1':
        // Charset only in <meta http-equiv>: the header says nothing.
        return send(res, 200, 'text/html', readFileSync(path.join(FIXTURES, 'latin1.html')));
      case '/docs/latin1-header':
        return send(res, 200, 'text/html; charset=ISO-8859-1', readFileSync(path.join(FIXTURES, 'latin1.html')));
      case '/docs/bom':
        return send(
          res,
          200,
          'text/html',
          Buffer.concat([
            Buffer.from([0xef, 0xbb, 0xbf]),
            Buffer.from(
              layout(
                'Glossary — Brightwater Analytics',
                `<h1>Glossary</h1><p>A naïve forecast repeats last year’s sales — café owners love it, but it fails at Easter. ☕</p>`,
              ),
            ),
          ]),
        );
      case '/ja/company':
        return send(res, 200, 'text/html', readFileSync(path.join(FIXTURES, 'shift-jis.html')));
      case '/slow':
        await new Promise((r) => setTimeout(r, options.slowMs ?? 5000));
        if (res.destroyed) return;
        return sendHtml(req, res, layout('Live status', '<h1>Live status</h1><p>All systems operational.</p>'));
      case '/flaky':
        if (flakyLeft-- > 0) return send(res, 503, 'text/html', '<h1>Service temporarily unavailable</h1>', { 'retry-after': '1' });
        return sendHtml(
          req,
          res,
          layout(
            'Customer stories — Brightwater Analytics',
            '<h1>Customer stories</h1><p>Nordlys Sport doubled its forecast accuracy in ski season.</p>',
          ),
        );
      case '/static/app.js':
        return send(res, 200, 'application/javascript', APP_JS);
      case '/api/app-content.json':
        return send(res, 200, 'application/json', JSON.stringify(APP_CONTENT));
      case '/static/logo.png':
        return send(res, 200, 'image/png', readFileSync(path.join(FIXTURES, 'brochure.png')));
      case '/static/site.css':
        return send(res, 200, 'text/css', 'body { font-family: sans-serif; }');
      case '/static/font.woff2':
        return send(res, 200, 'font/woff2', Buffer.from('wOF2fake'));
    }
    const page = PAGES[p];
    if (page) return sendHtml(req, res, page());
    return notFound(res);
  });
  base = server.url;
  return {
    ...server,
    setPage(pathname, page) {
      const key = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
      if (page === undefined) overrides.delete(key);
      else overrides.set(key, page);
    },
  };
}

export interface GeneratedSiteOptions {
  pages: number;
  /** Delay before each page answers, ms (default 0): slows a crawl down enough to kill it midway. */
  delayMs?: number;
  /** Links from each page to the following pages (default 3). */
  linksPerPage?: number;
}

/**
 * A site of `pages` pages, /p/0 … /p/N-1, each with unique text (its number, a serial code and a
 * word list), reachable from / through a chain of links plus an index of every page on /.
 */
export async function startGeneratedSite(options: GeneratedSiteOptions): Promise<FixtureServer & { pageText(i: number): string }> {
  const n = options.pages;
  const per = options.linksPerPage ?? 3;
  const serial = (i: number) => createHash('sha256').update(`page-${i}`).digest('hex').slice(0, 12);
  const words = [
    'harbour',
    'glacier',
    'aurora',
    'fjord',
    'lichen',
    'tundra',
    'reindeer',
    'midnight',
    'kelp',
    'skerry',
    'birch',
    'cloudberry',
  ];
  const pageText = (i: number) =>
    `Page ${i} documents widget model W-${i} with serial code ${serial(i)}. It is rated for the ${words[i % words.length]} and ${words[(i * 7 + 3) % words.length]} climates, weighs ${100 + (i % 50)} grams and ships from warehouse ${1 + (i % 9)}.`;

  const server = await startServer(async (req, res) => {
    const u = new URL(req.url ?? '/', 'http://generated');
    if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
    if (res.destroyed) return;
    if (u.pathname === '/robots.txt') return notFound(res);
    if (u.pathname === '/' || u.pathname === '/index.html') {
      const index = Array.from({ length: n }, (_, i) => `<li><a href="/p/${i}">Widget ${i}</a></li>`).join('');
      return sendHtml(
        req,
        res,
        generatedLayout('Widget catalogue', `<h1>Widget catalogue</h1><p>Every widget we make, one page each.</p><ul>${index}</ul>`),
      );
    }
    const m = /^\/p\/(\d+)$/.exec(u.pathname);
    const i = m ? Number(m[1]) : -1;
    if (i < 0 || i >= n) return notFound(res);
    const next = Array.from({ length: per }, (_, k) => (i + k + 1) % n)
      .map((j) => `<a href="/p/${j}">Widget ${j}</a>`)
      .join(' ');
    return sendHtml(req, res, generatedLayout(`Widget ${i}`, `<h1>Widget ${i}</h1><p>${pageText(i)}</p><p>See also: ${next}</p>`));
  });
  return { ...server, pageText };
}

function generatedLayout(title: string, main: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>
<nav><a href="/">Catalogue</a></nav><main>${main}</main><footer>Widgets AS · Generated test site</footer></body></html>`;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css',
  '.js': 'application/javascript',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.jpg': 'image/jpeg',
  '.svg': 'image/svg+xml',
  '.gz': 'application/gzip',
};

/** Static files from dir (a directory serves its index.html at its address with a slash), for the evaluation corpora. */
export async function serveDirectory(dir: string): Promise<FixtureServer> {
  const root = path.resolve(dir);
  return startServer(async (req, res) => {
    let pathname: string;
    try {
      pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://static').pathname);
    } catch {
      return send(res, 400, 'text/plain', 'bad path');
    }
    let file = path.join(root, pathname);
    if (file !== root && !file.startsWith(root + path.sep)) return notFound(res);
    let info = await stat(file).catch(() => null);
    if (info?.isDirectory()) {
      // As Apache (DirectorySlash), nginx, Caddy and every static host do: a directory's address ends
      // in a slash, and relative links on its index page resolve against that.
      if (!pathname.endsWith('/')) {
        const query = new URL(req.url ?? '/', 'http://static').search;
        return redirect(res, 301, `${encodeURI(pathname)}/${query}`);
      }
      file = path.join(file, 'index.html');
      info = await stat(file).catch(() => null);
    }
    if (!info?.isFile()) return notFound(res);
    const etag = `"${info.size.toString(16)}-${info.mtimeMs.toString(16)}"`;
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, { etag });
      return res.end();
    }
    res.writeHead(200, {
      'content-type': CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
      'content-length': info.size,
      etag,
      'last-modified': info.mtime.toUTCString(),
    });
    createReadStream(file).pipe(res);
  });
}

// --- plumbing -------------------------------------------------------------------------------------

async function startServer(handler: Handler): Promise<FixtureServer> {
  const hits = new Map<string, number>();
  const requests: FixtureServer['requests'] = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://fixture');
    hits.set(u.pathname, (hits.get(u.pathname) ?? 0) + 1);
    requests.push({
      method: req.method ?? 'GET',
      path: `${u.pathname}${u.search}`,
      userAgent: req.headers['user-agent'],
      ifNoneMatch: req.headers['if-none-match'],
      ifModifiedSince: req.headers['if-modified-since'],
    });
    Promise.resolve(handler(req, res)).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, 'text/plain', `fixture error: ${(err as Error).message}`);
      else res.destroy();
    });
  });
  // WebSocket upgrades are counted too (a renderer must not open them), then refused.
  server.on('upgrade', (req: IncomingMessage, socket: import('node:stream').Duplex) => {
    const u = new URL(req.url ?? '/', 'http://fixture');
    hits.set(u.pathname, (hits.get(u.pathname) ?? 0) + 1);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    requests,
    hitCount: (pathname) => hits.get(pathname) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const LAST_MODIFIED = new Date('2025-01-15T10:00:00Z').toUTCString();

/** HTML with an ETag and Last-Modified, answering conditional requests with 304. */
function sendHtml(req: IncomingMessage, res: ServerResponse, html: string): void {
  const etag = `"${createHash('sha1').update(html).digest('hex').slice(0, 16)}"`;
  if (req.headers['if-none-match'] === etag || (!req.headers['if-none-match'] && req.headers['if-modified-since'] === LAST_MODIFIED)) {
    res.writeHead(304, { etag, 'last-modified': LAST_MODIFIED });
    res.end();
    return;
  }
  send(res, 200, 'text/html; charset=utf-8', html, { etag, 'last-modified': LAST_MODIFIED });
}

function send(res: ServerResponse, status: number, contentType: string, body: string | Buffer, headers: Record<string, string> = {}): void {
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, { 'content-type': contentType, 'content-length': buf.length, ...headers });
  res.end(buf);
}

function redirect(res: ServerResponse, status: number, location: string): void {
  res.writeHead(status, { location, 'content-length': 0 });
  res.end();
}

function notFound(res: ServerResponse): void {
  send(res, 404, 'text/html; charset=utf-8', '<!DOCTYPE html><title>Not found</title><h1>Not found</h1>');
}

/** A huge HTML page, streamed as it is read: with sized, a Content-Length announces it up front. */
function streamBig(res: ServerResponse, bytes: number, sized: boolean): void {
  const head = Buffer.from(
    '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Annual report</title></head><body><h1>Annual report</h1>',
  );
  const para = '<p>Revenue grew in every quarter of the year, driven by new TideCast customers in Germany and Austria.</p>\n';
  const block = Buffer.from(para.repeat(Math.ceil(65536 / para.length)));
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...(sized ? { 'content-length': String(bytes) } : {}) });
  let sent = 0;
  let closed = false;
  res.on('close', () => {
    closed = true;
  });
  const write = () => {
    while (sent < bytes && !closed) {
      const chunk = sent === 0 ? head : block.subarray(0, Math.min(block.length, bytes - sent));
      sent += chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', write);
        return;
      }
    }
    if (!closed) res.end();
  };
  write();
}
