// The crawl baseline: Crawlee's CheerioCrawler on the same site, run as its own process so its peak
// RSS is its own. It does what a minimal Crawlee scraper does: follow same-site links, take the
// title and the body text. Prints one JSON line: pages, seconds, peak RSS.
//
//   node bench/lib/crawlee-crawl.ts --url http://127.0.0.1:PORT/index.html --concurrency 8 [--max 5000]
import { parseArgs } from 'node:util';
import { CheerioCrawler, Configuration } from '@crawlee/cheerio';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string' },
    concurrency: { type: 'string', default: '8' },
    max: { type: 'string', default: '5000' },
  },
});
if (!args.url) throw new Error('--url is required');
const concurrency = Number(args.concurrency);

let pages = 0;
let textChars = 0;
// Crawlee keeps its request queue in its memory storage (persisted under CRAWLEE_STORAGE_DIR, which
// the bench points at a temp dir): its stock setup.
const crawler = new CheerioCrawler(
  {
    // Fixed concurrency, as ours: the autoscaled pool would otherwise start at 1 and ramp up.
    minConcurrency: concurrency,
    maxConcurrency: concurrency,
    maxRequestsPerCrawl: Number(args.max),
    maxRequestRetries: 2,
    async requestHandler({ $, enqueueLinks }) {
      const title = $('title').text();
      textChars += title.length + $('body').text().length;
      pages++;
      await enqueueLinks({ strategy: 'same-hostname' });
    },
  },
  new Configuration({ logLevel: 2 /* WARNING */ }),
);

const started = performance.now();
const stats = await crawler.run([args.url]);
const seconds = (performance.now() - started) / 1000;
process.stdout.write(
  `${JSON.stringify({
    pages,
    failed: stats.requestsFailed,
    seconds,
    textChars,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  })}\n`,
);
