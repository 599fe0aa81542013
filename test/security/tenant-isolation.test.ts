// Issue 5 §6: tenant isolation. Ten clients whose sites say the same things in the same words,
// each with facts of its own; 1,000 chats with random clients and sessionIds drawn from one shared
// pool, so the same sessionId is used by several clients. The chat model is an OpenAI-compatible
// fake that repeats every secret token it was shown (passages, history, the client's name) and
// cites every passage: whatever kbchat hands the model shows up in the answer. No answer, no
// source and no stored message may carry another client's token.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.ts';
import { createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';
import { createSeeder } from '../support/seed-documents.ts';

const CLIENTS = 10;
const CHATS = 1000;
const SESSION_POOL = 25;
const TOKEN = /\b(?:FACT|REF|NAME)-(\d+)-[a-z0-9]{6}\b/g;

const tag = (kind: string, i: number) => `${kind}-${i}-${randomBytes(3).toString('hex')}`;

interface Tenant {
  index: number;
  clientId: string;
  origin: string;
  facts: string[];
  nameTag: string;
}

/** Every client's site: the same pages, titles and wording; the facts and their tokens differ. */
function pagesOf(t: { index: number; origin: string; facts: string[] }) {
  const [hours, price, office] = t.facts;
  return [
    {
      url: `${t.origin}/hours`,
      title: 'Opening hours',
      chunks: [`Our office is open Monday to Friday from 8 am to ${4 + t.index} pm. Reference for opening hours: ${hours}.`],
    },
    {
      url: `${t.origin}/pricing`,
      title: 'Prices',
      chunks: [`An engineer visit costs ${90 + t.index} pounds, parts extra. Price list reference: ${price}.`],
    },
    {
      url: `${t.origin}/contact`,
      title: 'Contact us',
      chunks: [`Our office is at ${t.index + 1} Harbour Street; call us on 555 01${t.index}0. Office reference: ${office}.`],
    },
    {
      // Word for word the same on every client's site.
      url: `${t.origin}/about`,
      title: 'About us',
      chunks: ['We are a family business that has repaired boilers and radiators in the area since 1990.'],
    },
  ];
}

describe('tenant isolation under 1,000 chats', () => {
  let fake: FakeOpenAI;
  let kb: Kbchat;
  const tenants: Tenant[] = [];

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    fake.chatHandler = (body) => {
      const system = body.messages[0]?.content ?? '';
      const seen = [
        ...new Set(
          body.messages
            .map((m) => m.content ?? '')
            .join('\n')
            .match(TOKEN) ?? [],
        ),
      ];
      // The follow-up rewrite gets the latest message back (with what it saw appended): a query.
      if (system.startsWith("You turn a website visitor's latest message")) {
        const latest = /Latest message: (.*)\n/.exec(body.messages[1]?.content ?? '')?.[1] ?? '';
        return { content: `${latest} ${seen.join(' ')}`.trim() };
      }
      const passages = [...system.matchAll(/<passage id="(\d+)">/g)].map((m) => `[${m[1]}]`);
      return { content: `Seen: ${seen.join(' ') || 'nothing'} ${passages.join('')}` };
    };
    kb = await startKbchat({
      services: ['gateway'],
      env: {
        ...fake.env,
        CHAT_PROVIDER: 'openai',
        EMBEDDING_PROVIDER: 'local',
        OPENAI_MAX_RETRIES: '0',
        CHAT_RATE_LIMIT_PER_MINUTE: '1000000',
      },
    });
    const seeder = createSeeder(kb.process.runtime.databaseUrl, kb.config);
    try {
      for (let i = 0; i < CLIENTS; i++) {
        const nameTag = tag('NAME', i);
        const { clientId } = await createClient(kb.baseUrl, { name: `Tenant ${i} Plumbing ${nameTag}` });
        const facts = [tag('FACT', i), tag('FACT', i), tag('FACT', i)];
        const t = { index: i, clientId, origin: `https://tenant-${i}.example`, facts, nameTag };
        await seeder.seed(clientId, pagesOf(t));
        tenants.push(t);
      }
    } finally {
      await seeder.close();
    }
  });
  afterAll(async () => {
    await kb?.stop();
    await fake?.close();
  });

  it('never shows one client another client’s sources, facts or conversation', async () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const questions = [
      'What are your opening hours?',
      'How much does an engineer visit cost?',
      'Where is your office?',
      'And what about the price?',
      'Tell me about your business.',
    ];
    const violations: string[] = [];
    const ownFacts = { answers: 0, withOwnFact: 0, withOwnRef: 0, withOwnName: 0, sources: 0 };
    /** Reference numbers a visitor gave, per client and session: history must bring them back there only. */
    const refs = new Map<string, string>();
    const sessionsByClient = new Map<string, Set<number>>();

    const chat = async () => {
      const t = tenants[rand(CLIENTS)] as Tenant;
      const sessionId = `shared-${rand(SESSION_POOL)}`;
      const key = `${t.index}/${sessionId}`;
      const giveRef = rand(5) === 0;
      const message = giveRef
        ? `My reference number is ${refs.get(key) ?? refs.set(key, tag('REF', t.index)).get(key)}, what are your prices?`
        : (questions[rand(questions.length)] as string);
      const stream = rand(5) === 0;
      const res = await fetch(new URL(stream ? '/api/chat/stream' : '/api/chat', kb.baseUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientId: t.clientId, message, sessionId, context: { pageUrl: `${t.origin}/hours` } }),
      });
      const text = await res.text();
      if (res.status !== 200) {
        violations.push(`${res.status} ${text.slice(0, 200)}`);
        return;
      }
      const body = (stream ? JSON.parse(/event: done\ndata: (.*)\n\n$/.exec(text)?.[1] ?? '{}') : JSON.parse(text)) as {
        answer: string;
        sources: { url: string; title: string }[];
        sessionId: string;
      };
      sessionsByClient.set(sessionId, (sessionsByClient.get(sessionId) ?? new Set()).add(t.index));
      ownFacts.answers++;
      for (const m of body.answer.matchAll(TOKEN)) {
        if (Number(m[1]) !== t.index) violations.push(`client ${t.index} (${sessionId}) was shown ${m[0]}`);
      }
      if (t.facts.some((f) => body.answer.includes(f))) ownFacts.withOwnFact++;
      if (body.answer.includes(t.nameTag)) ownFacts.withOwnName++;
      if (refs.has(key) && body.answer.includes(refs.get(key) as string)) ownFacts.withOwnRef++;
      for (const s of body.sources) {
        ownFacts.sources++;
        if (new URL(s.url).origin !== t.origin) violations.push(`client ${t.index} got the source ${s.url}`);
      }
      if (body.sessionId !== sessionId) violations.push(`client ${t.index} sent ${sessionId}, got ${body.sessionId}`);
    };

    let done = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (done < CHATS) {
          done++;
          await chat();
        }
      }),
    );
    expect(violations.slice(0, 20)).toEqual([]);

    // The stored conversations agree: every message sits under its own client and names only it.
    const { rows } = await kb.process.runtime.pool.query<{
      client_id: string;
      session_id: string;
      content: string;
      sources: { url: string }[];
    }>('SELECT client_id, session_id, content, sources FROM messages WHERE client_id = ANY($1::uuid[])', [tenants.map((t) => t.clientId)]);
    const byId = new Map(tenants.map((t) => [t.clientId, t]));
    const stored: string[] = [];
    for (const r of rows) {
      const t = byId.get(r.client_id) as Tenant;
      for (const m of r.content.matchAll(TOKEN)) if (Number(m[1]) !== t.index) stored.push(`${t.index}/${r.session_id}: ${m[0]}`);
      for (const s of r.sources ?? []) if (new URL(s.url).origin !== t.origin) stored.push(`${t.index}/${r.session_id}: ${s.url}`);
    }
    expect(stored.slice(0, 20)).toEqual([]);
    expect(rows).toHaveLength(CHATS * 2);

    // Not vacuous: sessionIds really were shared between clients, answers carried their own facts
    // and sources, and a reference number given earlier came back through the history.
    const shared = [...sessionsByClient.values()].filter((s) => s.size > 1).length;
    expect(shared).toBeGreaterThanOrEqual(SESSION_POOL - 2);
    // Not every answer: a follow-up's rewritten query carries the session's tokens, and an answer cites
    // only the pages close to the best one (here often one of the four).
    expect(ownFacts.withOwnFact).toBeGreaterThan(CHATS * 0.5);
    expect(ownFacts.sources).toBeGreaterThan(CHATS * 0.5);
    expect(ownFacts.withOwnRef).toBeGreaterThan(50);
    expect(ownFacts.withOwnName).toBe(CHATS);
    // The model was asked every time: the fake saw each answer's prompt.
    expect(fake.requests.chat.length).toBeGreaterThanOrEqual(CHATS);
    process.stderr.write(
      `[isolation] ${CLIENTS} clients, ${ownFacts.answers} chats over ${SESSION_POOL} shared sessionIds (${shared} used by several clients): ` +
        `0 foreign sources of ${ownFacts.sources}, 0 foreign tokens in answers or ${rows.length} stored messages; ` +
        `${ownFacts.withOwnFact} answers showed their own facts, ${ownFacts.withOwnRef} their own visitor's earlier reference\n`,
    );
  });
});
