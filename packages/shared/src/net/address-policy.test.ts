import { describe, expect, it } from 'vitest';
import { canonicalHost, classifyAddress, isIpLiteral, isPublicAddress } from './address-policy.ts';

describe('classifyAddress', () => {
  it.each([
    // IPv4 non-public
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['169.254.0.1', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.254', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.19.255.1', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.88.99.1', 'reserved'],
    // IPv6 non-public
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456:789a::1', 'uniqueLocal'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['ff02::1', 'multicast'],
    ['ff05::2', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2001:2::1', 'benchmarking'],
    ['100::1', 'discard'],
    ['64:ff9b:1::a00:1', 'rfc6052-local'],
    ['64:ff9b:1::808:808', 'rfc6052-local'],
    ['5f00::1', 'segmentRouting'],
    ['4000::1', 'unicast'], // outside 2000::/3: unassigned
    // IPv4 carried inside IPv6
    ['::ffff:127.0.0.1', 'ipv4Mapped→loopback'],
    ['::ffff:7f00:1', 'ipv4Mapped→loopback'],
    ['::ffff:169.254.169.254', 'ipv4Mapped→linkLocal'],
    ['::ffff:10.0.0.1', 'ipv4Mapped→private'],
    ['::ffff:0:10.0.0.1', 'rfc6145→private'],
    ['::127.0.0.1', 'ipv4Compatible→loopback'],
    ['64:ff9b::127.0.0.1', 'nat64→loopback'],
    ['64:ff9b::a9fe:a9fe', 'nat64→linkLocal'],
    ['64:ff9b::192.168.0.1', 'nat64→private'],
    ['2002:7f00:1::', '6to4→loopback'],
    ['2002:a9fe:a9fe::1', '6to4→linkLocal'],
    ['2002:c0a8:101::1', '6to4→private'],
    // Teredo: server 127.0.0.1 in bits 32-63
    ['2001:0:7f00:1::1', 'teredo→loopback'],
    // Teredo: public server 65.54.227.120, client 10.0.0.1 stored inverted (f5ff:fffe)
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'teredo→private'],
  ])('%s is not public (%s)', (address, range) => {
    const verdict = classifyAddress(address);
    expect(verdict.public).toBe(false);
    expect(verdict.range).toBe(range);
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    ['8.8.8.8', 'unicast'],
    ['1.1.1.1', 'unicast'],
    ['93.184.216.34', 'unicast'],
    ['172.32.0.1', 'unicast'], // just outside 172.16/12
    ['100.128.0.1', 'unicast'], // just outside 100.64/10
    ['11.0.0.1', 'unicast'],
    ['2606:4700:4700::1111', 'unicast'],
    ['2a00:1450:4001:80b::200e', 'unicast'],
    ['::ffff:8.8.8.8', 'ipv4Mapped→unicast'],
    ['64:ff9b::808:808', 'nat64→unicast'],
    ['2002:808:808::1', '6to4→unicast'],
  ])('%s is public (%s)', (address, range) => {
    const verdict = classifyAddress(address);
    expect(verdict).toMatchObject({ public: true, range });
  });

  it('names the canonical address', () => {
    expect(classifyAddress('[::ffff:127.0.0.1]').address).toBe('::ffff:7f00:1');
    expect(classifyAddress('0:0:0:0:0:0:0:1').address).toBe('::1');
  });

  it('refuses to classify what is not a canonical address, so odd spellings must be canonicalised first', () => {
    for (const s of ['localhost', '2130706433', '0x7f.1', '0177.0.0.1', '127.1', '', '1.2.3.4.5']) {
      expect(() => classifyAddress(s)).toThrow(TypeError);
      expect(isPublicAddress(s)).toBe(false);
    }
  });
});

describe('canonicalHost (the WHATWG URL host parser does the normalising)', () => {
  it.each([
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0177.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['0xA9.0xFE.0xA9.0xFE', '169.254.169.254'],
    ['2852039166', '169.254.169.254'],
    ['[::ffff:127.0.0.1]', '::ffff:7f00:1'],
    ['::ffff:127.0.0.1', '::ffff:7f00:1'],
    ['[0:0:0:0:0:0:0:1]', '::1'],
    ['LOCALHOST', 'localhost'],
    ['Example.COM', 'example.com'],
  ])('%s → %s', (input, expected) => {
    expect(canonicalHost(input)).toBe(expected);
    expect(
      new URL(`http://${input.includes(':') && !input.startsWith('[') ? `[${input}]` : input}/`).hostname.replace(/^\[|\]$/g, ''),
    ).toBe(expected);
  });

  it('every odd loopback spelling ends up classified as loopback', () => {
    for (const s of ['2130706433', '0x7f.1', '0177.0.0.1', '127.1', '[::ffff:127.0.0.1]', '0x7f000001']) {
      const host = canonicalHost(s);
      expect(host && isIpLiteral(host)).toBe(true);
      expect(classifyAddress(host!).range).toMatch(/loopback/);
    }
  });

  it('rejects hosts a URL cannot hold', () => {
    expect(canonicalHost('exa mple.com')).toBeUndefined();
    expect(canonicalHost('256.256.256.256')).toBeUndefined();
  });
});
