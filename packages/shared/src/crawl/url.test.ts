import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSameSite, normalizeUrl, siteHost } from './url.ts';

describe('normalizeUrl', () => {
  it.each([
    // fragment, case, default port, credentials, trailing dot
    ['https://Example.COM/About#team', 'https://example.com/About'],
    ['HTTP://example.com:80/a', 'http://example.com/a'],
    ['https://example.com:443/a', 'https://example.com/a'],
    ['https://example.com:8443/a', 'https://example.com:8443/a'],
    ['https://user:pw@example.com/a', 'https://example.com/a'],
    ['https://example.com./a', 'https://example.com/a'],
    // index files and trailing slashes
    ['https://example.com', 'https://example.com/'],
    ['https://example.com/', 'https://example.com/'],
    ['https://example.com/index.html', 'https://example.com/'],
    ['https://example.com/INDEX.HTM', 'https://example.com/'],
    ['https://example.com/docs/index.html', 'https://example.com/docs'],
    ['https://example.com/docs/', 'https://example.com/docs'],
    ['https://example.com/docs//', 'https://example.com/docs'],
    ['https://example.com/Default.aspx', 'https://example.com/'],
    ['https://example.com/shop/index.php', 'https://example.com/shop'],
    ['https://example.com/index.html.bak', 'https://example.com/index.html.bak'],
    ['https://example.com/myindex.html', 'https://example.com/myindex.html'],
    // dot segments and percent-encoding
    ['https://example.com/a/./b/../c', 'https://example.com/a/c'],
    ['https://example.com/%7Euser/%61bc', 'https://example.com/~user/abc'],
    ['https://example.com/a%2fb', 'https://example.com/a%2Fb'],
    ['https://example.com/caf%c3%a9', 'https://example.com/caf%C3%A9'],
    ['https://example.com/café', 'https://example.com/caf%C3%A9'],
    ['https://example.com/a b', 'https://example.com/a%20b'],
    ['https://example.com/cart;jsessionid=ABC123', 'https://example.com/cart'],
    // query: tracking removed, sorted, empty dropped
    ['https://example.com/p?utm_source=x&utm_medium=y&id=3', 'https://example.com/p?id=3'],
    ['https://example.com/p?b=2&a=1', 'https://example.com/p?a=1&b=2'],
    ['https://example.com/p?a=2&a=1', 'https://example.com/p?a=2&a=1'],
    ['https://example.com/p?gclid=1&fbclid=2&msclkid=3&mc_cid=4&mc_eid=5&_ga=6&ref=7', 'https://example.com/p'],
    ['https://example.com/p?UTM_Campaign=z&q=kb', 'https://example.com/p?q=kb'],
    ['https://example.com/p?', 'https://example.com/p'],
    ['https://example.com/p?&&x=1&', 'https://example.com/p?x=1'],
    ['https://example.com/p?q=%7e%2f', 'https://example.com/p?q=~%2F'],
    ['https://example.com/p?PHPSESSID=abc&page=2', 'https://example.com/p?page=2'],
    ['https://example.com/search?q=a+b', 'https://example.com/search?q=a+b'],
    // IDN and IPv6 hosts
    ['https://BÜCHER.example/', 'https://xn--bcher-kva.example/'],
    ['http://[::1]:8080/x', 'http://[::1]:8080/x'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeUrl(input)).toBe(expected);
  });

  it('resolves relative references against a base', () => {
    expect(normalizeUrl('../b/index.html#x', 'https://example.com/a/c/page')).toBe('https://example.com/a/b');
    expect(normalizeUrl('?utm_source=n&page=2', 'https://example.com/list')).toBe('https://example.com/list?page=2');
    expect(normalizeUrl('//cdn.example.com/x', 'https://example.com/')).toBe('https://cdn.example.com/x');
  });

  it.each([
    'mailto:sales@example.com',
    'tel:+15551234',
    'javascript:void(0)',
    'data:text/html,<b>x</b>',
    'ftp://example.com/file',
    'file:///etc/passwd',
    'http://',
    'not a url',
    '',
  ])('%s → undefined', (input) => {
    expect(normalizeUrl(input)).toBeUndefined();
  });

  it('collapses every variant of one page to one string', () => {
    const variants = [
      'https://www.example.com/about',
      'https://www.example.com/about/',
      'https://WWW.example.com:443/about/index.html',
      'https://www.example.com/about?utm_source=newsletter',
      'https://www.example.com/about#team',
      'https://www.example.com/%61bout/',
    ];
    expect(new Set(variants.map((v) => normalizeUrl(v))).size).toBe(1);
  });

  it('settles in one pass when decoding would form a new escape', () => {
    expect(normalizeUrl('http://example.com/%a%30')).toBe('http://example.com/%25a0');
    expect(normalizeUrl('http://example.com/%25a0')).toBe('http://example.com/%25a0');
    expect(normalizeUrl('http://example.com/?q=100%')).toBe('http://example.com/?q=100%25');
  });

  it('is idempotent and deterministic (property)', () => {
    const part = fc.stringMatching(/^[a-zA-Z0-9._~%/-]{0,12}$/);
    fc.assert(
      fc.property(
        fc.constantFrom('http', 'https', 'HTTPS'),
        fc.constantFrom('example.com', 'WWW.Example.com', 'example.com:8080', 'example.com.'),
        fc.array(part, { maxLength: 4 }),
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'utm_x', 'ref', 'Q'), part), { maxLength: 4 }),
        fc.option(part),
        (scheme, host, segments, params, hash) => {
          const raw = `${scheme}://${host}/${segments.join('/')}${params.length ? `?${params.map(([k, v]) => `${k}=${v}`).join('&')}` : ''}${hash === null ? '' : `#${hash}`}`;
          const once = normalizeUrl(raw);
          if (once === undefined) return;
          expect(normalizeUrl(once)).toBe(once);
          expect(once).not.toContain('#');
          expect(once).not.toMatch(/[?&](utm_x|ref)=/);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('isSameSite', () => {
  it.each([
    ['https://example.com/a', 'https://www.example.com/b', true],
    ['https://www.example.com/', 'http://example.com/', true],
    ['https://example.com/', 'https://EXAMPLE.com./x', true],
    ['https://example.com/', 'https://blog.example.com/', false],
    ['https://www.example.com/', 'https://shop.example.com/', false],
    ['https://example.com/', 'https://example.org/', false],
    ['https://example.com/', 'https://notexample.com/', false],
    ['https://example.com/', 'https://example.com.evil.net/', false],
    ['http://127.0.0.1:4000/', 'http://127.0.0.1:4000/x', true],
    ['http://127.0.0.1:4000/', 'http://127.0.0.1:5000/x', false],
    ['https://example.com/', 'mailto:a@example.com', false],
    ['https://example.com/', 'not a url', false],
  ])('%s ~ %s → %s', (a, b, same) => {
    expect(isSameSite(a, b)).toBe(same);
  });

  it('siteHost folds www', () => {
    expect(siteHost('https://www.Example.com/x')).toBe('example.com');
    expect(siteHost('https://wwwexample.com/')).toBe('wwwexample.com');
  });
});
