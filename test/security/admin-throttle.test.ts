// Issue 21.3: wrong admin keys are throttled per address (ADMIN_AUTH_FAILURES_PER_MINUTE, counted
// in Redis): after the limit every admin request from that address is 429 JSON with Retry-After —
// the right key included, so a guess cannot be confirmed — while other addresses are untouched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGatewayApp, type GatewayApp } from './support/gateway-app.ts';

const KEY = 'throttle-test-admin-key-0123456789abcdef';
const LIMIT = 20;

describe('wrong admin keys per address', () => {
  let g: GatewayApp;
  beforeAll(async () => {
    g = await buildGatewayApp({ ADMIN_API_KEY: KEY, ADMIN_AUTH_FAILURES_PER_MINUTE: String(LIMIT) });
  });
  afterAll(() => g?.close());

  const get = (remoteAddress: string, authorization?: string, url = '/api/admin/clients') =>
    g.app.inject({ method: 'GET', url, remoteAddress, headers: authorization ? { authorization } : {} });

  it(`answers 401 to ${LIMIT} wrong keys, then 429 with Retry-After to every admin request from that address`, async () => {
    const guesser = '198.51.100.7';
    for (let i = 0; i < LIMIT; i++) {
      const res = await get(guesser, `Bearer guess-${i}-0123456789abcdef`);
      expect(res.statusCode, `guess ${i + 1}`).toBe(401);
    }
    const throttled = await get(guesser, 'Bearer guess-21-0123456789abcdef');
    expect(throttled.statusCode).toBe(429);
    expect(throttled.headers['content-type']).toMatch(/^application\/json/);
    expect(throttled.json()).toEqual({
      error: 'Too many requests',
      details: [expect.stringMatching(new RegExp(`^more than ${LIMIT} wrong admin keys a minute from this address`))],
    });
    const retryAfter = Number(throttled.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);

    // The right key from the throttled address: refused too (a 200 would confirm a guess).
    const right = await get(guesser, `Bearer ${KEY}`);
    expect(right.statusCode).toBe(429);
    expect(right.headers['retry-after']).toBeDefined();
    // The queue dashboard, which has its own error handler, says the same.
    const board = await get(guesser, `Bearer ${KEY}`, '/admin/queues/api/queues');
    expect(board.statusCode).toBe(429);
    expect(board.headers['retry-after']).toBeDefined();
    // Requests refused while throttled are not counted: the window still holds exactly LIMIT failures.
    for (let i = 0; i < 30; i++) expect((await get(guesser, 'Bearer more-guesses-0123456789')).statusCode).toBe(429);
    const keys = await g.rt.redis.keys(`${g.rt.config.REDIS_PREFIX}:admin-auth-failures:*`);
    expect(keys).toHaveLength(1);
    expect(await g.rt.redis.zcard(keys[0] as string)).toBe(LIMIT);
    // Redis holds no address.
    expect(keys[0]).not.toContain('198.51.100');

    // Another address, with the right key and with a wrong one, is untouched.
    expect((await get('198.51.100.8', `Bearer ${KEY}`)).statusCode).toBe(200);
    expect((await get('198.51.100.8', 'Bearer wrong-0123456789abcdef')).statusCode).toBe(401);

    // Once the failures age out of the window, the address is served again (the window, shortened by hand).
    await g.rt.redis.del(keys[0] as string);
    expect((await get(guesser, `Bearer ${KEY}`)).statusCode).toBe(200);
  });

  it('never throttles the right key, and does not count a missing key as a guess', async () => {
    for (let i = 0; i < 3 * LIMIT; i++) expect((await get('203.0.113.50', `Bearer ${KEY}`)).statusCode).toBe(200);
    for (let i = 0; i < 3 * LIMIT; i++) expect((await get('203.0.113.51')).statusCode).toBe(401);
    expect((await get('203.0.113.51', `Bearer ${KEY}`)).statusCode).toBe(200);
  });

  it(`lets exactly ${LIMIT} of 100 concurrent wrong keys be judged`, async () => {
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => get('192.0.2.99', `Bearer parallel-${i}-0123456789abcdef`)));
    const statuses = answers.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 401)).toHaveLength(LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(100 - LIMIT);
  });

  it('counts an IPv6 /64 as one address', async () => {
    for (let i = 0; i < LIMIT; i++) {
      expect((await get(`2001:db8:1:2::${(i + 1).toString(16)}`, 'Bearer wrong-0123456789abcdef')).statusCode).toBe(401);
    }
    expect((await get('2001:db8:1:2::ffff', `Bearer ${KEY}`)).statusCode).toBe(429);
    expect((await get('2001:db8:1:3::1', `Bearer ${KEY}`)).statusCode).toBe(200);
  });
});
