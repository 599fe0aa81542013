/**
 * A crawl's scope: `include` / `exclude` URL patterns (docs/crawling.md "Scope"). A pattern that
 * starts with "/" is matched against the URL's path (and query, when the pattern has a "?"), any
 * other against the whole URL. `*` matches within one path segment, `**` across segments; nothing
 * else is special. A URL is in scope when it matches an include (or there are none) and no exclude.
 */
export interface CrawlScope {
  include?: readonly string[] | undefined;
  exclude?: readonly string[] | undefined;
}

export const MAX_SCOPE_PATTERNS = 20;
export const MAX_SCOPE_PATTERN_LENGTH = 200;

function globToRegExp(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '*') {
      if (pattern[i + 1] === '*') {
        // "/**/" also matches "/": "/docs/**/intro" takes "/docs/intro".
        if (pattern[i + 2] === '/') {
          out += '(?:.*/)?';
          i += 2;
        } else {
          out += '.*';
          i += 1;
        }
      } else out += '[^/]*';
    } else out += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

interface Matcher {
  onPath: boolean;
  withQuery: boolean;
  re: RegExp;
}

function compile(pattern: string): Matcher {
  return { onPath: pattern.startsWith('/'), withQuery: pattern.includes('?'), re: globToRegExp(pattern) };
}

function matches(m: Matcher, url: URL): boolean {
  if (!m.onPath) return m.re.test(url.href);
  return m.re.test(m.withQuery ? `${url.pathname}${url.search}` : url.pathname);
}

/** A predicate over absolute URLs; everything is in scope when no pattern is given. */
export function compileScope(scope: CrawlScope): (url: string) => boolean {
  const include = (scope.include ?? []).map(compile);
  const exclude = (scope.exclude ?? []).map(compile);
  if (include.length === 0 && exclude.length === 0) return () => true;
  return (raw) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return false;
    }
    if (include.length > 0 && !include.some((m) => matches(m, url))) return false;
    return !exclude.some((m) => matches(m, url));
  };
}
