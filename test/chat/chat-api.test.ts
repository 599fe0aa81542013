import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';
import { createSeeder, type Seeder } from '../support/seed-documents.ts';
import { plumbingSite } from './corpus.ts';

interface ChatBody {
  answer: string;
  sources: { title: string; url: string }[];
  sessionId: string;
  leadCaptureIntent: boolean;
}

describe('POST /api/chat (extractive + local embedder)', () => {
  let kb: Kbchat;
  let seeder: Seeder;
  let clientA: string;
  let clientB: string;
  const originA = 'https://acme-plumbing.example';
  const originB = 'https://other-plumbing.example';

  const chat = (body: unknown, headers: Record<string, string> = {}) => api<ChatBody>(kb.baseUrl, 'POST', '/api/chat', body, headers);
  const messageCount = async (clientId: string, sessionId: string) => {
    const { rows } = await seeder.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM messages WHERE client_id = $1 AND session_id = $2',
      [clientId, sessionId],
    );
    return rows[0]?.n ?? 0;
  };

  beforeAll(async () => {
    kb = await startKbchat({ services: ['gateway'] });
    seeder = createSeeder(inject('databaseUrl'), kb.config);
    clientA = (await createClient(kb.baseUrl, { name: 'Acme Plumbing' })).clientId;
    clientB = (await createClient(kb.baseUrl, { name: 'Other Plumbing' })).clientId;
    await seeder.seed(clientA, plumbingSite(originA));
    await seeder.seed(clientB, plumbingSite(originB));
  });
  afterAll(async () => {
    await seeder?.close();
    await kb?.stop();
  });

  it('answers with the spec fields, cited sources of this client only, and a new sessionId', async () => {
    const res = await chat({ clientId: clientA, message: 'How do I make a warranty claim?' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(['answer', 'leadCaptureIntent', 'messageId', 'sessionId', 'sources']);
    expect(res.body.answer.length).toBeGreaterThan(0);
    expect(res.body.leadCaptureIntent).toBe(false);
    expect(res.body.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.sources.length).toBeGreaterThan(0);
    for (const s of res.body.sources) {
      expect(Object.keys(s).sort()).toEqual(['title', 'url']);
      expect(s.url.startsWith(originA)).toBe(true);
    }
    // The warranty page owns the text; the all-in-one page repeating it is not preferred.
    expect(res.body.sources[0]).toEqual({ title: 'Warranty', url: `${originA}/warranty` });
    expect(new Set(res.body.sources.map((s) => s.url)).size).toBe(res.body.sources.length);
    expect(await messageCount(clientA, res.body.sessionId)).toBe(2);
  });

  it('keeps a caller-supplied sessionId and appends to it', async () => {
    const sessionId = `visitor:${randomUUID()}`;
    const first = await chat({ clientId: clientA, message: 'Do you recycle old boilers?', sessionId });
    expect(first.status).toBe(200);
    expect(first.body.sessionId).toBe(sessionId);
    const second = await chat({ clientId: clientA, message: 'And gift cards?', sessionId });
    expect(second.body.sessionId).toBe(sessionId);
    expect(await messageCount(clientA, sessionId)).toBe(4);
    const { rows } = await seeder.pool.query<{ role: string; content: string }>(
      'SELECT role, content FROM messages WHERE client_id = $1 AND session_id = $2 ORDER BY id',
      [clientA, sessionId],
    );
    expect(rows.map((r) => r.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(rows[0]?.content).toBe('Do you recycle old boilers?');
    expect(rows[2]?.content).toBe('And gift cards?');
  });

  it('rewrites a follow-up from the session before retrieval, and only from this client’s session', async () => {
    const followUp = 'How much does it cost?';
    // Alone, the question is about cost in general: the delivery page answers it.
    const alone = await chat({ clientId: clientA, message: followUp });
    expect(alone.status).toBe(200);
    expect(alone.body.sources[0]?.url).toBe(`${originA}/shipping`);

    const sessionId = randomUUID();
    const intro = await chat({ clientId: clientA, message: 'Tell me about the premium plan', sessionId });
    expect(intro.body.sources[0]?.url).toBe(`${originA}/plans/premium`);
    const followed = await chat({ clientId: clientA, message: followUp, sessionId });
    expect(followed.status).toBe(200);
    expect(followed.body.sources[0]?.url).toBe(`${originA}/plans/premium`);

    // The same sessionId under another client is another (empty) session: no rewrite from A's turns.
    const other = await chat({ clientId: clientB, message: followUp, sessionId });
    expect(other.status).toBe(200);
    expect(other.body.sessionId).toBe(sessionId);
    expect(other.body.sources[0]?.url).toBe(`${originB}/shipping`);
    expect(other.body.sources.every((s) => s.url.startsWith(originB))).toBe(true);
    expect(await messageCount(clientA, sessionId)).toBe(4);
    expect(await messageCount(clientB, sessionId)).toBe(2);
  });

  it('boosts chunks of context.pageUrl', async () => {
    const message = 'Do you fix burst pipes in an emergency?';
    const boston = await chat({ clientId: clientA, message, context: { pageUrl: `${originA}/locations/boston#hours` } });
    const denver = await chat({ clientId: clientA, message, context: { pageUrl: `${originA}/locations/denver`, locale: 'en-US' } });
    expect(boston.status).toBe(200);
    expect(denver.status).toBe(200);
    expect(boston.body.sources[0]?.url).toBe(`${originA}/locations/boston`);
    expect(denver.body.sources[0]?.url).toBe(`${originA}/locations/denver`);
  });

  it('answers an unrelated question honestly with no sources', async () => {
    const res = await chat({ clientId: clientA, message: 'What is the capital of France?' });
    expect(res.status).toBe(200);
    expect(res.body.sources).toEqual([]);
    expect(res.body.answer).toMatch(/don[’']?t know|couldn[’']?t find|not (able|sure)|no information/i);
  });

  it('declines a question for a price when the best page states none, and answers it where it does', async () => {
    const unpriced = await chat({ clientId: clientA, message: 'How much does a warranty claim cost?' });
    expect(unpriced.status).toBe(200);
    expect(unpriced.body.sources).toEqual([]);
    const priced = await chat({ clientId: clientA, message: 'How much does the Premium maintenance plan cost per month?' });
    expect(priced.body.sources[0]?.url).toBe(`${originA}/plans/premium`);
    expect(priced.body.answer).toContain('49 dollars');
    // The same page, asked about without a price, is answered.
    const warranty = await chat({ clientId: clientA, message: 'How do I make a warranty claim?' });
    expect(warranty.body.sources[0]?.url).toBe(`${originA}/warranty`);
  });

  it('flags lead intent from the message (offline classifier)', async () => {
    const res = await chat({ clientId: clientA, message: 'Can someone call me back about a new boiler? My number is 555 0100.' });
    expect(res.status).toBe(200);
    expect(res.body.leadCaptureIntent).toBe(true);
  });

  it('takes a yes to the contact offer of an "I don’t know" as a lead, in the visitor’s language, and a no as none', async () => {
    const cases = [
      { ask: 'What is the capital of France?', yes: 'yes please', reply: /^Happy to help — leave your name and email in the form/ },
      { ask: 'Wie heißt die Hauptstadt von Frankreich?', yes: 'ja gerne', reply: /^Gern – hinterlassen Sie Ihren Namen/ },
      { ask: 'Quelle est la capitale de la France ?', yes: 'oui', reply: /^Avec plaisir : laissez votre nom/ },
      { ask: '¿Cuál es la capital de Francia?', yes: 'sí, por favor', reply: /^Con gusto: deje su nombre/ },
      { ask: 'Qual é a capital da França?', yes: 'sim', reply: /^Com prazer: deixe seu nome/ },
    ];
    for (const c of cases) {
      const sessionId = randomUUID();
      const decline = await chat({ clientId: clientA, message: c.ask, sessionId });
      expect(decline.body.sources, c.ask).toEqual([]);
      expect(decline.body.leadCaptureIntent).toBe(false);
      const yes = await chat({ clientId: clientA, message: c.yes, sessionId });
      expect(yes.status).toBe(200);
      expect(yes.body.leadCaptureIntent, c.yes).toBe(true);
      expect(yes.body.sources).toEqual([]);
      expect(yes.body.answer).toMatch(c.reply);
      expect(yes.body.answer).toContain('Acme Plumbing');
    }

    for (const [ask, no] of [
      ['What is the capital of France?', 'no thanks'],
      ['Wie heißt die Hauptstadt von Frankreich?', 'nein danke'],
    ] as const) {
      const sessionId = randomUUID();
      await chat({ clientId: clientA, message: ask, sessionId });
      const res = await chat({ clientId: clientA, message: no, sessionId });
      expect(res.body.leadCaptureIntent, no).toBe(false);
    }
    // A yes with no offer before it, in a new session or after an answer, is no lead.
    expect((await chat({ clientId: clientA, message: 'yes' })).body.leadCaptureIntent).toBe(false);
    const sessionId = randomUUID();
    const answered = await chat({ clientId: clientA, message: 'How do I make a warranty claim?', sessionId });
    expect(answered.body.sources.length).toBeGreaterThan(0);
    expect((await chat({ clientId: clientA, message: 'yes', sessionId })).body.leadCaptureIntent).toBe(false);
  });

  it('answers a message that only asks for contact with the contact offer alone, in English, quoting no page that shares a word', async () => {
    const { clientId } = await createClient(kb.baseUrl, { name: 'Pg Docs' });
    await seeder.seed(clientId, [
      {
        url: 'https://pg-docs.example/functions-string',
        title: 'String functions',
        chunks: [
          'quote_ident(text) returns the given string suitably quoted to be used as an identifier in an SQL statement string. ' +
            'quote_literal(text) returns the given string suitably quoted to be used as a string literal. Embedded quotes are doubled.',
        ],
      },
    ]);
    // Retrieval alone finds the page: the word is there.
    const question = await chat({ clientId, message: 'What does quote_literal do?' });
    expect(question.body.sources.map((s) => s.url)).toEqual(['https://pg-docs.example/functions-string']);

    const res = await chat({ clientId, message: 'call me about a quote' });
    expect(res.status).toBe(200);
    expect(res.body.leadCaptureIntent).toBe(true);
    expect(res.body.sources).toEqual([]);
    expect(res.body.answer).toBe(
      'Happy to help — leave your name and email in the form and someone from Pg Docs will get in touch with you.',
    );
  });

  it('quotes the example a sentence’s colon introduces when the chunker put it in the page’s next chunk', async () => {
    const { clientId } = await createClient(kb.baseUrl, { name: 'Sphinx Docs' });
    await seeder.seed(clientId, [
      {
        url: 'https://sphinx-docs.example/intersphinx',
        title: 'intersphinx',
        chunks: [
          'The intersphinx extension links to the documentation of other projects.\n\nTo add links to modules and objects in the Python standard library documentation, use:',
          "intersphinx_mapping = {'python': ('https://docs.python.org/3', None)}\n\nThis downloads the objects.inv file of the Python documentation when the project is built.",
        ],
      },
    ]);
    const res = await chat({ clientId, message: 'How do I link to the Python standard library documentation?' });
    expect(res.status).toBe(200);
    expect(res.body.sources.map((s) => s.url)).toEqual(['https://sphinx-docs.example/intersphinx']);
    expect(res.body.answer).toContain("use:\n```\nintersphinx_mapping = {'python': ('https://docs.python.org/3', None)}\n```");
  });
  it('cites [k] for sources[k-1]: markers start at 1, appear in order and name every source, no more', async () => {
    for (const message of [
      'How do I make a warranty claim?',
      'How much does the premium plan cost and what does delivery cost?',
      'Do you fix burst pipes in Boston or Denver?',
      'Do you recycle old boilers and gift cards?',
    ]) {
      const res = await chat({ clientId: clientA, message });
      expect(res.body.sources.length, message).toBeGreaterThan(0);
      const markers = [...res.body.answer.matchAll(/\[(\d+(?:,\s*\d+)*)\]/g)].flatMap((m) => (m[1] as string).split(',').map(Number));
      const firstSeen = [...new Set(markers)];
      expect(firstSeen, message).toEqual(res.body.sources.map((_, i) => i + 1));
    }
  });

  const long = 'x'.repeat(4001);
  it.each([
    ['an empty body object', {}, ['clientId is required', 'message is required']],
    ['a missing message', { clientId: 'CLIENT' }, ['message is required']],
    ['a blank message', { clientId: 'CLIENT', message: '   ' }, ['message is required']],
    ['a number as message', { clientId: 'CLIENT', message: 42 }, ['message must be a string']],
    ['a number as clientId', { clientId: 42, message: 'hi' }, ['clientId must be a string']],
    ['a message over 4,000 characters', { clientId: 'CLIENT', message: long }, ['message must be at most 4000 characters']],
    ['a string as context', { clientId: 'CLIENT', message: 'hi', context: 'page' }, ['context must be an object']],
    ['a number as pageUrl', { clientId: 'CLIENT', message: 'hi', context: { pageUrl: 5 } }, ['context.pageUrl must be a string']],
    [
      'a sessionId with spaces',
      { clientId: 'CLIENT', message: 'hi', sessionId: 'a b' },
      ['sessionId must be 1-128 characters of A-Z a-z 0-9 . _ : -'],
    ],
    [
      'a sessionId of 129 characters',
      { clientId: 'CLIENT', message: 'hi', sessionId: 's'.repeat(129) },
      ['sessionId must be 1-128 characters of A-Z a-z 0-9 . _ : -'],
    ],
    ['a number as sessionId', { clientId: 'CLIENT', message: 'hi', sessionId: 7 }, ['sessionId must be a string']],
    ['an array body', [], ['body must be a JSON object']],
  ])('400 for %s, naming the field, storing nothing', async (_name, body, details) => {
    const sessionBefore = await seeder.pool.query('SELECT count(*)::int AS n FROM sessions WHERE client_id = $1', [clientA]);
    const withClient = Array.isArray(body) ? body : JSON.parse(JSON.stringify(body).replace('"CLIENT"', JSON.stringify(clientA)));
    const res = await chat(withClient);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Invalid request', details });
    const sessionAfter = await seeder.pool.query('SELECT count(*)::int AS n FROM sessions WHERE client_id = $1', [clientA]);
    expect(sessionAfter.rows[0].n).toBe(sessionBefore.rows[0].n);
  });

  it('400 for a context over 8 KB serialized', async () => {
    const res = await chat({ clientId: clientA, message: 'hi', context: { pageUrl: `${originA}/`, notes: 'n'.repeat(8200) } });
    expect(res.status).toBe(400);
    expect((res.body as unknown as { details: string[] }).details).toEqual([
      expect.stringMatching(/^context must be at most 8192 bytes when serialized/),
    ]);
  });

  it('400 JSON for malformed JSON and 415 for a non-JSON body', async () => {
    const bad = await api(kb.baseUrl, 'POST', '/api/chat', `{"clientId":"${clientA}","message":"hi"`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'Invalid JSON', details: ['the request body is not valid JSON'] });
    const text = await fetch(new URL('/api/chat', kb.baseUrl), { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' });
    expect(text.status).toBe(415);
    expect(await text.json()).toMatchObject({ error: 'Unsupported media type' });
  });

  it.each([
    ['malformed', 'not-a-uuid'],
    ['unknown', randomUUID()],
    ['an injection attempt', "' OR 1=1 --"],
  ])('404 for a %s clientId', async (_name, clientId) => {
    const res = await chat({ clientId, message: 'hello' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Client not found', details: ['no client has this clientId'] });
  });
});

describe('POST /api/chat with the chat provider unreachable', () => {
  let kb: Kbchat;
  beforeAll(async () => {
    // An OpenAI-compatible base URL where nothing listens, without retries: the provider fails at once.
    kb = await startKbchat({
      services: ['gateway'],
      env: {
        OPENAI_API_KEY: 'sk-test-dead-port',
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
        CHAT_PROVIDER: 'openai',
        EMBEDDING_PROVIDER: 'local',
        OPENAI_MAX_RETRIES: '0',
        OPENAI_TIMEOUT_MS: '2000',
      },
    });
  });
  afterAll(() => kb?.stop());

  it('answers 500 JSON with no internals', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    const res = await api(kb.baseUrl, 'POST', '/api/chat', { clientId, message: 'Do you fix boilers?' });
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body).toEqual({ error: 'Internal server error', details: ['the answer could not be generated; please try again later'] });
    expect(JSON.stringify(res.body)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|sk-test|stack/i);
  });
});
