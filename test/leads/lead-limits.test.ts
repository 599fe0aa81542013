import type { Pool } from '@kbchat/shared/db/pool';
import { type PrivateRedis, startPrivateRedis } from '@kbchat/shared/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createClient, type Kbchat, startKbchat, tempDir, waitFor } from '../support/kbchat.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

describe('a lead flood from many addresses', () => {
  let kb: Kbchat;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    kb = await startKbchat({ services: ['gateway', 'crawler'], env: { LEAD_CLIENT_LIMIT_PER_HOUR: '20', TRUST_PROXY: 'true' } });
  });
  afterAll(async () => {
    await kb?.stop();
    await receiver?.stop();
  });

  it('reaches the client webhook only up to the per-client cap: 50 leads from 40 addresses, 20 delivered', async () => {
    const client = await createClient(kb.baseUrl, { leadWebhookUrl: receiver.url('/flood') });
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await api(
        kb.baseUrl,
        'POST',
        '/api/lead',
        { clientId: client.clientId, name: `Flood ${i}`, email: `f${i}@example.com` },
        { 'x-forwarded-for': `198.18.0.${i % 40}` },
      );
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.slice(20).every((s) => s === 429)).toBe(true);
    await receiver.waitForRequests(20, { path: '/flood' });
    // Well past the deliveries of the accepted leads: nothing more arrives.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(receiver.countByWebhookId('/flood').size).toBe(20);
    expect(receiver.on('/flood')).toHaveLength(20);
  });
});

/**
 * The lead limits while Redis is down: counted from the leads stored in Postgres over the last
 * hour, so a flood is refused and a real lead is not. This gateway has a redis-server of its own,
 * stopped here; the shared one is never touched.
 */
describe('lead limits while Redis is down', () => {
  let dir: string;
  let redis: (PrivateRedis & { port: number }) | undefined;
  let kb: Kbchat;
  let pool: Pool;
  beforeAll(async () => {
    dir = await tempDir('kbchat-lead-limits-');
    redis = await startPrivateRedis(dir);
    kb = await startKbchat({
      services: ['gateway'],
      env: { REDIS_URL: redis.url, LEAD_RATE_LIMIT_PER_HOUR: '3', LEAD_CLIENT_LIMIT_PER_HOUR: '6', TRUST_PROXY: 'true' },
    });
    pool = kb.process.runtime.pool;
  });
  afterAll(async () => {
    await kb?.stop();
    await redis?.stop();
  });

  const post = (clientId: string, ip: string) =>
    api(kb.baseUrl, 'POST', '/api/lead', { clientId, name: 'Visitor', email: 'visitor@example.com' }, { 'x-forwarded-for': ip });
  const stored = async (clientId: string) =>
    (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM leads WHERE client_id = $1', [clientId])).rows[0]?.n;

  it('refuses an address past its limit and a client past its cap, exactly under concurrency, and serves normal traffic', async () => {
    const flooded = (await createClient(kb.baseUrl)).clientId;
    const quiet = (await createClient(kb.baseUrl)).clientId;
    const v6 = (await createClient(kb.baseUrl)).clientId;
    // Counted in Redis before the outage; Postgres has the lead too, so the outage does not forget it.
    expect((await post(flooded, '198.51.100.1')).status).toBe(200);

    await redis?.stop();
    redis = undefined;

    const fromOne = [];
    for (let i = 0; i < 30; i++) fromOne.push(await post(flooded, '198.51.100.1'));
    expect(fromOne.map((r) => r.status)).toEqual([200, 200, ...Array(28).fill(429)]);
    expect(fromOne[1]?.headers.get('ratelimit-limit')).toBe('3');
    expect(fromOne[1]?.headers.get('ratelimit-remaining')).toBe('0');
    const refused = fromOne[2];
    expect(refused?.body).toEqual({
      error: 'Too many requests',
      details: [expect.stringMatching(/^at most 3 leads per hour from one address/)],
    });
    // A slot frees when the oldest lead of the address leaves the hour.
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThan(3500);
    expect(Number(refused?.headers.get('retry-after'))).toBeLessThanOrEqual(3600);

    // Twenty addresses at once: the client has 3 of its 6 left, and exactly 3 get in.
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => post(flooded, `198.51.100.${100 + i}`)));
    expect(burst.filter((r) => r.status === 200)).toHaveLength(3);
    const capped = burst.filter((r) => r.status === 429);
    expect(capped).toHaveLength(17);
    for (const r of capped) {
      expect(r.body).toEqual({ error: 'Too many requests', details: [expect.stringMatching(/^at most 6 leads per hour for this client/)] });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(await stored(flooded)).toBe(6);

    // A visitor of another client is not held up by the flood.
    const normal = await post(quiet, '198.51.100.1');
    expect(normal.status).toBe(200);
    expect(await stored(quiet)).toBe(1);

    // IPv6 counts per /64 here too.
    expect((await post(v6, '2001:db8:1:2::1')).status).toBe(200);
    expect((await post(v6, '2001:db8:1:2::2')).status).toBe(200);
    expect((await post(v6, '2001:db8:1:2:ffff::3')).status).toBe(200);
    expect((await post(v6, '2001:db8:1:2::4')).status).toBe(429);
    expect((await post(v6, '2001:db8:1:3::1')).status).toBe(200);

    // Redis back (empty): counting moves back to Redis without a restart.
    redis = await startPrivateRedis(await tempDir('kbchat-lead-limits-'), undefined, Number(new URL(kb.config.REDIS_URL ?? '').port));
    const back = (await createClient(kb.baseUrl)).clientId;
    await waitFor(async () => (await kb.process.runtime.redis.ping().catch(() => '')) === 'PONG', { what: 'Redis to answer again' });
    for (const remaining of ['2', '1', '0']) {
      const ok = await post(back, '192.0.2.50');
      expect(ok.status).toBe(200);
      expect(ok.headers.get('ratelimit-remaining')).toBe(remaining);
    }
    expect((await post(back, '192.0.2.50')).status).toBe(429);
  });
});
