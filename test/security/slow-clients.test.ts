// Issue 21.1: a request whose body never finishes is answered 408 (and its socket closed) within
// HTTP_REQUEST_TIMEOUT_MS plus Node's check interval — 2 s here — while normal requests and a long
// SSE chat stream go on; and HTTP_MAX_CONNECTIONS caps the sockets a slow client can hold.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { collectSse, postStream } from '../chat/sse.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.ts';
import { api, createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';
import { createSeeder, type Seeder } from '../support/seed-documents.ts';

const TIMEOUT_MS = 2_000;

interface Stalled {
  /** ms after the request was written until the server closed the socket. */
  closedAfterMs: number;
  /** What the server wrote before closing. */
  answer: string;
}

/** Writes the start of a request and nothing more; resolves when the server closes the socket. */
function stall(port: number, head: string, partialBody: string): Promise<Stalled> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    let sentAt = 0;
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      socket.write(head + partialBody);
      sentAt = performance.now();
    });
    socket.on('data', (d: string) => {
      answer += d;
    });
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? undefined : reject(err)));
    socket.on('close', () => resolve({ closedAfterMs: performance.now() - sentAt, answer }));
  });
}

const CHUNKED_HEAD = 'POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';
const DECLARED_HEAD = 'POST /api/lead HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n';

describe('stalled request bodies', () => {
  let fake: FakeOpenAI;
  let kb: Kbchat;
  let seeder: Seeder;
  let clientId: string;
  let port: number;
  beforeAll(async () => {
    fake = await startFakeOpenAI();
    kb = await startKbchat({
      services: ['gateway'],
      env: {
        ...fake.env,
        HTTP_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS),
        HTTP_HEADERS_TIMEOUT_MS: '1000',
        CHAT_RATE_LIMIT_PER_MINUTE: '100000',
      },
    });
    port = Number(new URL(kb.baseUrl).port);
    seeder = createSeeder(inject('databaseUrl'), kb.config);
    clientId = (await createClient(kb.baseUrl, { name: 'Slow Clients Co' })).clientId;
    await seeder.seed(clientId, [
      { url: 'https://slow.example/warranty', title: 'Warranty', chunks: ['To make a warranty claim, email the receipt to claims.'] },
    ]);
  });
  afterAll(async () => {
    await seeder?.close();
    await kb?.stop();
    await fake?.close();
  });

  it('answers 200 stalled sockets 408 within the timeout, while a normal request and a long SSE stream are served', async () => {
    // A 20-word answer at 250 ms a word: a stream of ~5 s, longer than twice the request timeout.
    fake.chatHandler = () => ({ content: `${Array.from({ length: 20 }, (_, i) => `word${i}`).join(' ')} [1]` });
    fake.streamChunkDelayMs = 250;
    const started = performance.now();
    const stream = postStream(kb.baseUrl, { clientId, message: 'How do I make a warranty claim?' }).then(collectSse);

    // 100 chunked bodies that never end, 100 that send 12 of 1,000 announced bytes.
    const stalled = await Promise.all([
      ...Array.from({ length: 100 }, () => stall(port, CHUNKED_HEAD, '5\r\n{"cli\r\n')),
      ...Array.from({ length: 100 }, () => stall(port, DECLARED_HEAD, '{"clientId":')),
      // Meanwhile the gateway answers as usual.
      (async () => {
        await new Promise((r) => setTimeout(r, 500));
        expect((await api(kb.baseUrl, 'GET', '/healthz')).status).toBe(200);
        const chat = await api(kb.baseUrl, 'POST', '/api/chat', { clientId, message: 'warranty claim?' });
        expect(chat.status, JSON.stringify(chat.body)).toBe(200);
        return undefined;
      })(),
    ]).then((all) => all.filter((s): s is Stalled => s !== undefined));

    expect(stalled).toHaveLength(200);
    const times = stalled.map((s) => s.closedAfterMs).sort((a, b) => a - b);
    process.stderr.write(
      `[slow clients] 200 stalled sockets closed ${Math.round(times[0] ?? 0)}–${Math.round(times.at(-1) ?? 0)} ms after their last byte (timeout ${TIMEOUT_MS} ms)\n`,
    );
    // Not before the timeout, and within it plus Node's check interval (200 ms here) and some slack.
    expect(times[0]).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
    expect(times.at(-1)).toBeLessThan(TIMEOUT_MS + 1_500);
    for (const s of stalled) {
      expect(s.answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(JSON.parse(s.answer.slice(s.answer.indexOf('\r\n\r\n') + 4))).toEqual({
        error: 'Request timeout',
        details: ['the request was not received in time'],
      });
    }

    // The stream outlived the request timeout and ended with its done event.
    const events = await stream;
    expect(performance.now() - started).toBeGreaterThan(2 * TIMEOUT_MS);
    expect(events.filter((e) => e.event === 'token').length).toBeGreaterThanOrEqual(20);
    expect(events.at(-1)?.event).toBe('done');
    expect((await api(kb.baseUrl, 'GET', '/healthz')).status).toBe(200);
  });

  it('answers unfinished headers 408 within the header timeout', async () => {
    const s = await stall(port, 'POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Type: appl', '');
    expect(s.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(s.closedAfterMs).toBeLessThan(1_000 + 1_500);
  });
});

describe('HTTP_MAX_CONNECTIONS', () => {
  let kb: Kbchat;
  beforeAll(async () => {
    kb = await startKbchat({
      services: ['gateway'],
      env: { HTTP_MAX_CONNECTIONS: '50', HTTP_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS), HTTP_HEADERS_TIMEOUT_MS: '1000' },
    });
  });
  afterAll(() => kb?.stop());

  it('closes connections past the limit at once; stalled ones free their places at the timeout', async () => {
    const port = Number(new URL(kb.baseUrl).port);
    const sockets = Array.from({ length: 60 }, () => stall(port, DECLARED_HEAD, '{"clientId":'));
    const all = await Promise.all(sockets);
    const refused = all.filter((s) => s.answer === '' && s.closedAfterMs < 1_000);
    const timedOut = all.filter((s) => /^HTTP\/1\.1 408 /.test(s.answer));
    expect(refused).toHaveLength(10);
    expect(timedOut).toHaveLength(50);
    expect((await api(kb.baseUrl, 'GET', '/healthz')).status).toBe(200);
  });
});
