import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '@kbchat/shared/config';
import { describe, expect, it } from 'vitest';
import { maxConnections, slowClientOptions } from './slow-clients.ts';

describe('slow-client server options', () => {
  it('by default answer an unfinished body within about 30 s, unfinished headers within about 10 s', () => {
    const options = slowClientOptions(loadConfig({}));
    expect(options.requestTimeout).toBe(30_000);
    expect(options.http.headersTimeout).toBe(10_000);
    // Node checks every 30 s unless told: the 408 would come up to 30 s late.
    expect(options.http.connectionsCheckingInterval).toBe(1_000);
    // Longer than a synchronous crawl's wait, which sends nothing meanwhile.
    expect(options.connectionTimeout).toBeGreaterThan(loadConfig({}).CRAWL_SYNC_WAIT_MS);
  });

  it('caps connections at HTTP_MAX_CONNECTIONS, or three quarters of the open-file limit', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'limits-'));
    const file = path.join(dir, 'limits');
    writeFileSync(
      file,
      'Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 4096                 files\n',
    );
    expect(maxConnections(loadConfig({}), file)).toBe(768);
    expect(maxConnections(loadConfig({ HTTP_MAX_CONNECTIONS: '300' }), file)).toBe(300);
    expect(maxConnections(loadConfig({}), path.join(dir, 'missing'))).toBe(3072);
  });
});
