import dns, { type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type stream from 'node:stream';
import got, { type Got } from 'got';
import ipaddr from 'ipaddr.js';
import { canonicalHost, classifyAddress, isIpLiteral } from './address-policy.ts';

/**
 * The one outbound HTTP client for user-supplied URLs (crawl pages, robots.txt, sitemaps,
 * lead webhooks). Every request to a URL a user gave us leaves through a client made here.
 *
 * Requests whose resolved address is not public (address-policy.ts) fail with OutboundBlockedError
 * unless allowPrivateNetworks is true. The check sits in the client's own http/https agents, i.e. at
 * the moment a socket is opened: the resolver's answer is judged and handed straight to connect(), so a
 * DNS answer that changes between a check and the connection (rebinding) cannot slip through, and every
 * redirect hop opens its sockets the same way. IP-literal hosts, for which Node skips the resolver, are
 * judged in the same place; the connected socket's peer address is checked once more as a backstop.
 */
export interface OutboundOptions {
  allowPrivateNetworks: boolean;
  /** Sent as User-Agent. */
  userAgent?: string;
  /** Whole-request timeout, ms. */
  timeoutMs?: number;
  /** Redirect hops followed before got gives up (default 10). */
  maxRedirects?: number;
  /**
   * CIDRs reachable even though they are not public (e.g. one internal CRM for webhooks). Everything
   * else stays refused. Tests use it to stand a "public" server on a second loopback address.
   */
  allowAddresses?: string[];
  /** Resolver used instead of dns.lookup (tests: DNS rebinding, names that resolve to loopback). */
  lookup?: LookupFunction;
}

export type LookupFunction = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export class OutboundBlockedError extends Error {
  readonly code = 'ERR_OUTBOUND_BLOCKED';
  /** A refused address stays refused: retrying cannot help. */
  readonly retryable = false;
  readonly url: string;
  readonly address: string;
  constructor(url: string, address: string) {
    super(`refused to connect to ${address} (not a public address) for ${url}`);
    this.name = 'OutboundBlockedError';
    this.url = url;
    this.address = address;
  }
}

/** The OutboundBlockedError behind err (got wraps it in a RequestError), if any. */
export function findOutboundBlockedError(err: unknown): OutboundBlockedError | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof OutboundBlockedError) return e;
  }
  return undefined;
}

export const DEFAULT_USER_AGENT = 'kbchat-bot/0.1 (+https://github.com/kbchat/kbchat; crawls only sites its operators add)';

interface AddressPolicy {
  allowPrivateNetworks: boolean;
  exceptions: [ipaddr.IPv4 | ipaddr.IPv6, number][];
  lookup: LookupFunction;
}

function makePolicy(options: Pick<OutboundOptions, 'allowPrivateNetworks' | 'allowAddresses' | 'lookup'>): AddressPolicy {
  return {
    allowPrivateNetworks: options.allowPrivateNetworks,
    exceptions: (options.allowAddresses ?? []).map((cidr) => (cidr.includes('/') ? ipaddr.parseCIDR(cidr) : toHostCidr(cidr))),
    lookup: options.lookup ?? (dns.lookup as unknown as LookupFunction),
  };
}

function toHostCidr(address: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  const parsed = ipaddr.parse(address);
  return [parsed, parsed.kind() === 'ipv4' ? 32 : 128];
}

/** Throws OutboundBlockedError when policy refuses address. */
function checkAddress(policy: AddressPolicy, url: string, address: string): void {
  if (policy.allowPrivateNetworks) return;
  let verdict: ReturnType<typeof classifyAddress>;
  try {
    verdict = classifyAddress(address);
  } catch {
    throw new OutboundBlockedError(url, address);
  }
  if (verdict.public) return;
  const parsed = ipaddr.parse(verdict.address);
  const excepted = policy.exceptions.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits));
  if (!excepted) throw new OutboundBlockedError(url, verdict.address);
}

/**
 * A dns.lookup replacement that resolves every address and refuses the whole answer when any of them
 * is not allowed (a name that mixes public and private records is itself suspicious). It answers
 * both shapes Node asks for: one address, and `all: true` (autoSelectFamily / happy eyeballs).
 */
