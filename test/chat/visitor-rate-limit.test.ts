// Issue 21.5: one visitor flooding a client's chat gets 429 after its share
// (CHAT_VISITOR_RATE_LIMIT_PER_MINUTE, per address and per sessionId) while other visitors keep
// chatting; requests refused for the visitor's share cost the client's budget nothing, and the
// client's own limit (spec §8) still holds. Addresses come from X-Forwarded-For via a trusted proxy.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';

describe('per-visitor share of the chat limit, behind a trusted proxy', () => {
  let kb: Kbchat;
  beforeAll(async () => {
    kb = await startKbchat({
      services: ['gateway'],
      env: { TRUST_PROXY: '127.0.0.1', CHAT_RATE_LIMIT_PER_MINUTE: '60', CHAT_VISITOR_RATE_LIMIT_PER_MINUTE: '20' },
    });
  });
  afterAll(() => kb?.stop());

  /** A chat request as the proxy forwards it: the visitor's X-Forwarded-For with the address the proxy saw appended. */
  const chat = async (clientId: string, address: string, body: Record<string, unknown> = {}, written?: string) => {
    const res = await fetch(new URL(body.stream ? '/api/chat/stream' : '/api/chat', kb.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': written ? `${written}, ${address}` : address },
      body: JSON.stringify({ clientId, message: 'Do you repair boilers?', ...body, stream: undefined }),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
  };

  it('stops a visitor flooding from one address at 20 a minute while others get 200, without spending the client', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    const flooder = '198.51.100.1';
    // 60 requests at once, each with a new sessionId and its own forged leftmost X-Forwarded-For entry.
    const t0 = performance.now();
    const flood = await Promise.all(
      Array.from({ length: 60 }, (_, i) => chat(clientId, flooder, { sessionId: `flood-${i}`, stream: i % 3 === 0 }, `10.9.9.${i}`)),
    );
    const floodMs = performance.now() - t0;
    const ok = flood.filter((r) => r.status === 200);
    const limited = flood.filter((r) => r.status === 429);
    expect(ok).toHaveLength(20);
    expect(limited).toHaveLength(40);
    for (const r of limited) {
      expect(r.body).toEqual({
        error: 'Too many requests',
        details: [expect.stringMatching(/^at most 20 chat requests per minute from one visitor \(address or session\); retry in \d+ s$/)],
      });
      const retryAfter = Number(r.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(r.headers.get('ratelimit-limit')).toBe('20');
      expect(r.headers.get('ratelimit-remaining')).toBe('0');
    }

    // Other visitors are served: the client's budget was charged only for the flooder's 20.
    const others = [];
    for (const visitor of ['198.51.100.2', '198.51.100.3']) {
      for (let i = 0; i < 20; i++) others.push(await chat(clientId, visitor));
    }
    expect(others.map((r) => r.status)).toEqual(Array(40).fill(200));
    process.stderr.write(
      `[visitor limit] flooder: 60 requests in ${Math.round(floodMs)} ms → ${ok.length}×200, ${limited.length}×429; ` +
        `2 other visitors: ${others.filter((r) => r.status === 200).length}/40 × 200\n`,
    );
    // The flooder is still refused; the client's 60 are now spent (20 + 40), so a fourth visitor meets the client's limit.
    expect((await chat(clientId, flooder)).status).toBe(429);
    const fourth = await chat(clientId, '198.51.100.4');
    expect(fourth.status).toBe(429);
    expect(fourth.body).toEqual({
      error: 'Too many requests',
      details: [expect.stringMatching(/^at most 60 chat requests per minute per client/)],
    });
  });

  it('counts one sessionId across addresses, and a visitor of one client not against another', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    const { clientId: other } = await createClient(kb.baseUrl);
    const sessionId = randomUUID();
    for (let i = 0; i < 20; i++) {
      const res = await chat(clientId, `203.0.113.${i + 1}`, { sessionId });
      expect(res.status, `request ${i + 1}`).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('20');
      expect(res.headers.get('ratelimit-remaining')).toBe(String(19 - i));
    }
    const rotated = await chat(clientId, '203.0.113.99', { sessionId });
    expect(rotated.status).toBe(429);
    // The same session and address on another client's chat: that client's own budget.
    expect((await chat(other, '203.0.113.1', { sessionId })).status).toBe(200);
    // Another visitor of the first client is served.
    expect((await chat(clientId, '203.0.113.100')).status).toBe(200);
  });

  it('takes an IPv6 /64 as one visitor', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    for (let i = 0; i < 20; i++) expect((await chat(clientId, `2001:db8:5:6::${i + 1}`)).status).toBe(200);
    expect((await chat(clientId, '2001:db8:5:6::abcd')).status).toBe(429);
    expect((await chat(clientId, '2001:db8:5:7::1')).status).toBe(200);
  });
});
