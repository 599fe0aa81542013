/**
 * URL normalisation for the crawl frontier and page identity (DESIGN.md §5, docs/crawling.md).
 *
 * Two spellings of one page must give one string, so a page is fetched and stored once:
 *  - only http(s); mailto:, tel:, javascript:, data:, unparsable input → undefined;
 *  - lower-case scheme and host (WHATWG URL), trailing dot of the host dropped, default port dropped,
 *    credentials dropped (never crawl with, or store, a password found in a link);
 *  - fragment dropped; dot segments resolved;
 *  - percent-encoding: escapes of unreserved characters decoded (%7E → ~), others upper-cased (%2f → %2F);
 *  - `;jsessionid=…` path parameters dropped;
 *  - a last segment index.html, index.htm, index.php, index.shtml, default.aspx, default.asp, default.htm(l)
 *    → its directory;
 *  - no trailing slash, except the root: /about/ and /about are one page, spelt /about;
 *  - tracking and session parameters removed (utm_*, gclid, fbclid, msclkid, mc_cid, mc_eid, _ga, ref, …),
 *    the rest sorted by name (stable, so repeated names keep their order), an empty query dropped.
 * Links on a fetched page must be resolved against the URL the page was actually served from
 * (fetchPage's finalUrl), not against this identity: /docs and /docs/ resolve relative links differently.
 */

const TRACKING_PARAMS = new Set([
  'gclid',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'msclkid',
  'yclid',
  'twclid',
  'ttclid',
  'igshid',
  'li_fat_id',
  'mc_cid',
  'mc_eid',
  '_ga',
  '_gl',
  '_hsenc',
  '_hsmi',
  '__hstc',
  '__hssc',
  '__hsfp',
  'hsctatracking',
  'mkt_tok',
  'oly_anon_id',
  'oly_enc_id',
  'vero_id',
  'vero_conv',
  's_kwcid',
  'srsltid',
  'ref',
  'ref_src',
  'ref_url',
  'jsessionid',
  'phpsessid',
  'sessionid',
  'sid',
]);
const TRACKING_PREFIXES = ['utm_', 'pk_', 'mtm_', 'piwik_'];

const INDEX_FILES = /\/(?:index\.(?:html?|php|shtml)|default\.(?:aspx?|html?))$/i;

export function normalizeUrl(raw: string, base?: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw.trim(), base);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  if (!u.hostname) return undefined;
  u.hash = '';
  u.username = '';
  u.password = '';
  if (u.hostname.endsWith('.')) u.hostname = u.hostname.replace(/\.+$/, '');

  let pathname = normalizeEscapes(u.pathname).replace(/;jsessionid=[^/]*$/i, '');
  pathname = pathname.replace(INDEX_FILES, '/');
  if (pathname.length > 1 && pathname.endsWith('/')) pathname = pathname.replace(/\/+$/, '') || '/';
  u.pathname = pathname;

  const query = normalizeQuery(u.search);
  const origin = `${u.protocol}//${u.host}`;
  return `${origin}${u.pathname}${query ? `?${query}` : ''}`;
}

function normalizeQuery(search: string): string {
  if (search.length <= 1) return '';
  const kept: { key: string; pair: string }[] = [];
  for (const pair of search.slice(1).split('&')) {
    if (!pair) continue;
    const normalized = normalizeEscapes(pair);
    const rawKey = normalized.split('=', 1)[0]!;
    let key: string;
    try {
      key = decodeURIComponent(rawKey.replace(/\+/g, ' ')).toLowerCase();
    } catch {
      key = rawKey.toLowerCase();
    }
    if (TRACKING_PARAMS.has(key) || TRACKING_PREFIXES.some((p) => key.startsWith(p))) continue;
    kept.push({ key: rawKey, pair: normalized });
  }
  // Array.prototype.sort is stable: repeated names (a=1&a=2) keep their meaningful order.
  kept.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return kept.map((k) => k.pair).join('&');
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/**
 * Decodes escapes of unreserved characters and upper-cases the hex of the rest (RFC 3986 §6.2.2).
 * A bare "%" (not followed by two hex digits) is first written as %25, so decoding cannot join it
 * with a decoded digit into a new escape ("%a%30" → "%a0" → "%A0" would never settle).
 */
function normalizeEscapes(s: string): string {
  return s.replace(/%(?![0-9a-fA-F]{2})/g, '%25').replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => {
    const ch = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
  });
}

/** Host of a URL without one leading "www." — the crawl treats www and the apex as one site. */
export function siteHost(url: string): string {
  return new URL(url).hostname.replace(/\.+$/, '').replace(/^www\./, '');
}

/**
 * Same site for the crawl: same host, with www. and the apex counting as one; other subdomains are
 * other sites. http and https of one host are one site; an explicit non-default port is part of the site.
 */
export function isSameSite(a: string, b: string): boolean {
  try {
    const ua = new URL(a);
    const ub = new URL(b);
    if (!/^https?:$/.test(ua.protocol) || !/^https?:$/.test(ub.protocol)) return false;
    return siteHost(a) === siteHost(b) && ua.port === ub.port;
  } catch {
    return false;
  }
}
