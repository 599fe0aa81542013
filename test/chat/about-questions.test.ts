import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../support/kbchat.ts';
import { smallSite as fixture, siteChat } from '../support/site-chat.ts';

// Questions about the assistant ("are you a bot?") and about the business as a whole ("what do you do?"),
// on the four-page sites of test/fixtures/small-sites, on the offline defaults. Before these were told
// apart, "are you a bot?" was declined with "I don't know" on every site, and "what do you do?" was
// answered with whatever shared a word: a tea shop's contact line, a restaurant's private-dining prices.
describe('questions about the assistant and the business', () => {
  const chat = siteChat();
  const scratch = mkdtempSync(path.join(tmpdir(), 'kbchat-links-home-'));
  beforeAll(() => chat.start());
  afterAll(async () => {
    await chat.stop();
    rmSync(scratch, { recursive: true, force: true });
  });
  const crawled = (dir: string, name: string) => chat.crawl(dir, name);
  // A project's documentation whose home page is only links to its pages, and which states no price.
  // Its page about the project is about.html, or (aboutPage: 'notes.html') a page named for nothing of the kind.
  const lanternSite = (
    aboutPage = 'about.html',
    about = 'Lantern is a static site generator that turns Markdown folders into fast websites.',
  ) => {
    const dir = mkdtempSync(path.join(scratch, 'site-'));
    const page = (title: string, body: string) => `<!doctype html><title>${title}</title><body><h1>${title}</h1>${body}</body>`;
    writeFileSync(
      path.join(dir, 'index.html'),
      page('Contents', `<ul><li><a href="${aboutPage}">The project</a></li><li><a href="install.html">Installing</a></li></ul>`),
    );
    writeFileSync(path.join(dir, aboutPage), page('The project', `<p>${about}</p>`));
    writeFileSync(
      path.join(dir, 'install.html'),
      page(
        'Installing',
        '<p>Install Lantern with npm and run it in the folder of your Markdown files. Pricing of hosting is up to your host.</p>',
      ),
    );
    return dir;
  };

  it('answers "what do you do?" with the home page’s opening, cited, in any wording and by the business’s name', async () => {
    const yoga = await crawled(fixture('yoga'), 'Oakfield Yoga');
    const opening =
      'Oakfield Yoga: A small, friendly studio above the bakery on Magdalen Street, teaching yoga and mat pilates since 2015. Classes are kept to 14 people so teachers can help everyone. [1]';
    for (const question of [
      'what do you do?',
      'What is this place?',
      'tell me about yourselves',
      'What is Oakfield Yoga?',
      'hi, what do you guys do?',
      // Its opening says since when ("…since 2015"): the words alone found nothing.
      'How long have you been in business?',
    ]) {
      const res = await yoga.ask(question);
      expect(res.answer, question).toBe(opening);
      expect(res.sources.map((s) => s.url)).toEqual([`${yoga.site.url}/`]);
    }
    // A question about the site's content is still one: "tell me about your classes" is answered from them.
    expect((await yoga.ask('tell me about your classes')).answer).not.toBe(opening);

    const saas = await crawled(fixture('saas'), 'Tallyboard');
    // Its headline ("Track time. Send invoices. Get paid.") names nothing: the paragraph under it answers.
    expect((await saas.ask('What does Tallyboard do?')).answer).toBe(
      'Tallyboard is time tracking and invoicing for freelancers, agencies and small teams. Log hours from your browser or phone, turn them into an invoice in two clicks and get paid online. [1]',
    );
    const salon = await crawled(fixture('peluqueria'), 'Peluquería Lucía');
    expect((await salon.ask('¿A qué os dedicáis?')).answer).toMatch(
      /^Peluquería Lucía: Somos una peluquería familiar en el barrio de Ruzafa/,
    );
  });

  it('says what the assistant is, in the visitor’s language, without quoting the site or counting a knowledge gap', async () => {
    const vet = await crawled(fixture('vet'), 'Riverside Vets');
    for (const question of ['are you a bot?', 'Who are you?', 'hello, is anyone there?', 'what can you help me with?']) {
      expect(await vet.ask(question), question).toMatchObject({
        answer: expect.stringMatching(
          /^I'm Riverside Vets' virtual assistant, not a person: I answer questions from Riverside Vets' website/,
        ),
        sources: [],
        leadCaptureIntent: false,
      });
    }
    expect((await vet.ask('¿Eres un robot?')).answer).toMatch(/^Soy el asistente virtual de Riverside Vets, no una persona/);
    expect((await vet.ask('Bist du ein Mensch?')).answer).toMatch(/^Ich bin der virtuelle Assistent von Riverside Vets, kein Mensch/);
    // Asking for a person is a lead, as before.
    expect(await vet.ask('can I talk to a real person?')).toMatchObject({ sources: [], leadCaptureIntent: true });
    // What the bot declined is a knowledge gap; what it said of itself is not.
    expect((await vet.ask('Do you sell skateboards and surfboards?')).sources).toEqual([]);
    const gaps = await api<{ items: { question: string }[] }>(chat.kb.baseUrl, 'GET', `/api/admin/clients/${vet.clientId}/knowledge-gaps`);
    expect(gaps.body.items.map((g) => g.question)).toEqual(['Do you sell skateboards and surfboards?']);
  });

  it('answers "what are your prices?" from the price list: the table or lines stating the most amounts, cited', async () => {
    const museum = await crawled(fixture('museum'), 'Saltmarsh Museum');
    // Its school workshops' page states as many amounts; the ticket table names its column "Price".
    const tickets = await museum.ask('What are your prices?');
    expect(tickets.answer).toBe(
      'Tickets — Adult: £9.50. Concession (over 65, student): £7.50. Child (5–16): £4.50. Family (2 adults, up to 3 children): £24. [1]',
    );
    expect(tickets.sources.map((s) => s.url)).toEqual([`${museum.site.url}/visit.html`]);
    const saas = await crawled(fixture('saas'), 'Tallyboard');
    // The words alone found "Payment: Prices exclude VAT." on its FAQ.
    const plans = await saas.ask('how much does it cost?');
    expect(plans.answer).toMatch(/^Simple pricing that grows with your team — Free — Price: €0; .* Starter — Price: €9 per user a month;/);
    expect(plans.sources.map((s) => s.url)).toEqual([`${saas.site.url}/pricing.html`]);
    // "How much is it?" after a question asks about what that question was about, not the price list.
    const { sessionId } = await saas.ask('Do you integrate with Xero?');
    expect((await saas.ask('and how much is it?', sessionId)).answer).not.toMatch(/^Simple pricing/);
    // A shop's delivery table states more amounts than its products' page, one product a section: the products are its prices.
    const shop = await crawled(fixture('shop'), 'Wren & Thistle');
    const products = await shop.ask('what are your prices?');
    expect(products.answer).toBe('Harbour fisherman jumper: £129. Leith cardigan: £145. Lambswool scarf: £45. Beanie hat: £35. [1]');
    expect(products.sources.map((s) => s.url)).toEqual([`${shop.site.url}/shop.html`]);
    expect((await shop.ask('how much is delivery?')).answer).toMatch(/^Delivery — UK standard/);
    const salon = await crawled(fixture('peluqueria'), 'Peluquería Lucía');
    expect((await salon.ask('¿Qué precios tenéis?')).answer).toMatch(/^Cortes: Corte de mujer: 28 €\. Corte de caballero: 16 €\./);
  });

  it('declines prices on a site that states none, and answers from a curated answer the operator wrote for it', async () => {
    const lantern = await crawled(lanternSite(), 'Lantern');
    // No page states an amount: "I don't know", a knowledge gap — not a page sharing "price".
    const none = await lantern.ask('What are your prices?');
    expect(none).toMatchObject({ sources: [], leadCaptureIntent: false });
    expect(none.answer).toMatch(/^I don't know/);
    // The operator answers the gap; the answer is given, whatever this question's kind.
    const created = await api(chat.kb.baseUrl, 'POST', `/api/admin/clients/${lantern.clientId}/answers`, {
      question: 'What are your prices?',
      answer: 'Lantern is free and open source.',
    });
    expect(created.status).toBe(201);
    expect((await lantern.ask('what are your prices?')).answer).toBe('Lantern is free and open source.');
    expect((await lantern.ask('price list?')).answer).toBe('Lantern is free and open source.');
  });

  it('reads chat shorthand in full words, and stores the message as typed', async () => {
    const vet = await crawled(fixture('vet'), 'Riverside Vets');
    // "wat", "r", "ur" are no page's words: "wat r ur prices" was declined.
    const prices = await vet.ask('wat r ur prices');
    expect(prices.answer).toMatch(/^Prices — Consultation \(15 minutes\): £52\./);
    expect((await vet.ask('wher r u', prices.sessionId)).answer).toMatch(/14 Mill Lane, Bedminster, Bristol BS3 4QT/);
    const transcript = await api<{ messages: { role: string; content: string }[] }>(
      chat.kb.baseUrl,
      'GET',
      `/api/admin/clients/${vet.clientId}/conversations/${prices.sessionId}`,
    );
    expect(transcript.body.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['wat r ur prices', 'wher r u']);
  });

  it('replies to "ok" in the visitor’s language, not the quoted page’s, and not with "You’re welcome!"', async () => {
    const pool = await crawled(fixture('pool'), 'Brookside Leisure Pool');
    const { sessionId } = await pool.ask('what is this place?');
    // The opening it quotes, "A 25-metre pool, a learner pool and a sauna…", has Portuguese's "a" four times.
    expect((await pool.ask('ok', sessionId)).answer).toBe('Is there anything else I can help with?');
  });

  it('answers a complaint about the last answer with the contact offer, and "what?" with a request to ask again', async () => {
    const yoga = await crawled(fixture('yoga'), 'Oakfield Yoga');
    const { sessionId } = await yoga.ask('Can I pay by card?');
    // The words alone quoted "…so teachers can help everyone" at "you're not helping".
    expect(await yoga.ask("that's not what I asked", sessionId)).toMatchObject({
      answer: "Sorry that didn't help. Would you like someone from Oakfield Yoga to contact you?",
      sources: [],
      leadCaptureIntent: false,
    });
    expect(await yoga.ask('yes please', sessionId)).toMatchObject({ sources: [], leadCaptureIntent: true });
    expect((await yoga.ask('what?')).answer).toBe(
      "Sorry if that was unclear. Could you ask your question in other words? I answer from Oakfield Yoga's website.",
    );
  });

  it('answers from the page about the project when the home page is links alone, and searches the pages without one', async () => {
    // The home page is crawled (a chunk of its links) and has no sentence to quote: the page its address
    // names as the one about the project has. The search found whatever shared a word ("do" on the PostgreSQL
    // docs: PREPARE's generic plans).
    const about = await crawled(lanternSite(), 'Lantern');
    for (const question of ['What do you do?', 'What is Lantern?']) {
      const res = await about.ask(question);
      expect(res.answer, question).toBe('Lantern is a static site generator that turns Markdown folders into fast websites. [1]');
      expect(res.sources.map((s) => s.url)).toEqual([`${about.site.url}/about.html`]);
    }
    // A page that opens by saying what the client is ("Lantern is a…"), before one whose address names an
    // introduction to something else (GnuCash's "bus-intro.html", the introduction to its business features).
    const definedDir = lanternSite('notes.html');
    writeFileSync(
      path.join(definedDir, 'index.html'),
      '<!doctype html><title>Contents</title><body><h1>Contents</h1><ul><li><a href="notes.html">Notes</a></li><li><a href="plugins-intro.html">Plugins</a></li></ul></body>',
    );
    writeFileSync(
      path.join(definedDir, 'plugins-intro.html'),
      '<!doctype html><title>Plugins</title><body><h1>Plugins</h1><p>Plugins add image resizing and search to a build.</p></body>',
    );
    const defined = await crawled(definedDir, 'Lantern');
    expect((await defined.ask('What do you do?')).answer).toBe(
      'Lantern is a static site generator that turns Markdown folders into fast websites. [1]',
    );
    // A name with a regular expression's characters is read as written.
    const odd = await crawled(lanternSite(), 'Lantern (beta)+ [docs] \\ C++');
    expect((await odd.ask('What do you do?')).answer).toBe(
      'Lantern is a static site generator that turns Markdown folders into fast websites. [1]',
    );
    // None: searched like any question.
    const docs = await crawled(lanternSite('notes.html', 'These notes cover how Lantern turns Markdown folders into websites.'), 'Lantern');
    const res = await docs.ask('What is Lantern?');
    expect(res.answer).toMatch(/Lantern (?:turns Markdown folders|with npm)/);
    expect(res.sources.map((s) => s.url)).not.toContain(`${docs.site.url}/`);
    expect(res.sources.length).toBeGreaterThan(0);
  });
});
