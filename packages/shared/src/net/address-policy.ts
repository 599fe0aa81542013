import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses a request to a user-supplied URL may reach (DESIGN.md §5 "Security").
 *
 * Only globally routable unicast is public. Everything else — loopback, RFC 1918, link-local
 * (169.254.169.254 is the cloud metadata service), CGNAT, multicast, unspecified, broadcast,
 * documentation/benchmarking/reserved ranges, unique-local, site-local, discard, ORCHID, segment
 * routing — is refused. IPv6 forms that carry an IPv4 address (IPv4-mapped and -translated,
 * IPv4-compatible, NAT64 64:ff9b::/96, 6to4, Teredo) are judged by the IPv4 address they carry, so
 * `::ffff:127.0.0.1` or `2002:7f00:1::` cannot smuggle loopback past the check. The local-use NAT64
 * prefix 64:ff9b:1::/48 is refused outright: its mapping is operator-defined and may point anywhere.
 */
export interface AddressVerdict {
  /** The address in canonical form (IPv4 dotted quad, IPv6 RFC 5952). */
  address: string;
  public: boolean;
  /** ipaddr.js range name, e.g. 'loopback', 'private', 'unicast'; embedded forms read 'ipv4Mapped→loopback'. */
  range: string;
}

const PUBLIC_V4_RANGE = 'unicast';
/** Global unicast is 2000::/3; what ipaddr.js calls 'unicast' outside it is unassigned space. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
const IPV4_COMPATIBLE_V6 = ipaddr.parseCIDR('::/96');
const NAT64_LOCAL_USE = ipaddr.parseCIDR('64:ff9b:1::/48');

/** Classifies one IP address (v4 or v6, brackets and zone ids allowed). Throws on a non-address. */
export function classifyAddress(raw: string): AddressVerdict {
  const parsed = parseAddress(raw);
  if (parsed.kind() === 'ipv4') {
    const v4 = parsed as ipaddr.IPv4;
    const range = v4.range();
    return { address: v4.toString(), public: range === PUBLIC_V4_RANGE, range };
  }
  const v6 = parsed as ipaddr.IPv6;
  const address = v6.toString();
  const embedded = embeddedIPv4(v6);
  if (embedded) {
    const inner = classifyAddress(embedded.address.toString());
    return { address, public: inner.public, range: `${embedded.form}→${inner.range}` };
  }
  if (v6.match(NAT64_LOCAL_USE)) return { address, public: false, range: 'rfc6052-local' };
  const range = v6.range();
  return { address, public: range === 'unicast' && v6.match(GLOBAL_UNICAST_V6), range };
}

export function isPublicAddress(raw: string): boolean {
  try {
    return classifyAddress(raw).public;
  } catch {
    return false;
  }
}

/** True for an IP literal (v4 or v6, with or without brackets) in the form a URL host or resolver gives. */
export function isIpLiteral(host: string): boolean {
  const h = stripBrackets(host);
  return ipaddr.IPv4.isValidFourPartDecimal(h) || ipaddr.IPv6.isValid(h);
}

/**
 * Host as a WHATWG URL parser sees it: lower-cased, IDNA-mapped, and IPv4 in odd spellings
 * (decimal 2130706433, hex 0x7f.1, octal 0177.0.0.1, short 127.1) turned into a dotted quad;
 * IPv6 brackets removed. Returns undefined when the host is not valid.
 */
export function canonicalHost(host: string): string | undefined {
  try {
    const bracketed = ipaddr.IPv6.isValid(stripBrackets(host)) ? `[${stripBrackets(host)}]` : host;
    return stripBrackets(new URL(`http://${bracketed}/`).hostname);
  } catch {
    return undefined;
  }
}

function parseAddress(raw: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const s = stripBrackets(raw).replace(/%.*$/, '');
  // Only canonical dotted quads: odd IPv4 spellings must be canonicalised (canonicalHost) before they
  // get here, so a classifier and a connector can never disagree on what an address means.
  if (ipaddr.IPv4.isValidFourPartDecimal(s)) return ipaddr.IPv4.parse(s);
  if (ipaddr.IPv6.isValid(s)) {
    // ipaddr.js reads a dotted tail as IPv4-mapped (::127.0.0.1 → ::ffff:7f00:1); the URL parser gets it right.
    const canonical = new URL(`http://[${s}]/`).hostname.slice(1, -1);
    return ipaddr.IPv6.parse(canonical);
  }
  throw new TypeError(`not an IP address: ${raw}`);
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function embeddedIPv4(v6: ipaddr.IPv6): { form: string; address: ipaddr.IPv4 } | undefined {
  const p = v6.parts as number[];
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  const range = v6.range();
  if (range === 'ipv4Mapped' || range === 'rfc6145') return { form: range, address: v4(p[6]!, p[7]!) };
  if (range === 'rfc6052' && p[2] === 0) return { form: 'nat64', address: v4(p[6]!, p[7]!) };
  if (range === '6to4') return { form: '6to4', address: v4(p[1]!, p[2]!) };
  // Teredo carries the server in bits 32-63 and the client, inverted, in bits 96-127: either may be the target.
  if (range === 'teredo') {
    const server = v4(p[2]!, p[3]!);
    const client = v4(~p[6]! & 0xffff, ~p[7]! & 0xffff);
    return { form: 'teredo', address: server.range() !== PUBLIC_V4_RANGE ? server : client };
  }
  // ::a.b.c.d (deprecated IPv4-compatible); :: and ::1 keep their own ranges.
  if (v6.match(IPV4_COMPATIBLE_V6) && range !== 'unspecified' && range !== 'loopback')
    return { form: 'ipv4Compatible', address: v4(p[6]!, p[7]!) };
  return undefined;
}
