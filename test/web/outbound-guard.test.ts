import { execFileSync } from 'node:child_process';
import type { LookupAddress } from 'node:dns';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  assertPublicUrl,
  createOutboundClient,
  findOutboundBlockedError,
  type LookupFunction,
  OutboundBlockedError,
} from '@kbchat/shared/net/outbound';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Real connections only ever go to loopback. "Public" servers stand on 127.0.0.2, made reachable
// with the allowAddresses exception; names are resolved by a scripted resolver, never real DNS.

interface TestServer {
  port: number;
  hits: string[];
  close(): Promise<void>;
}

async function listen(host: string, handler: http.RequestListener, server: http.Server = http.createServer()): Promise<TestServer> {
  const hits: string[] = [];
  server.on('request', (req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** A resolver that answers from a table (each name may give a sequence of answers, for rebinding). */
function scriptedLookup(table: Record<string, string[][]>): LookupFunction & { calls: string[] } {
  const calls: string[] = [];
  const fn = ((hostname: string, _options: unknown, callback: (err: NodeJS.ErrnoException | null, a: LookupAddress[]) => void) => {
    calls.push(hostname);
    const answers = table[hostname];
    if (!answers || answers.length === 0) {
      callback(Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
      return;
    }
    const next = answers.length > 1 ? answers.shift()! : answers[0]!;
    setImmediate(() =>
      callback(
        null,
        next.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      ),
    );
  }) as LookupFunction & { calls: string[] };
  fn.calls = calls;
  return fn;
}

async function expectBlocked(promise: Promise<unknown>, address?: string): Promise<OutboundBlockedError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'the request should have been refused').toBeDefined();
  const blocked = findOutboundBlockedError(err);
  expect(blocked, `expected OutboundBlockedError, got ${String(err)}`).toBeInstanceOf(OutboundBlockedError);
  expect((err as { code?: string }).code).toBe('ERR_OUTBOUND_BLOCKED');
  expect(blocked!.retryable).toBe(false);
  if (address) expect(blocked!.address).toBe(address);
  return blocked!;
}

let internal: TestServer; // on 127.0.0.1: stands for an internal service
let publicSite: TestServer; // on 127.0.0.2: stands for a public site (allowAddresses)

beforeAll(async () => {
  internal = await listen('127.0.0.1', (_req, res) => res.end('internal secret'));
  publicSite = await listen('127.0.0.2', (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname === '/to') {
      res.writeHead(302, { location: u.searchParams.get('target') ?? '/' });
      res.end();
      return;
    }
    if (u.pathname === '/hop') {
      res.writeHead(301, { location: `/to?target=${encodeURIComponent(u.searchParams.get('target') ?? '/')}` });
      res.end();
      return;
    }
    res.setHeader('connection', 'close');
    res.end('public page');
  });
});

afterAll(async () => {
  await internal?.close();
  await publicSite?.close();
});

describe('createOutboundClient', () => {
  it('refuses a loopback server when private networks are not allowed, and reaches it when they are', async () => {
    const url = `http://127.0.0.1:${internal.port}/secret`;
    await expectBlocked(createOutboundClient({ allowPrivateNetworks: false }).get(url), '127.0.0.1');
    expect(internal.hits).not.toContain('/secret');

    const res = await createOutboundClient({ allowPrivateNetworks: true }).get(url);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('internal secret');
    expect(internal.hits).toContain('/secret');
  });

  it('refuses names that resolve to loopback (the real resolver, localhost)', async () => {
    const before = internal.hits.length;
    await expectBlocked(createOutboundClient({ allowPrivateNetworks: false }).get(`http://localhost:${internal.port}/`));
    expect(internal.hits.length).toBe(before);
  });

  it.each([
    ['decimal', '2130706433'],
    ['hex', '0x7f.1'],
    ['hex whole', '0x7f000001'],
    ['octal', '0177.0.0.1'],
    ['short', '127.1'],
    ['IPv4-mapped IPv6', '[::ffff:127.0.0.1]'],
    ['IPv6 loopback', '[::1]'],
    ['unspecified', '0.0.0.0'],
  ])('refuses the %s spelling %s', async (_name, host) => {
    const before = internal.hits.length;
    await expectBlocked(createOutboundClient({ allowPrivateNetworks: false }).get(`http://${host}:${internal.port}/odd`));
    expect(internal.hits.length).toBe(before);
  });

  it('an odd spelling really means loopback: with private networks allowed it reaches the server', async () => {
    const res = await createOutboundClient({ allowPrivateNetworks: true }).get(`http://2130706433:${internal.port}/decimal`);
    expect(res.body).toBe('internal secret');
    const res2 = await createOutboundClient({ allowPrivateNetworks: true }).get(`http://0x7f.1:${internal.port}/hex`);
    expect(res2.body).toBe('internal secret');
  });

  it('reaches an excepted address and refuses a redirect from it to loopback, on every hop', async () => {
    const client = createOutboundClient({ allowPrivateNetworks: false, allowAddresses: ['127.0.0.2'] });
    const ok = await client.get(`http://127.0.0.2:${publicSite.port}/page`);
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toBe('public page');

    const before = internal.hits.length;
    for (const target of [
      `http://127.0.0.1:${internal.port}/via-redirect`,
      `http://localhost:${internal.port}/via-redirect`,
      `http://2130706433:${internal.port}/via-redirect`,
      `http://[::ffff:127.0.0.1]:${internal.port}/via-redirect`,
    ]) {
      // Two hops on the allowed host (301 → 302) before the one that points inside.
      await expectBlocked(client.get(`http://127.0.0.2:${publicSite.port}/hop?target=${encodeURIComponent(target)}`));
    }
    expect(internal.hits.length).toBe(before);
    expect(publicSite.hits.filter((h) => h.startsWith('/hop')).length).toBe(4);
  });

  it('judges a name at connect time, every time: a DNS answer that rebinds to loopback is refused', async () => {
    const lookup = scriptedLookup({ 'rebind.test': [['127.0.0.2'], ['127.0.0.1']] });
    const client = createOutboundClient({ allowPrivateNetworks: false, allowAddresses: ['127.0.0.2'], lookup });
    // The server closes each connection, so the second request opens (and resolves) anew.
    const first = await client.get(`http://rebind.test:${publicSite.port}/page`);
    expect(first.body).toBe('public page');
    await expectBlocked(client.get(`http://rebind.test:${publicSite.port}/page`), '127.0.0.1');
    expect(lookup.calls.filter((h) => h === 'rebind.test').length).toBe(2);
  });

  it('refuses a name when any of its addresses is not public (all: true answers are checked whole)', async () => {
    // Nothing here connects: the answer is refused before a socket opens.
    const lookup = scriptedLookup({
      'mixed.test': [['93.184.216.34', '127.0.0.1']],
      'metadata.test': [['169.254.169.254']],
      'v6.test': [['::ffff:10.0.0.1']],
      'nat64.test': [['64:ff9b::a9fe:a9fe']],
    });
    const client = createOutboundClient({ allowPrivateNetworks: false, lookup });
    await expectBlocked(client.get('http://mixed.test/'), '127.0.0.1');
    await expectBlocked(client.get('http://metadata.test/latest/meta-data/'), '169.254.169.254');
    await expectBlocked(client.get('http://v6.test/'), '::ffff:a00:1');
    await expectBlocked(client.get('https://nat64.test/'), '64:ff9b::a9fe:a9fe');
  });

  it('guards https the same way', async () => {
    await expectBlocked(createOutboundClient({ allowPrivateNetworks: false }).get(`https://127.0.0.1:${internal.port}/`), '127.0.0.1');
    await expectBlocked(createOutboundClient({ allowPrivateNetworks: false }).get(`https://localhost:${internal.port}/`));
  });

  it('connects over https through the guarded agent when the address is allowed', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kbchat-tls-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-subj',
          '/CN=127.0.0.2',
          '-addext',
          'subjectAltName=IP:127.0.0.2',
          '-days',
          '1',
          '-keyout',
          path.join(dir, 'key.pem'),
          '-out',
          path.join(dir, 'cert.pem'),
        ],
        { stdio: 'ignore' },
      );
      const cert = readFileSync(path.join(dir, 'cert.pem'));
      const server = await listen(
        '127.0.0.2',
        (_req, res) => res.end('tls ok'),
        https.createServer({ key: readFileSync(path.join(dir, 'key.pem')), cert }) as unknown as http.Server,
      );
      try {
        const client = createOutboundClient({ allowPrivateNetworks: false, allowAddresses: ['127.0.0.2/32'] });
        const res = await client.get(`https://127.0.0.2:${server.port}/`, { https: { certificateAuthority: cert } });
        expect(res.body).toBe('tls ok');
        await expectBlocked(createOutboundClient({ allowPrivateNetworks: false }).get(`https://127.0.0.2:${server.port}/`), '127.0.0.2');
        expect(server.hits.length).toBe(1);
      } finally {
        await server.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('assertPublicUrl', () => {
  it('refuses loopback, private and metadata hosts in every spelling', async () => {
    for (const url of [
      'http://127.0.0.1/',
      'http://localhost:8080/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://0177.0.0.1/',
      'http://127.1/',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.1.2.3/',
      'http://[fd00::1]/',
      'ws://127.0.0.1/socket',
    ]) {
      await expectBlocked(assertPublicUrl(url, false));
    }
  });

  it('refuses schemes that are not web requests, passes the ones that open no connection', async () => {
    await expectBlocked(assertPublicUrl('file:///etc/passwd', false), 'file:');
    await expectBlocked(assertPublicUrl('ftp://example.com/', false), 'ftp:');
    await expect(assertPublicUrl('data:text/plain,hi', false)).resolves.toEqual([]);
    await expect(assertPublicUrl('about:blank', false)).resolves.toEqual([]);
  });

  it('passes public addresses and names that resolve to them, and everything when private networks are allowed', async () => {
    const lookup = scriptedLookup({ 'public.test': [['93.184.216.34', '2606:2800:220:1::1']], 'inside.test': [['192.168.0.10']] });
    await expect(assertPublicUrl('https://public.test/x', false, { lookup })).resolves.toEqual(['93.184.216.34', '2606:2800:220:1::1']);
    await expect(assertPublicUrl('http://8.8.8.8/', false)).resolves.toEqual(['8.8.8.8']);
    await expectBlocked(assertPublicUrl('http://inside.test/', false, { lookup }), '192.168.0.10');
    await expect(assertPublicUrl('http://127.0.0.1/', true)).resolves.toEqual([]);
    await expect(assertPublicUrl('http://127.0.0.2/', false, { allowAddresses: ['127.0.0.0/30'] })).resolves.toEqual(['127.0.0.2']);
  });
});
