import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database.ts';

const KEY = 'metrics-test-admin-key-0123456789';

describe('/metrics', () => {
  let kb: Kbchat;
  let scratch: ScratchDatabase;
  beforeAll(async () => {
    // A database of its own: the crawl gauge counts every crawl in the database, and other test
    // files' crawls finishing between two scrapes would move it.
    scratch = await createScratchDatabase();
    kb = await startKbchat({ services: ['gateway'], env: { ADMIN_API_KEY: KEY, DATABASE_URL: scratch.url } });
  });
  afterAll(async () => {
    await kb?.stop();
    await scratch?.drop();
  });

  it('exposes request counts by route pattern and queue depths in Prometheus format, behind the admin key', async () => {
    await api(kb.baseUrl, 'GET', '/healthz');
    await api(kb.baseUrl, 'GET', '/api/admin/clients/00000000-0000-4000-8000-000000000000', undefined, { authorization: `Bearer ${KEY}` });

    const denied = await api(kb.baseUrl, 'GET', '/metrics');
    expect(denied.status).toBe(401);

    const res = await fetch(`${kb.baseUrl}/metrics`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/kbchat_http_requests_total\{method="GET",route="\/healthz",status="200"\} [1-9]/);
    // The pattern, not the id: cardinality stays bounded and no tenant id reaches the metrics.
    expect(text).toMatch(/route="\/api\/admin\/clients\/:clientId",status="404"/);
    expect(text).not.toMatch(/00000000-0000-4000-8000-000000000000/);
    expect(text).toMatch(/kbchat_queue_jobs\{queue="crawl",state="waiting"\} 0/);
    expect(text).toMatch(/kbchat_process_resident_memory_bytes/);
  });

  it('counts chat answers, leads and feedback by outcome as they happen, and crawls by outcome from the database', async () => {
    const headers = { authorization: `Bearer ${KEY}` };
    const scrape = async () => (await fetch(`${kb.baseUrl}/metrics`, { headers })).text();
    const value = (text: string, series: string) =>
      Number(new RegExp(`^${series.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
    const before = await scrape();
    for (const series of [
      'kbchat_chat_answers_total{outcome="answered"}',
      'kbchat_chat_answers_total{outcome="declined"}',
      'kbchat_chat_answers_total{outcome="contact"}',
      'kbchat_chat_answers_total{outcome="replied"}',
      'kbchat_leads_total',
      'kbchat_feedback_total{rating="up"}',
      'kbchat_feedback_total{rating="down"}',
      'kbchat_crawls{outcome="completed"}',
      'kbchat_crawls{outcome="failed"}',
    ]) {
      expect(value(before, series), series).toBeGreaterThanOrEqual(0);
    }

    // A client with an empty knowledge base: the answer quotes nothing, so it declines.
    const client = await createClient(kb.baseUrl, { name: 'Metrics Co' }, headers);
    const chat = await api<{ sessionId: string; messageId: string; sources: unknown[] }>(kb.baseUrl, 'POST', '/api/chat', {
      clientId: client.clientId,
      message: 'What is the price of the premium plan?',
    });
    expect(chat.status).toBe(200);
    expect(chat.body.sources).toEqual([]);
    // A greeting and "who are you?" are answered in kind: neither a decline nor a knowledge gap.
    for (const message of ['hi', 'who are you?'])
      expect((await api(kb.baseUrl, 'POST', '/api/chat', { clientId: client.clientId, message })).status).toBe(200);
    const rated = await api(kb.baseUrl, 'POST', '/api/feedback', {
      clientId: client.clientId,
      sessionId: chat.body.sessionId,
      messageId: chat.body.messageId,
      rating: 'down',
    });
    expect(rated.status).toBe(200);
    expect((await api(kb.baseUrl, 'POST', '/api/lead', { clientId: client.clientId, name: 'Ada', email: 'ada@example.com' })).status).toBe(
      200,
    );
    // Only the gateway runs here: the crawl stays queued, and the gauge reads it from the jobs table.
    const crawl = await api(
      kb.baseUrl,
      'POST',
      '/api/admin/crawl',
      { clientId: client.clientId, url: 'https://example.com/', wait: false },
      headers,
    );
    expect(crawl.status).toBe(202);

    const after = await scrape();
    const delta = (series: string) => value(after, series) - value(before, series);
    expect(delta('kbchat_chat_answers_total{outcome="declined"}') + delta('kbchat_chat_answers_total{outcome="contact"}')).toBe(1);
    expect(delta('kbchat_chat_answers_total{outcome="replied"}')).toBe(2);
    expect(delta('kbchat_leads_total')).toBe(1);
    expect(delta('kbchat_feedback_total{rating="down"}')).toBe(1);
    expect(delta('kbchat_crawls{outcome="queued"}')).toBe(1);
    expect(after).not.toContain(client.clientId);
  });
});
