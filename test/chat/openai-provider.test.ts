import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { defaultChatReply, type FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.ts';
import { api, createClient, type Kbchat, startKbchat, waitFor } from '../support/kbchat.ts';
import { createSeeder, type Seeder } from '../support/seed-documents.ts';
import { plumbingSite } from './corpus.ts';
import { postStream, readSse } from './sse.ts';

interface ChatBody {
  answer: string;
  sources: { title: string; url: string }[];
  sessionId: string;
  leadCaptureIntent: boolean;
}

/**
 * A pass-through proxy in front of the fake that counts upstream responses the gateway hung up on
 * before they finished: the observable trace of an aborted provider call.
 */
async function startWatchingProxy(target: string) {
  const state = { abandoned: 0, close: () => Promise.resolve() };
  const server = http.createServer((req, res) => {
    const up = http.request(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.headers);
      upRes.pipe(res);
    });
    up.on('error', () => res.destroy());
    res.on('close', () => {
      if (!res.writableFinished) {
        state.abandoned++;
        up.destroy();
      }
    });
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, state };
}

/** The answering call of a chat turn: the one offering the lead tool (a rewrite call offers none). */
const answerCalls = (fake: FakeOpenAI) => fake.requests.chat.filter((r) => (r.body.tools?.length ?? 0) > 0);

