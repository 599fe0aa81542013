// The operator's loop, through the real gateway, embedder and chat: questions the bot declined and
// answers rated down become knowledge gaps (near-duplicates grouped), a curated answer written for
// one answers the question asked in other words — verbatim, citing its url — and leaves the gap
// list; near-misses and other clients are never answered with it.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PIPELINE_ENV, pollJob } from '../pipeline/support/pipeline.ts';
import { api, createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';

interface ChatBody {
  answer: string;
  sources: { title: string; url: string }[];
  sessionId: string;
  messageId: string;
}
interface Gap {
  gapId: string;
  question: string;
  count: number;
  lastAskedAt: string;
  reason: string;
  sessionIds: string[];
  closestAnswerId: string | null;
}

const CURATED = 'Yes! We sell complete skateboards from 49 euros, in the shop and online.';

describe('knowledge gaps and curated answers', () => {
  let kb: Kbchat;
  beforeAll(async () => {
    kb = await startKbchat({ env: PIPELINE_ENV });
  });
  afterAll(async () => {
    await kb?.stop();
  });

  const chat = async (clientId: string, message: string) => {
    const res = await api<ChatBody>(kb.baseUrl, 'POST', '/api/chat', { clientId, message });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const gaps = async (clientId: string) =>
    (await api<{ items: Gap[] }>(kb.baseUrl, 'GET', `/api/admin/clients/${clientId}/knowledge-gaps`)).body.items;

  async function bikeShop() {
    const { clientId } = await createClient(kb.baseUrl);
    const text = await api<{ jobId: string }>(kb.baseUrl, 'POST', `/api/admin/clients/${clientId}/sources/text`, {
      title: 'Bike workshop',
      text: 'We repair bicycles in Porto within two days. Our workshop opens at nine and closes at six on weekdays.',
      url: 'https://bikes.example/workshop',
    });
    expect(text.status).toBe(201);
    await pollJob(kb.baseUrl, text.body.jobId);
    return clientId;
  }

  it('groups declined and thumbs-down questions into gaps, and a curated answer fixes one in a step', async () => {
    const clientId = await bikeShop();
    const first = await chat(clientId, 'Do you sell skateboards?');
    expect(first.sources).toEqual([]);
    await chat(clientId, 'do u sell skateboards');
    const opens = await chat(clientId, 'When does the workshop open?');
    expect(opens.sources).toHaveLength(1);
    const down = await api(kb.baseUrl, 'POST', '/api/feedback', {
      clientId,
      sessionId: opens.sessionId,
      messageId: opens.messageId,
      rating: 'down',
    });
    expect(down.status).toBe(200);

    let list = await gaps(clientId);
    expect(list.map((g) => [g.question, g.count, g.reason])).toEqual([
      ['do u sell skateboards', 2, 'declined'],
      ['When does the workshop open?', 1, 'thumbs-down'],
    ]);
    expect(list[0]?.sessionIds).toHaveLength(2);
    expect(list[0]?.gapId).toMatch(/^[0-9a-f]{16}$/);
    // No curated answer yet: none to start "Add to an answer" from.
    expect(list.map((g) => g.closestAnswerId)).toEqual([null, null]);

    // Dismissed until asked again.
    const opensGap = list[1] as Gap;
    expect((await api(kb.baseUrl, 'POST', `/api/admin/clients/${clientId}/knowledge-gaps/${opensGap.gapId}/dismiss`)).status).toBe(200);
    expect((await gaps(clientId)).map((g) => g.question)).toEqual(['do u sell skateboards']);
    expect((await api(kb.baseUrl, 'POST', `/api/admin/clients/${clientId}/knowledge-gaps/nope/dismiss`)).status).toBe(404);

    // "Write the answer": the gap's question, answered in the operator's words.
    const created = await api<{ answerId: string; question: string; url: string | null }>(
      kb.baseUrl,
      'POST',
      `/api/admin/clients/${clientId}/answers`,
      { question: 'Do you sell skateboards?', answer: CURATED, url: 'https://bikes.example/skateboards' },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ question: 'Do you sell skateboards?', url: 'https://bikes.example/skateboards' });

    for (const paraphrase of ['Are skateboards something you carry?', 'Can I buy a skateboard from you?', 'skateboards?']) {
      const res = await chat(clientId, paraphrase);
      expect(res.answer, paraphrase).toBe(CURATED);
      expect(res.sources).toEqual([{ title: 'Do you sell skateboards?', url: 'https://bikes.example/skateboards' }]);
    }
    for (const nearMiss of ['Do you sell skateboard wheels?', 'Do you repair skateboards?']) {
      const r = await chat(clientId, nearMiss);
      expect(r.answer, nearMiss).not.toBe(CURATED);
      // Nor is the answer's hidden document quoted like a page (it quoted its question, "Do you sell skateboards? [1]").
      expect(r.answer, nearMiss).not.toContain('Do you sell skateboards?');
      expect(
        r.sources.map((s) => s.url),
        nearMiss,
      ).not.toContain('https://bikes.example/skateboards');
    }
    list = await gaps(clientId);
    expect(list.map((g) => g.question)).not.toContain('do u sell skateboards');
    // A near-miss declined is a gap of its own, pointing at the answer its words come closest to.
    const wheels = list.find((g) => g.question === 'Do you sell skateboard wheels?');
    expect(wheels?.closestAnswerId).toBe(created.body.answerId);

    // Edited: the new words are given, without a url nothing is cited; deleted: never given again.
    const answerId = created.body.answerId;
    const patched = await api<{ answer: string; url: string | null }>(
      kb.baseUrl,
      'PATCH',
      `/api/admin/clients/${clientId}/answers/${answerId}`,
      {
        answer: 'We sell skateboards from March on.',
        url: null,
      },
    );
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({ answer: 'We sell skateboards from March on.', url: null });
    const after = await chat(clientId, 'Are skateboards something you carry?');
    expect(after).toMatchObject({ answer: 'We sell skateboards from March on.', sources: [] });
    const listed = await api<{ items: { answerId: string }[] }>(kb.baseUrl, 'GET', `/api/admin/clients/${clientId}/answers`);
    expect(listed.body.items.map((i) => i.answerId)).toEqual([answerId]);
    // Its hidden source is not one of the client's sources.
    const sources = await api<{ sources: { type: string }[] }>(kb.baseUrl, 'GET', `/api/admin/clients/${clientId}/sources`);
    expect(sources.body.sources.map((s) => s.type)).toEqual(['text']);

    expect((await api(kb.baseUrl, 'DELETE', `/api/admin/clients/${clientId}/answers/${answerId}`)).status).toBe(204);
    expect((await chat(clientId, 'Are skateboards something you carry?')).answer).not.toContain('skateboards from March');
    expect((await api(kb.baseUrl, 'DELETE', `/api/admin/clients/${clientId}/answers/${answerId}`)).status).toBe(404);
  });

  it('takes a knowledge gap worded unlike the answer as another way of asking for it, and keeps edits made at once', async () => {
    const clientId = await bikeShop();
    const wifi = 'Free wireless internet in the workshop while your bike is repaired: the network is "bikes-guest".';
    const created = await api<{ answerId: string; alternateQuestions: string[] }>(
      kb.baseUrl,
      'POST',
      `/api/admin/clients/${clientId}/answers`,
      {
        question: 'Do you have free Wi-Fi?',
        alternateQuestions: ['  Do you have free Wi-Fi? ', 'wifi password?', 'WiFi password?'],
        answer: wifi,
      },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // Trimmed, each once, never the question itself.
    expect(created.body.alternateQuestions).toEqual(['wifi password?']);
    const base = `/api/admin/clients/${clientId}/answers/${created.body.answerId}`;

    // Worded with none of the answer's words: declined, and a gap.
    const gapWording = 'can I get online while I wait';
    expect((await chat(clientId, gapWording)).sources).toEqual([]);
    expect((await gaps(clientId)).map((g) => [g.question, g.closestAnswerId])).toEqual([[gapWording, null]]);

    const added = await api<{ alternateQuestions: string[] }>(kb.baseUrl, 'POST', `${base}/questions`, { question: gapWording });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.alternateQuestions).toEqual(['wifi password?', gapWording]);
    // Added again, or as the question itself: nothing changes.
    for (const question of ['Can I get online while I wait ', 'do you have free wi-fi?']) {
      const again = await api<{ alternateQuestions: string[] }>(kb.baseUrl, 'POST', `${base}/questions`, { question });
      expect(again.body.alternateQuestions).toEqual(['wifi password?', gapWording]);
    }
    for (const wording of [gapWording, 'Can I get online while I wait?'])
      expect((await chat(clientId, wording)).answer, wording).toBe(wifi);
    expect((await chat(clientId, 'can I get a coffee while I wait')).answer).not.toBe(wifi);
    // The gap is answered now; the near-miss is a gap of its own.
    expect((await gaps(clientId)).map((g) => g.question)).toEqual(['can I get a coffee while I wait']);

    // Two operators adding wordings at once, and two editing other fields at once: every edit lands.
    const [one, two] = await Promise.all(
      ['is there internet in the workshop', 'can i check my email here'].map((question) =>
        api(kb.baseUrl, 'POST', `${base}/questions`, { question }),
      ),
    );
    expect([one?.status, two?.status]).toEqual([200, 200]);
    const [q, a] = await Promise.all([
      api(kb.baseUrl, 'PATCH', base, { question: 'Is there free Wi-Fi?' }),
      api(kb.baseUrl, 'PATCH', base, { answer: `${wifi} Ask at the desk.` }),
    ]);
    expect([q.status, a.status]).toEqual([200, 200]);
    const listed = await api<{ items: { question: string; alternateQuestions: string[]; answer: string }[] }>(
      kb.baseUrl,
      'GET',
      `/api/admin/clients/${clientId}/answers`,
    );
    expect(listed.body.items).toHaveLength(1);
    expect(listed.body.items[0]).toMatchObject({ question: 'Is there free Wi-Fi?', answer: `${wifi} Ask at the desk.` });
    expect([...(listed.body.items[0]?.alternateQuestions ?? [])].sort()).toEqual(
      ['can i check my email here', gapWording, 'is there internet in the workshop', 'wifi password?'].sort(),
    );

    // The list is the operator's to replace; emptied, the gap's wording is declined again.
    const cleared = await api<{ alternateQuestions: string[] }>(kb.baseUrl, 'PATCH', base, { alternateQuestions: [] });
    expect(cleared.body.alternateQuestions).toEqual([]);
    expect((await chat(clientId, gapWording)).sources).toEqual([]);

    // Validation, the cap, and another client's answer.
    for (const body of [{}, { question: '' }, { question: 7 }, { question: 'x', extra: 1 }])
      expect((await api(kb.baseUrl, 'POST', `${base}/questions`, body)).status, JSON.stringify(body)).toBe(400);
    const many = Array.from({ length: 21 }, (_, i) => `question number ${i}`);
    expect((await api(kb.baseUrl, 'PATCH', base, { alternateQuestions: many })).status).toBe(400);
    expect((await api(kb.baseUrl, 'PATCH', base, { alternateQuestions: many.slice(0, 20) })).status).toBe(200);
    const full = await api<{ details: string[] }>(kb.baseUrl, 'POST', `${base}/questions`, { question: 'one too many' });
    expect(full.status).toBe(400);
    expect(full.body.details).toEqual(['an answer has at most 20 alternate questions']);
    const { clientId: other } = await createClient(kb.baseUrl);
    expect(
      (await api(kb.baseUrl, 'POST', `/api/admin/clients/${other}/answers/${created.body.answerId}/questions`, { question: 'q' })).status,
    ).toBe(404);
    expect(
      (await api(kb.baseUrl, 'POST', `${base.replace(created.body.answerId, randomUUID())}/questions`, { question: 'q' })).status,
    ).toBe(404);
  });

  it("never answers one client with another's curated answer, and validates what it takes", async () => {
    const a = await bikeShop();
    const { clientId: b } = await createClient(kb.baseUrl);
    const created = await api<{ answerId: string }>(kb.baseUrl, 'POST', `/api/admin/clients/${a}/answers`, {
      question: 'Do you sell skateboards?',
      answer: CURATED,
    });
    expect(created.status).toBe(201);
    expect((await chat(a, 'do u sell skateboards')).answer).toBe(CURATED);
    expect((await chat(b, 'do u sell skateboards')).answer).not.toBe(CURATED);
    expect((await api<{ items: unknown[] }>(kb.baseUrl, 'GET', `/api/admin/clients/${b}/answers`)).body.items).toEqual([]);
    expect((await api(kb.baseUrl, 'PATCH', `/api/admin/clients/${b}/answers/${created.body.answerId}`, { answer: 'x' })).status).toBe(404);
    expect((await api(kb.baseUrl, 'DELETE', `/api/admin/clients/${b}/answers/${created.body.answerId}`)).status).toBe(404);
    // B's own unanswered question is B's gap; A's answer does not close it.
    expect((await gaps(b)).map((g) => g.question)).toEqual(['do u sell skateboards']);

    for (const body of [{ question: '', answer: 'x' }, { question: 'q?' }, { question: 'q?', answer: 'a', url: 'ftp://x' }]) {
      expect((await api(kb.baseUrl, 'POST', `/api/admin/clients/${a}/answers`, body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await api(kb.baseUrl, 'PATCH', `/api/admin/clients/${a}/answers/${created.body.answerId}`, {})).status).toBe(400);
    // An unknown key is named back when it looks like a field name; anything else is only counted.
    const unknown = await api<{ details: string[] }>(kb.baseUrl, 'PATCH', `/api/admin/clients/${a}/answers/${created.body.answerId}`, {
      answer: 'a',
      colour: 'red',
      '1); SELECT pg_sleep(10); --': 1,
      '<script>': 2,
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toEqual(['body has unknown keys: "colour", 2 more that are not field names']);
    expect((await api(kb.baseUrl, 'PATCH', `/api/admin/clients/${a}/answers/${randomUUID()}`, { answer: 'x' })).status).toBe(404);
    expect((await api(kb.baseUrl, 'GET', `/api/admin/clients/${randomUUID()}/knowledge-gaps`)).status).toBe(404);
    expect((await api(kb.baseUrl, 'GET', `/api/admin/clients/${a}/knowledge-gaps?from=tomorrow`)).status).toBe(400);
  });
});
