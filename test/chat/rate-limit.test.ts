import { randomUUID } from 'node:crypto';
import { startPrivateRedis } from '@kbchat/shared/redis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createClient, type Kbchat, startKbchat, tempDir, waitFor } from '../support/kbchat.ts';

describe('chat rate limit across two gateway replicas on one Redis', () => {
  let a: Kbchat;
  let b: Kbchat;
  beforeAll(async () => {
    // One Redis prefix for both: two replicas of one deployment behind a load balancer.
    const prefix = `kbt-${inject('runId')}-rl-${randomUUID().slice(0, 8)}`;
    a = await startKbchat({ services: ['gateway'], env: { REDIS_PREFIX: prefix } });
    b = await startKbchat({ services: ['gateway'], env: { REDIS_PREFIX: prefix } });
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
  });

  it('serves 60 requests a minute per client across both, answers the 61st with 429, and leaves other clients alone', async () => {
    const { clientId } = await createClient(a.baseUrl);
    const { clientId: other } = await createClient(a.baseUrl);
    // Requests that never reach the limiter (400, 404) spend nothing.
    expect((await api(a.baseUrl, 'POST', '/api/chat', { clientId })).status).toBe(400);
    expect((await api(a.baseUrl, 'POST', '/api/chat', { clientId: randomUUID(), message: 'hi' })).status).toBe(404);

    for (let i = 1; i <= 60; i++) {
      const gw = i % 2 === 0 ? b : a;
      const path = i % 3 === 0 ? '/api/chat/stream' : '/api/chat';
      const res = await fetch(new URL(path, gw.baseUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientId, message: `question ${i}` }),
      });
      await res.text();
      expect(res.status, `request ${i}`).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('60');
      expect(res.headers.get('ratelimit-remaining')).toBe(String(60 - i));
      expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers.get('ratelimit-reset'))).toBeLessThanOrEqual(60);
    }

    for (const gw of [a, b]) {
      const limited = await api(gw.baseUrl, 'POST', '/api/chat', { clientId, message: 'one too many' });
      expect(limited.status).toBe(429);
      expect(limited.headers.get('content-type')).toMatch(/application\/json/);
      expect(limited.body).toEqual({
        error: 'Too many requests',
        details: [expect.stringMatching(/^at most 60 chat requests per minute/)],
      });
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(limited.headers.get('ratelimit-remaining')).toBe('0');
      expect(limited.headers.get('ratelimit-reset')).toBe(String(retryAfter));
    }
    // The stream endpoint shares the budget, and its 429 is plain JSON.
    const stream = await api(b.baseUrl, 'POST', '/api/chat/stream', { clientId, message: 'streamed' });
    expect(stream.status).toBe(429);
    expect(stream.body).toMatchObject({ error: 'Too many requests' });

    const unaffected = await api(b.baseUrl, 'POST', '/api/chat', { clientId: other, message: 'hello' });
    expect(unaffected.status).toBe(200);
    expect(unaffected.headers.get('ratelimit-remaining')).toBe('59');
  });
});

describe('chat rate limit under a burst', () => {
  let kb: Kbchat;
  beforeAll(async () => {
    kb = await startKbchat({ services: ['gateway'], env: { CHAT_RATE_LIMIT_PER_MINUTE: '20' } });
  });
  afterAll(async () => {
    await kb?.stop();
  });

  it('admits exactly the limit of 40 requests sent at once (many land in the same millisecond)', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    const statuses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => api(kb.baseUrl, 'POST', '/api/chat', { clientId, message: `burst ${i}` }).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
  });
});

describe('chat rate limit while Redis is down', () => {
  let kb: Kbchat;
  let redis: Awaited<ReturnType<typeof startPrivateRedis>> | undefined;
  beforeAll(async () => {
    redis = await startPrivateRedis(await tempDir());
    kb = await startKbchat({ services: ['gateway'], env: { REDIS_URL: redis.url, CHAT_RATE_LIMIT_PER_MINUTE: '2' } });
  });
  afterAll(async () => {
    await kb?.stop();
    await redis?.stop();
  });

  it('falls back to a per-process window in memory (same limit), and limits in Redis again once Redis is back', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    const { clientId: other } = await createClient(kb.baseUrl);
    const chat = (id = clientId) => api(kb.baseUrl, 'POST', '/api/chat', { clientId: id, message: 'Are you open on Sundays?' });
    expect((await chat()).status).toBe(200);
    expect((await chat()).status).toBe(200);
    expect((await chat()).status).toBe(429);

    const dir = await tempDir();
    const port = redis!.port;
    await redis!.stop();
    redis = undefined;
    // Chat stays up: the limit's first two requests of the outage are served, with the window's headers...
    for (const remaining of ['1', '0']) {
      const res = await chat();
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('2');
      expect(res.headers.get('ratelimit-remaining')).toBe(remaining);
    }
    // ...and a flood is still refused, in the same JSON form.
    for (let i = 0; i < 5; i++) {
      const res = await chat();
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ error: 'Too many requests', details: [expect.stringMatching(/^at most 2 chat requests per minute/)] });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    }
    // Other clients have their own window.
    expect((await chat(other)).status).toBe(200);

    // A fresh Redis on the same port (the old window is gone with the old data): the client, still
    // refused by the in-memory window for a minute, is served again only once Redis counts...
    redis = await startPrivateRedis(dir, undefined, port);
    await waitFor(async () => (await chat()).status === 200, { what: 'Redis to count again', intervalMs: 200 });
    // ...and Redis holds the limit: the second request of its window is the last one served.
    expect((await chat()).status).toBe(200);
    expect((await chat()).status).toBe(429);
  });
});
