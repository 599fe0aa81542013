import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { findOutboundBlockedError, resetOnReusedSocket } from '@kbchat/shared/net/outbound';
import type { Got } from 'got';
import { decodeHtml, looksBinary, looksLikeHtml } from './decode.ts';

/**
 * Fetches one page for the crawl (docs/crawling.md "Fetching").
 *
 * Through the guarded outbound client; redirects followed (finalUrl is where it landed, bounded by
 * maxRedirects); HTML only — by Content-Type (text/html, application/xhtml+xml; none at all is sniffed)
 * and by the first bytes (a binary served as text/html is skipped 'binary'); the body is streamed and
 * abandoned once it passes maxBytes ('too-large', never buffered whole); a whole-request timeout;
 * charset from the BOM, the header or <meta>, decoded with iconv-lite; conditional GET with
 * etag/lastModified (304 → 'not-modified').
 * Never throws for an HTTP status: 429, 408 and 5xx come back skipped with retryable: true, other
 * 4xx with retryable: false. Throws FetchError (retryable: true) for network errors and timeouts, and
 * OutboundBlockedError (retryable: false) for an address the guard refuses, on any hop.
 */
export interface FetchOptions {
  maxBytes: number;
  timeoutMs: number;
  etag?: string | null;
  lastModified?: string | null;
  /** Redirect hops to follow (default: the client's, 10). */
  maxRedirects?: number;
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
      /** The encoding the body was decoded from. */
      charset?: string;
      /** Bytes received (after Content-Encoding was undone). */
      bytes?: number;
      /** The X-Robots-Tag header, for extractPage. */
      xRobotsTag?: string | null;
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
      /** Body bytes read before giving up (a 'too-large' page is abandoned just past maxBytes). */
      bytes?: number;
    };

export class FetchError extends Error {
  readonly code: string;
  readonly url: string;
  readonly retryable: boolean;
  constructor(url: string, message: string, code: string, retryable: boolean, cause?: unknown) {
    super(message, { cause });
    this.name = 'FetchError';
    this.url = url;
    this.code = code;
    this.retryable = retryable;
  }
}

const HTML_TYPES = /^(?:text\/html|application\/xhtml\+xml)$/i;
/** How many bytes to look at before deciding a body is text. */
const SNIFF_BYTES = 1024;

export function fetchPage(client: Got, url: string, options: FetchOptions): Promise<FetchOutcome> {
  return fetchOnce(client, url, options, true);
}

async function fetchOnce(client: Got, url: string, options: FetchOptions, mayAskAgain: boolean): Promise<FetchOutcome> {
  const headers: Record<string, string> = {
    accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5',
  };
  if (options.etag) headers['if-none-match'] = options.etag;
  if (options.lastModified) headers['if-modified-since'] = options.lastModified;

  const request = client.stream(url, {
    headers,
    timeout: { request: options.timeoutMs },
    retry: { limit: 0 },
    throwHttpErrors: false,
    ...(options.maxRedirects !== undefined ? { maxRedirects: options.maxRedirects } : {}),
  });

  let response: IncomingMessage & { url?: string; statusCode: number };
  try {
    [response] = (await once(request, 'response')) as [IncomingMessage & { url?: string; statusCode: number }];
  } catch (err) {
    request.destroy();
    // A kept-alive connection the server closed as the request went out: asked again once on a new one.
    if (mayAskAgain && resetOnReusedSocket(err)) return fetchOnce(client, url, options, false);
    return failure(url, request.redirectUrls, err);
  }

  const finalUrl = response.url ?? request.redirectUrls.at(-1)?.toString() ?? url;
  const status = response.statusCode;
  let received = 0;
  const skip = (reason: string, retryable = false): FetchOutcome => {
    request.destroy();
    return { kind: 'skipped', url, finalUrl, status, reason, retryable, bytes: received };
  };

  if (status === 304) {
    request.destroy();
    return { kind: 'not-modified', url, finalUrl, status: 304 };
  }
  if (status === 429 || status === 408 || status >= 500) return skip(`http-${status}`, true);
  if (status >= 400) return skip(`http-${status}`);
  if (status >= 300) return skip(`http-${status}`);

  const contentType = String(response.headers['content-type'] ?? '');
  const mediaType = contentType.split(';', 1)[0]!.trim();
  if (mediaType && !HTML_TYPES.test(mediaType)) return skip('not-html');
  const declaredLength = Number(response.headers['content-length']);
  // Content-Length counts encoded bytes; with compression the body may still grow past it, so the stream is counted too.
  if (Number.isFinite(declaredLength) && declaredLength > options.maxBytes && !response.headers['content-encoding'])
    return skip('too-large');

  const chunks: Buffer[] = [];
  let sniffed = false;
  try {
    for await (const chunk of request as AsyncIterable<Buffer>) {
      received += chunk.length;
      if (received > options.maxBytes) return skip('too-large');
      chunks.push(chunk);
      if (!sniffed && received >= SNIFF_BYTES) {
        sniffed = true;
        const verdict = sniff(Buffer.concat(chunks), mediaType);
        if (verdict) return skip(verdict);
      }
    }
  } catch (err) {
    request.destroy();
    return failure(url, request.redirectUrls, err, finalUrl);
  }
  const body = Buffer.concat(chunks, received);
  if (!sniffed) {
    const verdict = sniff(body, mediaType);
    if (verdict) return skip(verdict);
  }

  const { text, charset } = decodeHtml(body, contentType);
  return {
    kind: 'html',
    url,
    finalUrl,
    status,
    html: text,
    etag: headerValue(response.headers.etag),
    lastModified: headerValue(response.headers['last-modified']),
    charset,
    bytes: received,
    xRobotsTag: headerValue(response.headers['x-robots-tag']),
  };
}

/** 'binary' or 'not-html' when the first bytes say so; undefined for HTML. */
function sniff(bytes: Buffer, mediaType: string): string | undefined {
  if (looksBinary(bytes)) return 'binary';
  if (!mediaType && !looksLikeHtml(bytes)) return 'not-html';
  return undefined;
}

function headerValue(v: string | string[] | undefined): string | null {
  if (Array.isArray(v)) return v.join(', ');
  return v ?? null;
}

/** Outcome or exception for an error got raised before or while reading the body. */
function failure(url: string, redirectUrls: URL[], err: unknown, finalUrl?: string): FetchOutcome {
  const blocked = findOutboundBlockedError(err);
  if (blocked) throw blocked;
  const code = String((err as { code?: string }).code ?? 'ERR_FETCH');
  const landed = finalUrl ?? redirectUrls.at(-1)?.toString() ?? url;
  // A redirect loop or a redirect to a scheme we do not fetch is a property of the page, not a fault.
  if (code === 'ERR_TOO_MANY_REDIRECTS')
    return { kind: 'skipped', url, finalUrl: landed, status: null, reason: 'too-many-redirects', retryable: false };
  if (code === 'ERR_UNSUPPORTED_PROTOCOL' || code === 'ERR_INVALID_URL')
    return { kind: 'skipped', url, finalUrl: landed, status: null, reason: 'bad-redirect', retryable: false };
  const message = code === 'ETIMEDOUT' ? `timed out fetching ${url}` : `${code} fetching ${url}: ${(err as Error).message}`;
  throw new FetchError(url, message, code, true, err);
}
