import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';
import { createSeeder, type Seeder } from '../support/seed-documents.ts';
import { plumbingSite } from './corpus.ts';
import { collectSse, postStream } from './sse.ts';
import { startTcpProxy } from './tcp-proxy.ts';

describe('POST /api/chat/stream (extractive)', () => {
  let kb: Kbchat;
  let seeder: Seeder;
  let clientId: string;
  const origin = 'https://stream-plumbing.example';

  beforeAll(async () => {
    kb = await startKbchat({ services: ['gateway'] });
    seeder = createSeeder(inject('databaseUrl'), kb.config);
    clientId = (await createClient(kb.baseUrl, { name: 'Stream Plumbing' })).clientId;
    await seeder.seed(clientId, plumbingSite(origin));
  });
  afterAll(async () => {
    await seeder?.close();
    await kb?.stop();
  });

  it('streams tokens, then exactly one done event with the /api/chat fields, and stores the turns', async () => {
    const res = await postStream(kb.baseUrl, { clientId, message: 'How do I make a warranty claim?' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toMatch(/no-cache/);
    expect(res.headers.get('ratelimit-limit')).toBe('60');
    const events = await collectSse(res);
    const tokens = events.filter((e) => e.event === 'token');
    const done = events.filter((e) => e.event === 'done');
    expect(tokens.length).toBeGreaterThan(0);
    expect(done).toHaveLength(1);
    expect(events.at(-1)?.event).toBe('done');
    expect(events.some((e) => e.event === 'error')).toBe(false);

    const result = done[0]?.data as {
      answer: string;
      sources: { title: string; url: string }[];
      sessionId: string;
      leadCaptureIntent: boolean;
    };
    expect(Object.keys(result).sort()).toEqual(['answer', 'leadCaptureIntent', 'messageId', 'sessionId', 'sources']);
    expect(tokens.map((t) => (t.data as { text: string }).text).join('')).toBe(result.answer);
    expect(result.sources[0]).toEqual({ title: 'Warranty', url: `${origin}/warranty` });
    expect(result.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.leadCaptureIntent).toBe(false);

    const { rows } = await seeder.pool.query<{ role: string; content: string }>(
      'SELECT role, content FROM messages WHERE client_id = $1 AND session_id = $2 ORDER BY id',
      [clientId, result.sessionId],
    );
    expect(rows).toEqual([
      { role: 'user', content: 'How do I make a warranty claim?' },
      { role: 'assistant', content: result.answer },
    ]);
  });

  it('continues a session given by the caller, like /api/chat', async () => {
    const sessionId = randomUUID();
    const first = await collectSse(await postStream(kb.baseUrl, { clientId, message: 'Tell me about the premium plan', sessionId }));
    expect((first.at(-1)?.data as { sessionId: string } | undefined)?.sessionId).toBe(sessionId);
    const json = await api<{ sessionId: string }>(kb.baseUrl, 'POST', '/api/chat', { clientId, message: 'Is it cancellable?', sessionId });
    expect(json.body.sessionId).toBe(sessionId);
    const { rows } = await seeder.pool.query('SELECT count(*)::int AS n FROM messages WHERE client_id = $1 AND session_id = $2', [
      clientId,
      sessionId,
    ]);
    expect(rows[0].n).toBe(4);
  });

  it('answers errors found before the stream starts as plain JSON with their status', async () => {
    const cases: [unknown, number, Record<string, unknown>][] = [
      [{ clientId }, 400, { error: 'Invalid request', details: ['message is required'] }],
      [{ clientId, message: 42 }, 400, { error: 'Invalid request', details: ['message must be a string'] }],
      [{ clientId: randomUUID(), message: 'hi' }, 404, { error: 'Client not found', details: ['no client has this clientId'] }],
    ];
    for (const [body, status, expected] of cases) {
      const res = await postStream(kb.baseUrl, body);
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(await res.json()).toEqual(expected);
    }
    const malformed = await fetch(new URL('/api/chat/stream', kb.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"clientId":',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ error: 'Invalid JSON', details: ['the request body is not valid JSON'] });
  });

  it('streams the honest "don\'t know" with no sources for an unrelated question', async () => {
    const events = await collectSse(await postStream(kb.baseUrl, { clientId, message: 'Who won the 1998 football world cup?' }));
    const done = events.at(-1);
    expect(done?.event).toBe('done');
    expect((done?.data as { sources: unknown[] } | undefined)?.sources).toEqual([]);
  });

  type Done = { answer: string; sources: { title: string; url: string }[]; leadCaptureIntent: boolean };
  const streamed = async (body: Record<string, unknown>) => {
    const events = await collectSse(await postStream(kb.baseUrl, { clientId, ...body }));
    const text = events
      .filter((e) => e.event === 'token')
      .map((e) => (e.data as { text: string }).text)
      .join('');
    expect(events.at(-1)?.event).toBe('done');
    return { text, done: events.at(-1)?.data as Done };
  };

  it('streams a yes to the "don’t know" contact offer as a lead, like /api/chat', async () => {
    const sessionId = randomUUID();
    const decline = await streamed({ message: 'Who won the 1998 football world cup?', sessionId });
    expect(decline.done.leadCaptureIntent).toBe(false);
    const yes = await streamed({ message: 'oui, merci', sessionId });
    expect(yes.done.leadCaptureIntent).toBe(true);
    expect(yes.done.sources).toEqual([]);
    expect(yes.text).toBe(yes.done.answer);
    expect(yes.done.answer).toMatch(/^Avec plaisir : laissez votre nom/);
  });

  it('streams markers that name the done event’s sources in order: [k] is sources[k-1]', async () => {
    for (const message of [
      'How much does the premium plan cost and what does delivery cost?',
      'Do you recycle old boilers and gift cards?',
    ]) {
      const { text, done } = await streamed({ message });
      expect(text).toBe(done.answer);
      expect(done.sources.length, message).toBeGreaterThan(0);
      const markers = [...text.matchAll(/\[(\d+(?:,\s*\d+)*)\]/g)].flatMap((m) => (m[1] as string).split(',').map(Number));
      expect([...new Set(markers)], message).toEqual(done.sources.map((_, i) => i + 1));
    }
  });
});

describe('POST /api/chat/stream when the database goes away before the stream', () => {
  it('answers 503 JSON (not an event stream) when retrieval cannot reach Postgres, and heals without a restart', async () => {
    // The gateway reaches Postgres through a proxy this test can take down: an outage for it alone.
    const dbUrl = new URL(inject('databaseUrl'));
    const proxy = await startTcpProxy(dbUrl.hostname, Number(dbUrl.port || 5432));
    const viaProxy = new URL(dbUrl);
    viaProxy.port = String(proxy.port);
    const kb = await startKbchat({ services: ['gateway'], env: { DATABASE_URL: viaProxy.toString() } });
    try {
      const { clientId } = await createClient(kb.baseUrl);
      expect((await api(kb.baseUrl, 'POST', '/api/chat', { clientId, message: 'hello' })).status).toBe(200);
      await proxy.down();
      const res = await postStream(kb.baseUrl, { clientId, message: 'hello' });
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toMatch(/application\/json/);
      expect(await res.json()).toEqual({ error: 'Service unavailable', details: ['a backing service is not reachable; retry shortly'] });
      await proxy.up();
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i++) {
        status = (await api(kb.baseUrl, 'POST', '/api/chat', { clientId, message: 'hello again' })).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe(200);
    } finally {
      await kb.stop();
      await proxy.close();
    }
  });
});
