import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';

/** The README's offline demo as written: the sample site served by kbchat, crawled, asked. */
describe('demo site', () => {
  let kb: Kbchat;
  beforeAll(async () => {
    kb = await startKbchat({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' } });
  });
  afterAll(() => kb?.stop());

  it('serves examples/sample-site at /demo-site/ and nothing outside it', async () => {
    const index = await fetch(`${kb.baseUrl}/demo-site/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await index.text()).toContain('<h1>Harbour Bikes</h1>');
    const bare = await fetch(`${kb.baseUrl}/demo-site`, { redirect: 'manual' });
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/demo-site/');
    expect((await fetch(`${kb.baseUrl}/demo-site/repairs.html`)).status).toBe(200);
    for (const path of ['/demo-site/README.md', '/demo-site/nope.html', '/demo-site/..%2Fpackage.json', '/demo-site/%2e%2e/package.json']) {
      expect((await fetch(`${kb.baseUrl}${path}`)).status, path).toBe(404);
    }
  });

  it('crawls into answers with sources, and says it does not know what the site does not say', async () => {
    const { clientId } = await createClient(kb.baseUrl, { name: 'Harbour Bikes' });
    const crawl = await api<{ pagesIndexed: number }>(kb.baseUrl, 'POST', '/api/admin/crawl', {
      clientId,
      url: `${kb.baseUrl}/demo-site/`,
    });
    expect(crawl.status).toBe(200);
    expect(crawl.body.pagesIndexed).toBe(4);
    const ask = (message: string) =>
      api<{ answer: string; sources: { url: string }[] }>(kb.baseUrl, 'POST', '/api/chat', { clientId, message });
    // The home page names tune-ups; the repairs page, which says what one costs, leads.
    const tuneUp = await ask('How much is a tune-up?');
    expect(tuneUp.body.answer).toMatch(/^Prices: A basic tune-up costs £45/);
    expect(tuneUp.body.sources[0]?.url).toBe(`${kb.baseUrl}/demo-site/repairs.html`);
    const sunday = await ask('Are you open on Sunday?');
    expect(sunday.body.answer).toMatch(/Sunday we open from 10am to 4pm/);
    const cars = await ask('Do you sell cars?');
    expect(cars.body.sources).toEqual([]);
    // A site of four pages lacks most words: one of two missing ("nearby") is no reason to decline.
    const parking = await ask('Is there parking nearby?');
    expect(parking.body.answer).toContain('Free parking for customers behind the shop');
    // The shop lists helmets without the word "sell": the verb missing is no sign the site is not about it.
    const helmets = await ask('Do you sell helmets?');
    expect(helmets.body.answer).toContain('helmets from the shop floor');
    expect(helmets.body.sources[0]?.url).toBe(`${kb.baseUrl}/demo-site`);
    // The questions visitors ask most, in words the site does not use ("located", "number").
    const contact = `${kb.baseUrl}/demo-site/contact.html`;
    for (const [question, said] of [
      ['Where are you located?', '14 Clarence Esplanade, Southsea, Portsmouth PO5 3PB'],
      ['¿Dónde están?', '14 Clarence Esplanade'],
      ["What's your phone number?", '023 9200 0000'],
      ['What is your email?', 'hello@harbourbikes.example'],
    ]) {
      const res = await ask(question as string);
      expect(res.body.answer, question).toContain(said);
      expect(
        res.body.sources.map((s) => s.url),
        question,
      ).toEqual([contact]);
    }
    // Small talk is answered in kind, without quoting the site, and is no knowledge gap.
    const hi = await ask('hi');
    expect(hi.body).toMatchObject({ answer: 'Hello! What would you like to know about Harbour Bikes?', sources: [] });
    const thanks = await ask('Thanks!');
    expect(thanks.body).toMatchObject({ answer: "You're welcome! Is there anything else I can help with?", sources: [] });
    expect((await ask('¡Hola!')).body.answer).toBe('¡Hola! ¿Qué le gustaría saber sobre Harbour Bikes?');
    // A "yes please" after an answer (no contact offer before it) asks what the visitor would like to know.
    const sessionId = randomUUID();
    await api(kb.baseUrl, 'POST', '/api/chat', { clientId, message: 'Do you sell helmets?', sessionId });
    const yes = await api<{ answer: string; sources: unknown[]; leadCaptureIntent: boolean }>(kb.baseUrl, 'POST', '/api/chat', {
      clientId,
      message: 'yes please',
      sessionId,
    });
    expect(yes.body).toMatchObject({
      answer: 'Sure — what would you like to know about Harbour Bikes?',
      sources: [],
      leadCaptureIntent: false,
    });
    const gaps = await api<{ items: { question: string }[] }>(kb.baseUrl, 'GET', `/api/admin/clients/${clientId}/knowledge-gaps`);
    expect(gaps.body.items.map((g) => g.question)).toEqual(['Do you sell cars?']);
  });

  it('is not served in production', async () => {
    const prod = await startKbchat({ services: ['gateway'], env: { NODE_ENV: 'production' } });
    try {
      expect((await fetch(`${prod.baseUrl}/demo-site/`)).status).toBe(404);
    } finally {
      await prod.stop();
    }
  });
});