describe('chat with the openai providers (against an OpenAI-compatible fake)', () => {
  let fake: FakeOpenAI;
  let proxy: Awaited<ReturnType<typeof startWatchingProxy>>;
  let kb: Kbchat;
  let seeder: Seeder;
  let clientId: string;
  const origin = 'https://openai-plumbing.example';

  const chat = (body: Record<string, unknown>) => api<ChatBody>(kb.baseUrl, 'POST', '/api/chat', { clientId, ...body });

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    proxy = await startWatchingProxy(fake.url);
    kb = await startKbchat({
      services: ['gateway'],
      env: {
        OPENAI_API_KEY: fake.env.OPENAI_API_KEY,
        OPENAI_BASE_URL: `${proxy.url}/v1`,
        CHAT_PROVIDER: 'openai',
        EMBEDDING_PROVIDER: 'openai',
        OPENAI_MAX_RETRIES: '0',
      },
    });
    seeder = createSeeder(inject('databaseUrl'), kb.config);
    clientId = (await createClient(kb.baseUrl, { name: 'Northwind Heating & Plumbing' })).clientId;
    await seeder.seed(clientId, plumbingSite(origin));
  });
  beforeEach(() => fake.reset());
  afterAll(async () => {
    await seeder?.close();
    await kb?.stop();
    await proxy?.state.close();
    await fake?.close();
  });

  it('sends a system prompt naming the client with the retrieved passages, and cites what the model used', async () => {
    const res = await chat({ message: 'How do I make a warranty claim?' });
    expect(res.status).toBe(200);
    const calls = answerCalls(fake);
    expect(calls).toHaveLength(1);
    const system = calls[0]?.body.messages.find((m) => m.role === 'system')?.content ?? '';
    expect(system).toContain('Northwind Heating & Plumbing');
    expect(calls[0]?.body.messages.map((m) => m.content ?? '').join('\n')).toContain('send a photo of the fault and your invoice number');
    expect(res.body.leadCaptureIntent).toBe(false);
    expect(res.body.sources.length).toBeGreaterThan(0);
    expect(res.body.sources.every((s) => s.url.startsWith(origin))).toBe(true);
    expect(res.body.sources[0]?.url).toBe(`${origin}/warranty`);
  });

  it('sends the example a passage’s closing colon introduces, from the page’s next chunk, right after it', async () => {
    const docs = (await createClient(kb.baseUrl, { name: 'Sphinx Docs' })).clientId;
    const mapping = "intersphinx_mapping = {'stdlib': ('https://docs.example/3', None)}";
    await seeder.seed(docs, [
      {
        url: 'https://sphinx-docs.example/intersphinx',
        title: 'intersphinx',
        chunks: [
          'The intersphinx extension links to the documentation of other projects.\n\nTo add links to modules and objects in the Python standard library documentation, use:',
          `${mapping}\n\nThe inventory file is fetched when the project is built.`,
        ],
      },
    ]);
    const res = await api<ChatBody>(kb.baseUrl, 'POST', '/api/chat', {
      clientId: docs,
      message: 'How do I link to the Python standard library documentation?',
    });
    expect(res.status).toBe(200);
    const sent =
      answerCalls(fake)[0]
        ?.body.messages.map((m) => m.content ?? '')
        .join('\n') ?? '';
    // The example follows the sentence that announces it; the next chunk's own prose is not added to it.
    expect(sent).toContain(`use:\n${mapping}\n</passage>`);
  });
  it('turns the model’s contact tool call into leadCaptureIntent: true', async () => {
    const res = await chat({ message: 'Could you call me about a quote for a new boiler?' });
    expect(res.status).toBe(200);
    expect(res.body.leadCaptureIntent).toBe(true);
    expect(answerCalls(fake)[0]?.body.tools?.some((t) => /contact|lead/i.test(t.function.name))).toBe(true);
  });

  it('sends the session’s earlier turns to the model as history', async () => {
    const sessionId = randomUUID();
    const first = await chat({ message: 'Tell me about the premium plan', sessionId });
    expect(first.status).toBe(200);
    fake.reset();
    const second = await chat({ message: 'Can I cancel it?', sessionId });
    expect(second.status).toBe(200);
    const messages = answerCalls(fake)[0]?.body.messages ?? [];
    const contents = messages.map((m) => `${m.role}: ${m.content ?? ''}`);
    expect(contents).toContain('user: Tell me about the premium plan');
    expect(contents).toContain(`assistant: ${first.body.answer}`);
    expect(messages.at(-1)?.role).toBe('user');
    expect(messages.at(-1)?.content).toContain('Can I cancel it?');
  });

  it('caches query embeddings in Redis: a repeated question makes no embeddings request, and usage is recorded', async () => {
    const message = `Do you replace radiators? (${randomUUID().slice(0, 8)})`;
    expect((await chat({ message })).status).toBe(200);
    expect(fake.requests.embeddings).toHaveLength(1);
    expect(fake.requests.embeddings[0]?.inputs).toEqual([message]);
    expect((await chat({ message })).status).toBe(200);
    expect(fake.requests.embeddings).toHaveLength(1);
    expect(answerCalls(fake)).toHaveLength(2);

    const { rows } = await seeder.pool.query<{ kind: string; requests: number; prompt: number }>(
      `SELECT kind, sum(requests)::int AS requests, sum(prompt_tokens)::int AS prompt FROM usage WHERE client_id = $1 GROUP BY kind`,
      [clientId],
    );
    const byKind = Object.fromEntries(rows.map((r) => [r.kind, r]));
    expect(byKind['query-embedding']?.requests).toBeGreaterThanOrEqual(1);
    expect(byKind.chat?.requests).toBeGreaterThanOrEqual(2);
    expect(byKind.chat?.prompt).toBeGreaterThan(0);
  });

  it('streams tokens as the model produces them, before the done event', async () => {
    fake.chatHandler = () => ({
      content: 'Warranty claims need a photo of the fault and your invoice number [1]. We answer within two working days.',
    });
    fake.streamChunkDelayMs = 40;
    const res = await postStream(kb.baseUrl, { clientId, message: 'How do I claim on the warranty?' });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    // The first bytes on the wire carry a token and not yet the result: nothing was buffered.
    expect(first).toContain('event: token');
    expect(first).not.toContain('event: done');
    let rest = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    const all = first + rest;
    expect(all.match(/event: done/g)).toHaveLength(1);
    expect(all.trimEnd().split('\n\n').at(-1)).toMatch(/^event: done/);
    expect(all.match(/event: token/g)?.length).toBeGreaterThan(3);
  });

  /**
   * A model that cites out of order: the last passage of the prompt first, then the first passage
   * (with an invented [99] beside it), then the first again, then only the invented one. Returns the
   * URLs of those two passages so the test knows which source must be [1] and which [2].
   */
  function citeOutOfOrder() {
    const cited: { first?: string; last?: string } = {};
    fake.chatHandler = (body) => {
      if (!body.tools?.length) return defaultChatReply(body);
      const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
      const passages = [...system.matchAll(/^\[(\d+)\] .* \((https?:\/\/[^\s)]+)\)$/gm)].map((m) => ({
        n: Number(m[1]),
        url: m[2] as string,
      }));
      const first = passages[0];
      const last = passages.findLast((p) => p.url !== first?.url);
      if (!first || !last) return { content: 'only one page was retrieved' };
      cited.first = first.url;
      cited.last = last.url;
      return {
        content: `Claims need a photo of the fault [${last.n}]. Delivery is free above 50 dollars [${first.n}, 99]. Again [${first.n}]. Made up [99].`,
      };
    };
    return cited;
  }
  const RENUMBERED = 'Claims need a photo of the fault [1]. Delivery is free above 50 dollars [2]. Again [2]. Made up .';
  const QUESTION = 'How do I make a warranty claim, and what does delivery of parts cost?';

  it('renumbers the model’s citations to the sources’ order: [1] is sources[0], invented numbers dropped', async () => {
    const cited = citeOutOfOrder();
    const res = await chat({ message: QUESTION });
    expect(res.status).toBe(200);
    expect(res.body.answer).toBe(RENUMBERED);
    expect(res.body.sources.map((s) => s.url)).toEqual([cited.last, cited.first]);
  });

  it('streams the same renumbered text, and the done event’s sources match its markers', async () => {
    const cited = citeOutOfOrder();
    const res = await postStream(kb.baseUrl, { clientId, message: QUESTION });
    expect(res.status).toBe(200);
    const events = [];
    for await (const e of readSse(res)) events.push(e);
    const streamed = events
      .filter((e) => e.event === 'token')
      .map((e) => (e.data as { text: string }).text)
      .join('');
    const done = events.find((e) => e.event === 'done')?.data as ChatBody;
    expect(streamed).toBe(RENUMBERED);
    expect(done.answer).toBe(RENUMBERED);
    expect(done.sources.map((s) => s.url)).toEqual([cited.last, cited.first]);
  });

  it('takes a yes to the model’s contact offer as a lead without asking the model again; a no is none', async () => {
    fake.chatHandler = (body) =>
      body.tools?.length
        ? { content: "I couldn't find that on the site. Would you like someone from Northwind to contact you?" }
        : defaultChatReply(body);
    const sessionId = randomUUID();
    const decline = await chat({ message: 'Do you sell garden furniture?', sessionId });
    expect(decline.body.leadCaptureIntent).toBe(false);
    expect(decline.body.sources).toEqual([]);
    fake.reset();
    const yes = await chat({ message: 'ja gerne', sessionId });
    expect(yes.body).toMatchObject({ leadCaptureIntent: true, sources: [] });
    expect(yes.body.answer).toMatch(/^Gern – hinterlassen Sie Ihren Namen/);
    expect(fake.requests.chat).toHaveLength(0);

    const other = randomUUID();
    fake.chatHandler = (body) =>
      body.tools?.length
        ? { content: "I couldn't find that on the site. Would you like someone from Northwind to contact you?" }
        : defaultChatReply(body);
    await chat({ message: 'Do you sell garden furniture?', sessionId: other });
    expect((await chat({ message: 'no thanks', sessionId: other })).body.leadCaptureIntent).toBe(false);
  });

  it('sends a yes to the model when the model asked something; after a plain answer, asks what the visitor would like to know', async () => {
    const asked = randomUUID();
    fake.chatHandler = (body) =>
      body.tools?.length ? { content: 'The premium plan is 49 dollars. Shall I list what it includes?' } : defaultChatReply(body);
    await chat({ message: 'Tell me about the premium plan', sessionId: asked });
    fake.reset();
    fake.chatHandler = (body) => (body.tools?.length ? { content: 'It includes two visits a year.' } : defaultChatReply(body));
    expect((await chat({ message: 'yes please', sessionId: asked })).body.answer).toBe('It includes two visits a year.');
    expect(fake.requests.chat.length).toBeGreaterThan(0);

    const told = randomUUID();
    fake.chatHandler = (body) => (body.tools?.length ? { content: 'The premium plan is 49 dollars a month.' } : defaultChatReply(body));
    await chat({ message: 'Tell me about the premium plan', sessionId: told });
    fake.reset();
    const yes = await chat({ message: 'yes please', sessionId: told });
    expect(yes.body).toMatchObject({
      answer: 'Sure — what would you like to know about Northwind Heating & Plumbing?',
      sources: [],
      leadCaptureIntent: false,
    });
    expect(fake.requests.chat).toHaveLength(0);
  });

  it('answers "what do you do?" and "what are your prices?" from the client’s own chunks, unsearched, and "are you a bot?" without the model', async () => {
    // The seeded site has no "/": its shortest address, the all-in-one page, is its home page.
    const res = await chat({ message: 'What do you do?' });
    expect(fake.requests.embeddings).toHaveLength(0);
    const calls = answerCalls(fake);
    expect(calls).toHaveLength(1);
    const prompt = calls[0]?.body.messages.map((m) => m.content ?? '').join('\n') ?? '';
    expect(prompt).toContain('Frequently asked questions about opening hours, parking at the showroom');
    expect(prompt).not.toContain('The Premium maintenance plan');
    expect(res.body.sources.map((s) => s.url)).toEqual([`${origin}/faq-all`]);
    fake.reset();
    const bot = await chat({ message: 'are you a bot?' });
    expect(bot.body).toMatchObject({ sources: [], leadCaptureIntent: false });
    expect(bot.body.answer).toMatch(/^I'm Northwind Heating & Plumbing's virtual assistant, not a person/);
    expect(fake.requests.chat).toHaveLength(0);
    // Prices asked of nothing in particular: the chunks stating amounts, unsearched — delivery's "5 dollars …
    // 50 dollars"; not the plan's one "49 dollars", a price in passing.
    const prices = await chat({ message: 'What are your prices?' });
    expect(fake.requests.embeddings).toHaveLength(0);
    const pricePrompt =
      answerCalls(fake)[0]
        ?.body.messages.map((m) => m.content ?? '')
        .join('\n') ?? '';
    expect(pricePrompt).toContain('Delivery of spare parts costs 5 dollars for orders under 50 dollars');
    expect(pricePrompt).not.toContain('The Premium plan costs 49 dollars per month');
    expect(prices.body.sources.map((s) => s.url)).toEqual([`${origin}/shipping`]);
    // A site with a price list: its chunk stating the most amounts is the model's passage.
    fake.reset();
    const pool = (await createClient(kb.baseUrl, { name: 'Brookside Pool' })).clientId;
    await seeder.seed(pool, [
      {
        url: 'https://pool.example/',
        title: 'Brookside Pool',
        chunks: ['A 25-metre pool run by the town council. Lockers take a £1 coin.'],
      },
      {
        url: 'https://pool.example/prices',
        title: 'Prices',
        chunks: ['Ticket | Price\n\nAdult swim | £5.20\n\nChild swim | £2.80\n\nSauna | £4.00'],
      },
    ]);
    const list = await api<ChatBody>(kb.baseUrl, 'POST', '/api/chat', { clientId: pool, message: 'How much does it cost?' });
    expect(
      answerCalls(fake)[0]
        ?.body.messages.map((m) => m.content ?? '')
        .join('\n'),
    ).toContain('Adult swim | £5.20');
    expect(list.body.sources.map((s) => s.url)).toEqual(['https://pool.example/prices']);
  });

  it('sends a message that only asks for contact to the model with no passages, and flags the lead', async () => {
    fake.chatHandler = (body) =>
      body.tools?.length ? { content: 'Sure — please leave your details in the form.' } : defaultChatReply(body);
    const res = await chat({ message: 'call me about a quote' });
    expect(res.body).toMatchObject({ leadCaptureIntent: true, sources: [], answer: 'Sure — please leave your details in the form.' });
    const system = answerCalls(fake)[0]?.body.messages.find((m) => m.role === 'system')?.content ?? '';
    expect(system).toContain('(no passages were found for this question)');
    expect(fake.requests.embeddings).toHaveLength(0);
  });

  it('ends the stream with an error event (no internals, nothing stored) when the model fails after the stream started', async () => {
    fake.faults.chat.push({ status: 500 });
    const sessionId = randomUUID();
    const res = await postStream(kb.baseUrl, { clientId, message: 'Do you fit water softeners?', sessionId });
    expect(res.status).toBe(200);
    const events = [];
    for await (const e of readSse(res)) events.push(e);
    expect(events.map((e) => e.event)).toEqual(['error']);
    expect(events[0]?.data).toEqual({
      error: 'Internal server error',
      details: ['the answer could not be generated; please try again later'],
    });
    const { rows } = await seeder.pool.query('SELECT count(*)::int AS n FROM messages WHERE client_id = $1 AND session_id = $2', [
      clientId,
      sessionId,
    ]);
    expect(rows[0].n).toBe(0);
  });

  it('aborts the model call when the visitor disconnects mid-stream, storing nothing', async () => {
    const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    let served = 0;
    fake.chatHandler = (body) => {
      served++;
      return body.stream ? { content: words } : defaultChatReply(body);
    };
    fake.streamChunkDelayMs = 50;
    const sessionId = randomUUID();
    const controller = new AbortController();
    const res = await postStream(kb.baseUrl, { clientId, message: 'Tell me everything about boilers', sessionId }, {}, controller.signal);
    for await (const e of readSse(res)) {
      if (e.event === 'token') break;
    }
    const abandonedBefore = proxy.state.abandoned;
    controller.abort();
    expect(served).toBe(1);
    // The gateway hangs up on the model's response instead of reading the remaining words.
    await waitFor(() => proxy.state.abandoned > abandonedBefore, { what: 'the provider call to be aborted' });
    const { rows } = await seeder.pool.query('SELECT count(*)::int AS n FROM messages WHERE client_id = $1 AND session_id = $2', [
      clientId,
      sessionId,
    ]);
    expect(rows[0].n).toBe(0);
    expect((await api(kb.baseUrl, 'GET', '/healthz')).status).toBe(200);
  });
});