function guardedLookup(policy: AddressPolicy, url: string, base: LookupFunction): net.LookupFunction {
  return ((hostname: string, options: dns.LookupOptions | number | undefined, callback: (...args: unknown[]) => void) => {
    const opts: dns.LookupOptions =
      typeof options === 'object' && options !== null ? options : { family: typeof options === 'number' ? options : 0 };
    base(hostname, { ...opts, all: true }, (err, addresses) => {
      if (err) return callback(err);
      try {
        if (!addresses || addresses.length === 0) throw Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' });
        for (const a of addresses) checkAddress(policy, url, a.address);
      } catch (e) {
        return callback(e);
      }
      if (opts.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  }) as net.LookupFunction;
}

type ConnectionOptions = net.NetConnectOpts & { host?: string; port?: number; protocol?: string; lookup?: net.LookupFunction };
type AgentCallback = (err: Error | null, stream: stream.Duplex) => void;

/** The agent's callback fails the request that asked for the socket. */
function failWith(cb: AgentCallback | undefined): (err: Error) => void {
  return (err) => {
    if (cb) cb(err, undefined as unknown as stream.Duplex);
    else throw err;
  };
}

/** Judges the peer before handing the socket over; returns undefined after failing cb for a refused literal. */
function guardConnection(
  policy: AddressPolicy,
  options: ConnectionOptions,
  fail: (err: Error) => void,
  connect: (o: ConnectionOptions) => net.Socket,
): net.Socket | undefined {
  const host = (options.host ?? 'localhost').replace(/^\[|\]$/g, '');
  const url = `${options.protocol ?? 'http:'}//${host.includes(':') ? `[${host}]` : host}:${options.port ?? ''}`;
  if (!policy.allowPrivateNetworks) {
    if (isIpLiteral(host)) {
      try {
        checkAddress(policy, url, host);
      } catch (err) {
        fail(err as Error);
        return undefined;
      }
    } else {
      const base = (options.lookup as unknown as LookupFunction | undefined) ?? policy.lookup;
      options = { ...options, lookup: guardedLookup(policy, url, base) };
    }
  } else if (!options.lookup && policy.lookup !== (dns.lookup as unknown as LookupFunction)) {
    options = { ...options, lookup: guardedLookup(policy, url, policy.lookup) };
  }
  const socket = connect(options);
  if (!policy.allowPrivateNetworks) {
    socket.once('connect', () => {
      const peer = socket.remoteAddress;
      try {
        if (peer) checkAddress(policy, url, peer);
      } catch (err) {
        socket.destroy(err as Error);
      }
    });
  }
  return socket;
}

class GuardedHttpAgent extends http.Agent {
  readonly #policy: AddressPolicy;
  constructor(policy: AddressPolicy, options: http.AgentOptions) {
    super(options);
    this.#policy = policy;
  }
  override createConnection(options: http.ClientRequestArgs, cb?: AgentCallback): stream.Duplex | undefined {
    return guardConnection(this.#policy, { ...(options as ConnectionOptions), protocol: 'http:' }, failWith(cb), (o) =>
      net.createConnection(o),
    );
  }
}

class GuardedHttpsAgent extends https.Agent {
  readonly #policy: AddressPolicy;
  constructor(policy: AddressPolicy, options: https.AgentOptions) {
    super(options);
    this.#policy = policy;
  }
  override createConnection(options: http.ClientRequestArgs, cb?: AgentCallback): stream.Duplex | undefined {
    // https.Agent's own createConnection does the TLS setup (SNI, session cache); only the lookup differs.
    const connect = (o: ConnectionOptions) => super.createConnection(o as http.ClientRequestArgs) as net.Socket;
    return guardConnection(this.#policy, { ...(options as ConnectionOptions), protocol: 'https:' }, failWith(cb), connect);
  }
}

/**
 * A request reset before any response on a kept-alive socket it reused: the server closed the idle
 * connection as the request went out (its keep-alive timeout). Asking again once on a new connection is
 * what browsers do, for a request that may be asked twice (GET, HEAD).
 */
export function resetOnReusedSocket(err: unknown): boolean {
  const e = err as { code?: string; response?: unknown; request?: { reusedSocket?: boolean } } | null;
  return (e?.code === 'ECONNRESET' || e?.code === 'EPIPE') && e.response === undefined && e.request?.reusedSocket === true;
}

export function createOutboundClient(options: OutboundOptions): Got {
  const policy = makePolicy(options);
  // Keep-alive: a crawl makes hundreds of requests to one host. A reused socket was judged when it opened.
  const agentOptions = { keepAlive: true, keepAliveMsecs: 1000, maxFreeSockets: 64, scheduling: 'lifo' as const };
  return got.extend({
    agent: { http: new GuardedHttpAgent(policy, agentOptions), https: new GuardedHttpsAgent(policy, agentOptions) },
    headers: { 'user-agent': options.userAgent ?? DEFAULT_USER_AGENT },
    timeout: { request: options.timeoutMs ?? 15_000 },
    retry: { limit: 0 },
    throwHttpErrors: false,
    maxRedirects: options.maxRedirects ?? 10,
    // Both are off by default in got; pinned here because either would bypass the agents above.
    http2: false,
    enableUnixSockets: false,
  });
}

/**
 * Resolves url's host and throws OutboundBlockedError when it is not public (and private
 * networks are not allowed). For requests that do not go through got, e.g. Chromium's.
 * URLs that open no connection (data:, blob:, about:) pass; other schemes than http(s)/ws(s) are refused.
 * Returns the addresses it judged.
 */
export async function assertPublicUrl(
  url: string,
  allowPrivateNetworks: boolean,
  options: Pick<OutboundOptions, 'allowAddresses' | 'lookup'> = {},
): Promise<string[]> {
  const u = new URL(url);
  if (u.protocol === 'data:' || u.protocol === 'blob:' || u.protocol === 'about:') return [];
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(u.protocol)) throw new OutboundBlockedError(url, u.protocol);
  if (allowPrivateNetworks) return [];
  const policy = makePolicy({ allowPrivateNetworks, ...options });
  const host = canonicalHost(u.hostname);
  if (host === undefined) throw new OutboundBlockedError(url, u.hostname);
  if (isIpLiteral(host)) {
    checkAddress(policy, url, host);
    return [host];
  }
  const addresses = await new Promise<LookupAddress[]>((resolve, reject) => {
    policy.lookup(host, { all: true }, (err, list) => (err ? reject(err) : resolve(list)));
  });
  if (addresses.length === 0) throw Object.assign(new Error(`no address for ${host}`), { code: 'ENOTFOUND' });
  for (const a of addresses) checkAddress(policy, url, a.address);
  return addresses.map((a) => a.address);
}
