import got, { type Got } from 'got';

/**
 * The one outbound HTTP client for user-supplied URLs (crawl pages, robots.txt, sitemaps,
 * lead webhooks). Every request to a URL a user gave us leaves through a client made here.
 *
 * CONTRACT (owner: the "web" work package): requests whose resolved address is loopback, private,
 * link-local, unique-local, multicast, unspecified or another non-public range — or an
 * IPv4-mapped / NAT64 form of one — fail with OutboundBlockedError, checked at connect time
 * (so DNS rebinding fails) and on every redirect, unless allowPrivateNetworks is true.
 *
 * STUB: no guard yet; the web work package replaces the body, keeping these signatures.
 */
export interface OutboundOptions {
  allowPrivateNetworks: boolean;
  /** Sent as User-Agent. */
  userAgent?: string;
  /** Whole-request timeout, ms. */
  timeoutMs?: number;
}

export class OutboundBlockedError extends Error {
  readonly code = 'ERR_OUTBOUND_BLOCKED';
  readonly url: string;
  readonly address: string;
  constructor(url: string, address: string) {
    super(`refused to connect to ${address} (not a public address) for ${url}`);
    this.name = 'OutboundBlockedError';
    this.url = url;
    this.address = address;
  }
}

export const DEFAULT_USER_AGENT = 'kbchat-bot/0.1 (+https://github.com/kbchat/kbchat; crawls only sites its operators add)';

export function createOutboundClient(options: OutboundOptions): Got {
  return got.extend({
    headers: { 'user-agent': options.userAgent ?? DEFAULT_USER_AGENT },
    timeout: { request: options.timeoutMs ?? 15_000 },
    retry: { limit: 0 },
    throwHttpErrors: false,
    maxRedirects: 10,
  });
}

/**
 * Resolves url's host and throws OutboundBlockedError when it is not public (and private
 * networks are not allowed). For requests that do not go through got, e.g. Chromium's.
 */
export async function assertPublicUrl(_url: string, _allowPrivateNetworks: boolean): Promise<void> {}
