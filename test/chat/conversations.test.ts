// What visitors asked, for the operator: conversations with filters and transcripts, visitor
// feedback on answers (public, latest wins), erasure, per-day figures, and tenant isolation — through
// the real gateway, embedder and chat with a text source as the knowledge.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PIPELINE_ENV, pollJob, testPool } from '../pipeline/support/pipeline.ts';
import { api, createClient, type Kbchat, startKbchat, waitFor } from '../support/kbchat.ts';

interface ChatBody {
  answer: string;
  sources: { title: string; url: string }[];
  sessionId: string;
  leadCaptureIntent: boolean;
  messageId: string;
}
interface Summary {
  sessionId: string;
  messageCount: number;
  firstQuestion: string | null;
  pageUrl: string | null;
  leadCaptured: boolean;
  declinedCount: number;
  feedback: { up: number; down: number };
}

describe('conversations, feedback and stats', () => {
  let kb: Kbchat;
  let pool: pg.Pool;
  beforeAll(async () => {
    kb = await startKbchat({ env: { ...PIPELINE_ENV, RETENTION_SWEEP_MS: '1000' } });
    pool = testPool();
  });
  afterAll(async () => {
    await kb?.stop();
    await pool?.end();
  });

  const chat = async (clientId: string, message: string, sessionId?: string, pageUrl?: string) => {
    const res = await api<ChatBody>(kb.baseUrl, 'POST', '/api/chat', {
      clientId,
      message,
      ...(sessionId ? { sessionId } : {}),
      ...(pageUrl ? { context: { pageUrl } } : {}),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const feedback = (body: Record<string, unknown>) => api<{ success?: boolean; error?: string }>(kb.baseUrl, 'POST', '/api/feedback', body);
  const list = (clientId: string, query = '') =>
    api<{ items: Summary[]; total: number }>(kb.baseUrl, 'GET', `/api/admin/clients/${clientId}/conversations${query}`);

  async function clientWithKnowledge() {
    const { clientId } = await createClient(kb.baseUrl);
    const text = await api<{ jobId: string }>(kb.baseUrl, 'POST', `/api/admin/clients/${clientId}/sources/text`, {
      title: 'Skate shop',
      text: 'We sell skateboards, wheels and helmets. Our shop in Porto repairs skateboard decks in two days.',
      url: 'https://skate.example/about',
    });
    expect(text.status).toBe(201);
    await pollJob(kb.baseUrl, text.body.jobId);
    return clientId;
  }

  it('lists conversations newest first with their figures, filters them, shows a transcript, and takes feedback', async () => {
    const clientId = await clientWithKnowledge();
    const a = await chat(clientId, 'Do you repair skateboard decks?', undefined, 'https://skate.example/repairs');
    expect(a.sources).toHaveLength(1);
    expect(a.messageId).toMatch(/^[0-9a-f-]{36}$/);
    const declined = await chat(clientId, 'What is the weather in Paris today?', a.sessionId);
    expect(declined.sources).toEqual([]);
    const b = await chat(clientId, 'Please call me back about helmets, I want to talk to someone');
    expect(b.leadCaptureIntent).toBe(true);

    // Feedback: public, one per answer, the latest wins; only this client's and session's answers.
    expect(
      (await feedback({ clientId, sessionId: a.sessionId, messageId: a.messageId, rating: 'down', comment: 'too short' })).status,
    ).toBe(200);
    expect((await feedback({ clientId, sessionId: a.sessionId, messageId: a.messageId, rating: 'up' })).body).toEqual({ success: true });
    expect((await feedback({ clientId, sessionId: a.sessionId, messageId: declined.messageId, rating: 'down' })).status).toBe(200);
    expect((await feedback({ clientId, sessionId: b.sessionId, messageId: a.messageId, rating: 'down' })).status).toBe(404);
    expect((await feedback({ clientId, sessionId: a.sessionId, messageId: randomUUID(), rating: 'down' })).status).toBe(404);
    expect((await feedback({ clientId, sessionId: a.sessionId, messageId: 'not-an-id', rating: 'down' })).status).toBe(404);
    const bad = await feedback({ clientId, sessionId: a.sessionId, messageId: a.messageId, rating: 'meh' });
    expect(bad.status).toBe(400);
    expect((await feedback({ clientId: randomUUID(), sessionId: a.sessionId, messageId: a.messageId, rating: 'up' })).status).toBe(404);

    const all = await list(clientId);
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(2);
    expect(all.body.items.map((i) => i.sessionId)).toEqual([b.sessionId, a.sessionId]);
    expect(all.body.items[1]).toEqual({
      sessionId: a.sessionId,
      startedAt: expect.any(String),
      lastMessageAt: expect.any(String),
      messageCount: 4,
      firstQuestion: 'Do you repair skateboard decks?',
      pageUrl: 'https://skate.example/repairs',
      leadCaptured: false,
      declinedCount: 1,
      feedback: { up: 1, down: 1 },
    });
    expect(all.body.items[0]).toMatchObject({ leadCaptured: true, declinedCount: 0, messageCount: 2 });

    expect((await list(clientId, '?lead=true')).body.items.map((i) => i.sessionId)).toEqual([b.sessionId]);
    expect((await list(clientId, '?lead=false&feedback=down')).body.items.map((i) => i.sessionId)).toEqual([a.sessionId]);
    expect((await list(clientId, '?q=WEATHER')).body.items.map((i) => i.sessionId)).toEqual([a.sessionId]);
    expect((await list(clientId, '?q=nothing-like-this')).body).toEqual({ items: [], total: 0 });
    const page2 = await list(clientId, '?limit=1&offset=1');
    expect(page2.body).toMatchObject({ total: 2, items: [{ sessionId: a.sessionId }] });
    expect((await list(clientId, '?limit=1&offset=5')).body).toEqual({ items: [], total: 2 });
    expect((await list(clientId, `?from=${new Date(Date.now() + 3600_000).toISOString()}`)).body.total).toBe(0);
    for (const q of ['?limit=0', '?lead=maybe', '?feedback=sideways', '?from=yesterday', '?from=2026-02-01&to=2026-01-01']) {
      const res = await list(clientId, q);
      expect(res.status, q).toBe(400);
    }

    const transcript = await api<{ sessionId: string; messages: Record<string, unknown>[] }>(
      kb.baseUrl,
      'GET',
      `/api/admin/clients/${clientId}/conversations/${a.sessionId}`,
    );
    expect(transcript.status).toBe(200);
    expect(transcript.body.messages.map((m) => [m.role, m.declined, m.feedback])).toEqual([
      ['user', false, null],
      ['assistant', false, 'up'],
      ['user', false, null],
      ['assistant', true, 'down'],
    ]);
    expect(transcript.body.messages[1]).toMatchObject({
      messageId: a.messageId,
      content: a.answer,
      sources: a.sources,
      feedbackComment: null,
      leadCaptureIntent: false,
    });

    // Figures of today: 2 conversations, 6 messages, 1 answered from the site, 1 declined, ratings.
    const stats = await api<{ series: Record<string, unknown>[]; totals: Record<string, number> }>(
      kb.baseUrl,
      'GET',
      `/api/admin/clients/${clientId}/stats?from=${new Date(Date.now() - 2 * 86_400_000).toISOString()}&interval=day`,
    );
    expect(stats.status).toBe(200);
    expect(stats.body.series).toHaveLength(3);
    expect(stats.body.totals).toMatchObject({ conversations: 2, messages: 6, answered: 1, declined: 1, feedbackUp: 1, feedbackDown: 1 });
    expect((await api(kb.baseUrl, 'GET', `/api/admin/clients/${clientId}/stats?interval=hour`)).status).toBe(400);
    expect((await api(kb.baseUrl, 'GET', `/api/admin/clients/${clientId}/stats?from=2020-01-01&interval=day`)).status).toBe(400);
  });

  it("never shows one client another's conversations, and erases one on request", async () => {
    const clientA = await clientWithKnowledge();
    const { clientId: clientB } = await createClient(kb.baseUrl);
    const a = await chat(clientA, 'Do you sell helmets?');
    // The same sessionId under B is B's own session, never A's.
    await chat(clientB, 'Hello there', a.sessionId);

    expect((await list(clientB)).body.items.map((i) => i.firstQuestion)).toEqual(['Hello there']);
    const bView = await api<{ messages: { content: string }[] }>(
      kb.baseUrl,
      'GET',
      `/api/admin/clients/${clientB}/conversations/${a.sessionId}`,
    );
    expect(bView.body.messages.map((m) => m.content)).not.toContain('Do you sell helmets?');
    expect((await feedback({ clientId: clientB, sessionId: a.sessionId, messageId: a.messageId, rating: 'down' })).status).toBe(404);
    const bStats = await api<{ totals: Record<string, number> }>(kb.baseUrl, 'GET', `/api/admin/clients/${clientB}/stats`);
    expect(bStats.body.totals).toMatchObject({ conversations: 1, messages: 2 });

    expect((await api(kb.baseUrl, 'DELETE', `/api/admin/clients/${clientB}/conversations/${randomUUID()}`)).status).toBe(404);
    expect((await api(kb.baseUrl, 'DELETE', `/api/admin/clients/${clientA}/conversations/${a.sessionId}`)).status).toBe(204);
    expect((await api(kb.baseUrl, 'GET', `/api/admin/clients/${clientA}/conversations/${a.sessionId}`)).status).toBe(404);
    expect((await list(clientA)).body.total).toBe(0);
    expect((await list(clientB)).body.total).toBe(1);
    expect((await api(kb.baseUrl, 'GET', `/api/admin/clients/${randomUUID()}/conversations`)).status).toBe(404);
    // A session id no chat could have made (a NUL Postgres refuses in text, a space): not found, not a 500.
    for (const odd of ['a%00b', 'a%20b', '%00']) {
      for (const method of ['GET', 'DELETE'] as const) {
        const res = await api(kb.baseUrl, method, `/api/admin/clients/${clientB}/conversations/${odd}`);
        expect(res.status, `${method} ${odd}`).toBe(404);
        expect(res.body).toEqual({ error: 'Conversation not found', details: ['this client has no conversation with this sessionId'] });
      }
    }
    expect((await list(clientB)).body.total).toBe(1);
  });

  it("deletes conversations past their client's transcriptRetentionDays, and only those", async () => {
    const short = await createClient(kb.baseUrl, { transcriptRetentionDays: 1 });
    expect(short).toMatchObject({ transcriptRetentionDays: 1 });
    const { clientId: normal } = await createClient(kb.baseUrl);
    const bad = await api(kb.baseUrl, 'PATCH', `/api/admin/clients/${normal}`, { transcriptRetentionDays: 0 });
    expect(bad.status).toBe(400);
    const old = await chat(short.clientId, 'Hello, an old question');
    const recent = await chat(short.clientId, 'Hello, a new question');
    const keptOld = await chat(normal, 'Hello, an old question elsewhere');
    // Two days idle: past the short client's 1 day, within the other's default 90.
    await pool.query(`UPDATE sessions SET last_active_at = now() - interval '2 days' WHERE session_id = ANY($1)`, [
      [old.sessionId, keptOld.sessionId],
    ]);
    await waitFor(async () => ((await list(short.clientId)).body.total === 1 ? true : undefined), {
      timeoutMs: 15_000,
      intervalMs: 200,
      what: 'the retention sweep',
    });
    expect((await list(short.clientId)).body.items.map((i) => i.sessionId)).toEqual([recent.sessionId]);
    expect((await list(normal)).body.items.map((i) => i.sessionId)).toEqual([keptOld.sessionId]);
    expect((await api(kb.baseUrl, 'PATCH', `/api/admin/clients/${normal}`, { transcriptRetentionDays: 1 })).status).toBe(200);
    await waitFor(async () => ((await list(normal)).body.total === 0 ? true : undefined), {
      timeoutMs: 15_000,
      intervalMs: 200,
      what: 'the retention sweep after the PATCH',
    });
  });
});
