import type { Got } from 'got';

/**
 * Fetches one page for the crawl.
 * CONTRACT (owner: the "web" work package): through the guarded outbound client; follows
 * redirects (finalUrl is where it landed); HTML only (by Content-Type and by sniffing — a binary
 * served as text/html is skipped); body capped at maxBytes (skipped: 'too-large'); a whole-request
 * timeout; charset from the header, a BOM or <meta> (ISO-8859-1, Shift_JIS, UTF-8 BOM…), decoded
 * to a string; conditional GET with etag / lastModified when given (304 → notModified).
 * Never throws for an HTTP status: the outcome says what happened. Throws only for network
 * errors and timeouts that are worth a retry (`retryable: true` on the error), and
 * OutboundBlockedError (not retryable).
 * STUB: plain GET, utf-8.
 */
export interface FetchOptions {
  maxBytes: number;
  timeoutMs: number;
  etag?: string | null;
  lastModified?: string | null;
}

export type FetchOutcome =
  | {
      kind: 'html';
      url: string;
      finalUrl: string;
      status: number;
      html: string;
      etag: string | null;
      lastModified: string | null;
    }
  | { kind: 'not-modified'; url: string; finalUrl: string; status: 304 }
  | {
      kind: 'skipped';
      url: string;
      finalUrl: string;
      status: number | null;
      /** 'not-html' | 'too-large' | 'http-404' | 'http-5xx' | 'binary' | … (short, stable, shown in job progress) */
      reason: string;
      /** True for a status worth retrying later (5xx, 429). */
      retryable: boolean;
    };

export async function fetchPage(client: Got, url: string, options: FetchOptions): Promise<FetchOutcome> {
  const res = await client.get(url, { timeout: { request: options.timeoutMs } });
  const finalUrl = res.url;
  const type = String(res.headers['content-type'] ?? '');
  if (res.statusCode >= 400) {
    return { kind: 'skipped', url, finalUrl, status: res.statusCode, reason: `http-${res.statusCode}`, retryable: res.statusCode >= 500 };
  }
  if (!/html/i.test(type)) return { kind: 'skipped', url, finalUrl, status: res.statusCode, reason: 'not-html', retryable: false };
  return { kind: 'html', url, finalUrl, status: res.statusCode, html: res.body, etag: null, lastModified: null };
}
