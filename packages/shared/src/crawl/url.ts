/**
 * URL normalisation for the crawl frontier and page identity (DESIGN.md §5).
 * CONTRACT (owner: the "web" work package): drops the fragment, the default port, tracking
 * parameters (utm_*, gclid, fbclid, …); lower-cases scheme and host; collapses index.html/
 * trailing-slash variants; sorts the query. Returns undefined for non-http(s) or unparsable input.
 * STUB: fragment removal only.
 */
export function normalizeUrl(raw: string, base?: string): string | undefined {
  try {
    const u = new URL(raw, base);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    u.hash = '';
    return u.toString();
  } catch {
    return undefined;
  }
}

/** Same site for the crawl: same host, with www. and the apex counting as one. */
export function isSameSite(a: string, b: string): boolean {
  const host = (s: string) => new URL(s).hostname.replace(/^www\./, '');
  try {
    return host(a) === host(b);
  } catch {
    return false;
  }
}
