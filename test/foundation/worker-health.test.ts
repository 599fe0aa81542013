import { freePort, startPrivateRedis } from '@kbchat/shared/redis';
import { describe, expect, it } from 'vitest';
import { api, spawnNode, tempDir, testEnv, waitFor, waitForHttp } from '../support/kbchat.ts';

describe('worker health endpoints', () => {
  it('a crawler-only process answers /healthz and /readyz on HEALTH_PORT, and /readyz names Redis when it stops', async () => {
    const redis = await startPrivateRedis(await tempDir());
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = testEnv({ REDIS_URL: redis.url, HEALTH_PORT: String(port), LOG_LEVEL: 'info' });
    const crawler = spawnNode('services/crawler/src/main.ts', env);
    try {
      await waitForHttp(`${base}/healthz`);
      expect(crawler.output()).toMatch(/health endpoints listening/);
      const ready = await api(base, 'GET', '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' } });

      await redis.stop();
      const down = await waitFor(async () => {
        const r = await api(base, 'GET', '/readyz');
        return r.status === 503 ? r : undefined;
      });
      expect(down.body).toMatchObject({ error: 'Service unavailable', details: ['redis is down'] });
      expect((await api(base, 'GET', '/nope')).status).toBe(404);
    } finally {
      crawler.kill('SIGKILL');
      await crawler.exited;
      await redis.stop();
    }
  });
});
