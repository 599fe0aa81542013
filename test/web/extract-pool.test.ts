import { extractPage } from '@kbchat/crawler/web/extract';
import { closeExtractPool, extractPageWithin, ParseError } from '@kbchat/crawler/web/extract-pool';
import { afterAll, describe, expect, it } from 'vitest';

// A page's parse on a worker thread with a deadline (services/crawler/src/web/extract-pool.ts).

const small = `<html><head><title>Warranty</title><link rel="canonical" href="/warranty"></head><body>
<nav><a href="/">Home</a></nav><main><h1>Warranty</h1><p>Every installation carries a five year warranty on labour.</p>
<p>To make a claim, <a href="/claims">send us a photo</a>.</p></main></body></html>`;
/** About 4 MB of markup: a fraction of a second to parse, far past a 100 ms deadline. */
const big = `<html><head><title>Big</title></head><body><main>${Array.from(
  { length: 40_000 },
  (_, i) => `<div class="c"><p>Paragraph ${i} about the warranty of item ${i} and a few more words.</p></div>`,
).join('\n')}</main></body></html>`;

afterAll(async () => {
  await closeExtractPool();
});

describe('extractPageWithin', () => {
  it('reads a page as extractPage does', async () => {
    const options = { keepFooter: true, robotsToken: 'kbchat-bot' };
    expect(await extractPageWithin(small, 'https://site.example/warranty', options, 10_000)).toEqual(
      extractPage(small, 'https://site.example/warranty', options),
    );
  });

  it('ends a parse past its deadline with parse-timeout, and parses the next page on a new thread', async () => {
    const late = await extractPageWithin(big, 'https://site.example/big', {}, 100).catch((err: unknown) => err);
    expect(late).toBeInstanceOf(ParseError);
    expect((late as ParseError).reason).toBe('parse-timeout');
    expect((late as ParseError).message).toBe('parsing https://site.example/big took longer than 100 ms');
    const next = await extractPageWithin(small, 'https://site.example/warranty', {}, 10_000);
    expect(next.title).toBe('Warranty');
  });

  it('leaves the calling thread free while a page parses', async () => {
    const parse = extractPageWithin(big, 'https://site.example/big', {}, 60_000);
    // A timer set after the parse started fires before it ends: the parse does not hold this thread.
    const first = await Promise.race([parse.then(() => 'parse'), new Promise((resolve) => setTimeout(resolve, 10, 'timer'))]);
    expect(first).toBe('timer');
    expect((await parse).sections.length).toBeGreaterThan(0);
  });
});
