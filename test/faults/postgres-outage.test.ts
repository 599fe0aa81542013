// Issue 5 fault c: Postgres stopped for 10 s under chat load. kbchat (gateway, crawler and
// embedder in one process, their watchdogs and outbox sweep running) uses a Postgres cluster of
// this test's own — never the shared server. During the outage every chat request is answered at
// once with a 503 JSON { error, details } and a Retry-After — never a hang, never HTML, never a
// 500 with internals — and a lead is refused the same way rather than lost silently. Once Postgres
// is back the same process answers 200 again, and leads are stored and their webhooks delivered,
// with no restart of anything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createClient, type Kbchat, startKbchat, waitFor } from '../support/kbchat.ts';
import { hasPostgresBinaries, type PrivatePostgres, startPrivatePostgres } from '../support/private-postgres.ts';
import { createSeeder } from '../support/seed-documents.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

const OUTAGE_MS = 10_000;
/** Longer than any answer can honestly take: a request still open then counts as a hang. */
const HANG_MS = 20_000;

interface Sample {
  path: string;
  start: number;
  end: number;
  status: number;
  type: string;
  retryAfter: string | null;
  body: string;
  hung: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!hasPostgresBinaries)('Postgres stopped for 10 s under chat load', () => {
  let pg: PrivatePostgres;
  let kb: Kbchat;
  let clientId: string;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    pg = await startPrivatePostgres();
    receiver = await startWebhookReceiver();
    kb = await startKbchat({
      env: {
        DATABASE_URL: pg.url,
        CHAT_RATE_LIMIT_PER_MINUTE: '1000000',
        // The background loops that query Postgres run several times during the outage.
        PIPELINE_WATCHDOG_MS: '500',
        WEBHOOK_OUTBOX_SWEEP_MS: '300',
        WEBHOOK_OUTBOX_MIN_AGE_MS: '500',
      },
    });
    ({ clientId } = await createClient(kb.baseUrl, { name: 'Outage Plumbing', leadWebhookUrl: receiver.url('/leads') }));
    const seeder = createSeeder(pg.url, kb.config);
    try {
      await seeder.seed(clientId, [
        {
          url: 'https://outage.example/hours',
          title: 'Opening hours',
          chunks: ['We are open Monday to Friday from 8 am to 6 pm and on Saturdays from 9 am to noon.'],
        },
        {
          url: 'https://outage.example/boilers',
          title: 'Boiler repair',
          chunks: ['We repair and service gas boilers of every make; an engineer visit costs 95 pounds.'],
        },
      ]);
    } finally {
      await seeder.close();
    }
  });
  afterAll(async () => {
    await kb?.stop();
    await pg?.destroy();
    await receiver?.stop();
  });

  it('answers 503 JSON with Retry-After during the outage and recovers without a restart', async () => {
    const samples: Sample[] = [];
    let running = true;
    const questions = ['When are you open on Saturdays?', 'How much is an engineer visit?', 'Do you repair gas boilers?'];
    const worker = async (w: number) => {
      for (let i = 0; running; i++) {
        // One request in four is the streamed variant: its errors before the first byte are JSON too.
        const path = (i + w) % 4 === 0 ? '/api/chat/stream' : '/api/chat';
        const start = Date.now();
        try {
          const res = await fetch(new URL(path, kb.baseUrl), {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ clientId, message: questions[i % questions.length], sessionId: `outage-${w}` }),
            signal: AbortSignal.timeout(HANG_MS),
          });
          const body = await res.text();
          samples.push({
            path,
            start,
            end: Date.now(),
            status: res.status,
            type: res.headers.get('content-type') ?? '',
            retryAfter: res.headers.get('retry-after'),
            body,
            hung: false,
          });
        } catch (err) {
          const hung = (err as Error).name === 'TimeoutError';
          samples.push({ path, start, end: Date.now(), status: 0, type: '', retryAfter: null, body: String(err), hung });
        }
        await sleep(25);
      }
    };
    const workers = [0, 1, 2, 3].map(worker);

    await waitFor(() => samples.filter((s) => s.status === 200).length >= 20, { timeoutMs: 30_000 }).catch((err: Error) => {
      const seen = samples.slice(-3).map((s) => `${s.status} ${s.body.slice(0, 160)}`);
      throw new Error(`${err.message}: no 20 answers before the outage; last: ${seen.join(' | ')}`);
    });
    await pg.stop();
    const stopped = Date.now();
    // The readiness probe names the culprit while it is down.
    const down = await api<{ details: string[] }>(kb.baseUrl, 'GET', '/readyz');
    expect(down.status).toBe(503);
    expect(down.body.details).toEqual(['postgres is down']);
    // A lead cannot be stored: the visitor's form is told to retry, not thanked for a lead that is gone.
    const refused = await api(kb.baseUrl, 'POST', '/api/lead', { clientId, name: 'Down', email: 'down@example.com' });
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ error: 'Service unavailable', details: ['a backing service is not reachable; retry shortly'] });
    await sleep(OUTAGE_MS - (Date.now() - stopped));
    const restarting = Date.now();
    await pg.start();
    const restarted = Date.now();

    const firstOk = await waitFor(() => samples.find((s) => s.start >= restarted && s.status === 200 && !s.body.includes('event: error')), {
      timeoutMs: 60_000,
      what: 'a 200 after the restart',
    });
    // Then steady: the next answers are all 200 again.
    await waitFor(() => samples.filter((s) => s.start > firstOk.end).length >= 20, { timeoutMs: 30_000, what: '20 more answers' });
    running = false;
    await Promise.all(workers);

    const during = samples.filter((s) => s.start >= stopped && s.end <= restarting);
    const bad = samples.filter((s) => s.hung || (s.status >= 500 && s.status !== 503) || s.status === 0);
    expect(bad.map((s) => `${s.path} ${s.status} ${s.body.slice(0, 200)}`)).toEqual([]);
    // The outage was really hit, by every worker, and answered quickly each time.
    expect(during.length).toBeGreaterThanOrEqual(20);
    for (const s of during) {
      expect(s.status, `${s.path}: ${s.body.slice(0, 200)}`).toBe(503);
      expect(s.type).toMatch(/^application\/json/);
      expect(JSON.parse(s.body)).toEqual({ error: 'Service unavailable', details: ['a backing service is not reachable; retry shortly'] });
      expect(Number(s.retryAfter)).toBeGreaterThan(0);
    }
    // No 503 anywhere gave away what is behind it.
    for (const s of samples.filter((x) => x.status === 503))
      expect(s.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|postgres|5432|\bat \w|stack/i);
    // A stream cut off mid-answer ends with an error event, never a broken or an HTML body.
    for (const s of samples.filter((x) => x.status === 200 && x.path === '/api/chat/stream')) {
      expect(s.body).toMatch(/event: (done|error)\ndata: .*\n\n$/);
    }
    const after = samples.filter((s) => s.start > firstOk.end);
    expect(after.every((s) => s.status === 200)).toBe(true);
    expect((await api(kb.baseUrl, 'GET', '/readyz')).status).toBe(200);
    // And the data written before the outage is still there: the conversation goes on.
    const res = await api<{ sessionId: string }>(kb.baseUrl, 'POST', '/api/chat', {
      clientId,
      message: 'And on Sundays?',
      sessionId: 'outage-0',
    });
    expect(res.status).toBe(200);
    // The crawler service (webhooks) came through too: a lead is stored and delivered, once.
    const lead = await api<{ leadId: string }>(kb.baseUrl, 'POST', '/api/lead', { clientId, name: 'Back', email: 'back@example.com' });
    expect(lead.status).toBe(200);
    const [hook] = await receiver.waitForRequests(1, { path: '/leads' });
    expect(hook?.webhookId).toBe(`msg_${lead.body.leadId}`);
    expect(receiver.on('/leads')).toHaveLength(1);

    const slowest503 = Math.max(...samples.filter((s) => s.status === 503).map((s) => s.end - s.start));
    process.stderr.write(
      `[fault c] ${samples.length} chat requests; during the ${OUTAGE_MS / 1000} s outage ${during.length} answered 503 JSON ` +
        `(slowest ${slowest503} ms), 0 hung, 0 other 5xx; Postgres restart took ${restarted - restarting} ms; ` +
        `first 200 ${firstOk.end - restarted} ms after it was back\n`,
    );
  });
});
