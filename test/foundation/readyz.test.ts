import { startPrivateRedis } from '@kbchat/shared/redis';
import { afterAll, describe, expect, it } from 'vitest';
import { api, type Kbchat, startKbchat, tempDir, waitFor } from '../support/kbchat.ts';

describe('/readyz', () => {
  let kb: Kbchat | undefined;
  let redis: Awaited<ReturnType<typeof startPrivateRedis>> | undefined;
  afterAll(async () => {
    await kb?.stop();
    await redis?.stop();
  });

  it('turns 503 naming Redis when Redis stops, and recovers when it is back, without a restart', async () => {
    // A Redis of this test's own: stopping the shared one would disturb every other test.
    const dir = await tempDir();
    redis = await startPrivateRedis(dir);
    kb = await startKbchat({ services: ['gateway'], env: { REDIS_URL: redis.url } });

    const up = await api(kb.baseUrl, 'GET', '/readyz');
    expect(up.status).toBe(200);
    expect(up.body).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' } });

    await redis.stop();
    const down = await waitFor(async () => {
      const r = await api<Record<string, unknown>>(kb!.baseUrl, 'GET', '/readyz');
      return r.status === 503 ? r : undefined;
    });
    expect(down.body).toEqual({ error: 'Service unavailable', details: ['redis is down'], checks: { postgres: 'ok', redis: 'down' } });
    expect(down.headers.get('content-type')).toMatch(/application\/json/);
    // The process itself is still up.
    expect((await api(kb.baseUrl, 'GET', '/healthz')).status).toBe(200);

    redis = await startPrivateRedis(dir, undefined, redis.port);
    await waitFor(async () => (await api(kb!.baseUrl, 'GET', '/readyz')).status === 200, { timeoutMs: 20_000, what: 'readyz to recover' });
  });
});
