import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { loadConfig } from '@kbchat/shared/config';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { defaultChatReply, type FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.ts';
import { api, createClient, testEnv } from '../support/kbchat.ts';
import { createSeeder, type Seeder } from '../support/seed-documents.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { ARTIFACTS, type Gateway, hasChromium, html, launchChromium, startGatewayProcess, startSite } from './support.ts';

// A host page that styles everything it can, so any leak in either direction shows in computed styles.
const HOSTILE_CSS = `
* { margin: 7px; padding: 3px; font-family: "Comic Sans MS", cursive !important; color: rgb(200, 0, 0) !important;
    letter-spacing: 2px; text-transform: uppercase; line-height: 3; box-sizing: content-box; border-radius: 0 !important; }
button { background: rgb(0, 128, 0) !important; border: 5px dashed purple !important; width: 300px; height: 80px;
         font-size: 30px !important; display: block; position: static !important; }
div, section, form, header { border: 2px solid orange; background: rgb(255, 255, 0); }
textarea, input { background: black !important; color: yellow !important; font-size: 40px !important; }
a { color: lime !important; text-decoration: line-through; }
[role=dialog], [role=log] { display: none !important; }
p { font-size: 22px; }
`;

const HOST_IDS = ['#h', '#p', '#b', '#d', '#i', '#a'];
const STYLE_PROPS = [
  'color',
  'background-color',
  'font-family',
  'font-size',
  'font-weight',
  'line-height',
  'letter-spacing',
  'text-transform',
  'margin-top',
  'margin-left',
  'padding-top',
  'padding-left',
  'border-top-width',
  'border-top-style',
  'border-top-color',
  'border-top-left-radius',
  'width',
  'height',
  'display',
  'box-sizing',
  'position',
  'text-decoration-line',
];

const PAGES = [
  {
    url: 'https://acme-plumbing.example/pricing',
    title: 'Pricing — Acme Plumbing',
    chunks: ['The premium plan costs 49 euros per month and includes emergency callouts at night and on weekends.'],
  },
  {
    url: 'https://acme-plumbing.example/hours',
    title: 'Opening hours',
    chunks: ['Our office is open Monday to Friday from 8am to 6pm; the emergency line answers around the clock.'],
  },
  {
    // Crawled titles are untrusted: this one must show as text and run nothing.
    url: 'https://acme-plumbing.example/services',
    title: '<img src=x onerror="window.__pwned=1">Boiler services',
    chunks: ['We repair boilers, unclog drains and install water heaters across the whole city.'],
  },
];

interface Probe {
  texts: string[];
  sentAt: number;
  firstTokenAt: number | undefined;
  doneAt: number | undefined;
}

if (!hasChromium) process.stderr.write('[browser tests] skipped: /usr/bin/chromium is not installed\n');

describe.skipIf(!hasChromium)('chat widget in Chromium', () => {
  let fake: FakeOpenAI;
  let receiver: WebhookReceiver;
  let gateway: Gateway;
  let seeder: Seeder;
  let site: Awaited<ReturnType<typeof startSite>>;
  let browser: Browser;
  let clientId: string;
  const streamBodies: Record<string, unknown>[] = [];
  const pageErrors: string[] = [];
  afterEach(() => {
    expect(pageErrors).toEqual([]);
  });

  beforeAll(async () => {
    fake = await startFakeOpenAI();
    // Slow enough that tokens visibly arrive one by one; the test never asserts how long anything takes.
    fake.streamChunkDelayMs = 25;
    // Follow-up rewriting: a model would resolve references; the fake hands the message back as the query.
    fake.chatHandler = (body) => {
      const last = body.messages.at(-1)?.content ?? '';
      const rewrite = /Latest message: ([\s\S]*)\n\nStandalone query:$/.exec(last);
      return rewrite ? { content: rewrite[1] ?? '' } : defaultChatReply(body);
    };
    receiver = await startWebhookReceiver();
    const providerEnv = fake.env;
    gateway = await startGatewayProcess(providerEnv);
    seeder = createSeeder(inject('databaseUrl'), loadConfig(testEnv(providerEnv)));
    const client = await createClient(gateway.baseUrl, { name: 'Acme Plumbing', leadWebhookUrl: receiver.url('/acme') });
    clientId = client.clientId;
    await seeder.seed(clientId, PAGES);

    const tag = (attrs = '') =>
      `<script src="${gateway.baseUrl}/widget.js" data-client-id="${clientId}" data-title="Acme help" data-greeting="Hello from Acme!" ${attrs} async></script>`;
    const body = `<h1 id="h">Acme host page</h1><p id="p">Some text of the host.</p><button id="b" type="button">Host button</button>
      <div class="card" id="d">A card</div><textarea id="i">host field</textarea><a id="a" href="#x">host link</a>`;
    site = await startSite((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const css = url.searchParams.get('plain') ? '' : `<style>${HOSTILE_CSS}</style>`;
      const accent = url.searchParams.get('accent');
      const other = url.searchParams.get('client');
      // ?client=<id>: a bare tag for that client, so its own settings decide the look.
      const bareTag = `<script src="${gateway.baseUrl}/widget.js" data-client-id="${other}" async></script>`;
      const widget = url.searchParams.get('widget') === '0' ? '' : other ? bareTag : tag(accent ? `data-accent-color="${accent}"` : '');
      html(
        res,
        `<!doctype html><html lang="${url.searchParams.get('lang') ?? 'en'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Host</title>${css}</head><body>${body}${widget}</body></html>`,
      );
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await seeder?.close();
    await gateway?.stop();
    await receiver?.stop();
    await fake?.close();
  });

  async function openPage(query = '', viewport = { width: 1280, height: 800 }, mobile = false): Promise<Page> {
    // Reduced motion: no opening animation, so geometry is the same whenever it is read.
    const context = await browser.newContext({
      viewport,
      isMobile: mobile,
      hasTouch: mobile,
      deviceScaleFactor: 1,
      reducedMotion: 'reduce',
    });
    const page = await context.newPage();
    page.on('request', (r) => {
      if (r.url().endsWith('/api/chat/stream')) streamBodies.push(r.postDataJSON() as Record<string, unknown>);
    });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(`${site.url}/${query}`);
    return page;
  }

  /** Records every text the newest bot bubble shows, and when the first token and the final answer landed. */
  async function watchAnswers(page: Page): Promise<void> {
    await page.evaluate(() => {
      const root = document.querySelector('kbchat-widget')?.shadowRoot;
      const log = root?.querySelector('.log');
      if (!log) throw new Error('widget log not found');
      const probe: Probe = { texts: [], sentAt: 0, firstTokenAt: undefined, doneAt: undefined };
      const botsBefore = log.querySelectorAll('.m.bot').length;
      (window as unknown as { __probe: Probe }).__probe = probe;
      new MutationObserver(() => {
        const bots = log.querySelectorAll('.m.bot');
        const last = bots.length > botsBefore ? bots[bots.length - 1] : undefined;
        const users = log.querySelectorAll('.m.user');
        if (users.length && !probe.sentAt) probe.sentAt = performance.now();
        const text = last?.firstChild?.textContent ?? '';
        if (text && probe.texts.at(-1) !== text) {
          probe.texts.push(text);
          probe.firstTokenAt ??= performance.now();
        }
        if (last?.getAttribute('aria-busy') === 'false' && probe.sentAt && !probe.doneAt) probe.doneAt = performance.now();
      }).observe(log, { subtree: true, childList: true, characterData: true, attributes: true });
    });
  }
  const probe = (page: Page) => page.evaluate(() => (window as unknown as { __probe: Probe }).__probe);

  async function computed(page: Page, selectors: string[], inShadow: boolean): Promise<Record<string, Record<string, string>>> {
    return page.evaluate(
      ({ selectors, props, inShadow }) => {
        const scope: ParentNode | null | undefined = inShadow ? document.querySelector('kbchat-widget')?.shadowRoot : document;
        const out: Record<string, Record<string, string>> = {};
        for (const sel of selectors) {
          const el = scope?.querySelector(sel);
          if (!el) throw new Error(`no element ${sel}`);
          const cs = getComputedStyle(el);
          const r = el.getBoundingClientRect();
          out[sel] = {
            ...Object.fromEntries(props.map((p) => [p, cs.getPropertyValue(p)])),
            rect: [r.x, r.y, r.width, r.height].join(','),
          };
        }
        return out;
      },
      { selectors, props: STYLE_PROPS, inShadow },
    );
  }

  it('leaves the host page exactly as it was: computed styles, layout, stylesheets, globals', async () => {
    const without = await openPage('?widget=0');
    const before = await computed(without, HOST_IDS.concat('body'), false);
    const globalsBefore = await without.evaluate(() => Object.keys(window).sort());
    const sheetsBefore = await without.evaluate(() => document.styleSheets.length);
    await without.context().close();

    const withWidget = await openPage();
    await withWidget.getByRole('button', { name: 'Open chat' }).waitFor();
    expect(await computed(withWidget, HOST_IDS.concat('body'), false)).toEqual(before);
    expect(await withWidget.evaluate(() => Object.keys(window).sort())).toEqual(globalsBefore);
    expect(await withWidget.evaluate(() => document.styleSheets.length)).toBe(sheetsBefore);
    // One element added to the page, everything else inside its shadow root.
    expect(await withWidget.evaluate(() => [...document.body.children].map((e) => e.tagName.toLowerCase()).slice(-2))).toEqual([
      'script',
      'kbchat-widget',
    ]);
    await withWidget.context().close();
  });

  it('looks the same on a hostile host page as on a plain one: no host style reaches inside', async () => {
    const parts = ['.launcher', '.panel', 'header', 'h2', '.x', '.log', '.m.bot', 'textarea', '.send'];
    const snapshot = async (query: string) => {
      const page = await openPage(query);
      await page.getByRole('button', { name: 'Open chat' }).click();
      await page.getByRole('dialog', { name: 'Acme help' }).waitFor();
      const styles = await computed(page, parts, true);
      await page.context().close();
      return styles;
    };
    const plain = await snapshot('?plain=1');
    const hostile = await snapshot('');
    expect(hostile).toEqual(plain);
    // And the widget's own look is what its stylesheet says, not a browser default.
    expect(plain['.launcher']?.['border-top-left-radius']).toBe('50%');
    expect(plain['.launcher']?.position).toBe('fixed');
    expect(plain['.launcher']?.['font-family']).not.toContain('Comic Sans');
  });

  it('streams an answer with source links, keeps the session, brings the lead form, stores the lead and fires the webhook; keyboard only', async () => {
    const page = await openPage();
    await page.getByRole('button', { name: 'Open chat' }).waitFor();
    // Its name follows its state ("Open chat" / "Hide chat"), so hold on to it by class.
    const launcher = page.locator('.launcher');

    // Keyboard: Tab through the host page until the launcher has focus, then Enter opens the panel.
    const launcherFocused = () =>
      page.evaluate(
        () =>
          document.activeElement?.tagName === 'KBCHAT-WIDGET' &&
          document.querySelector('kbchat-widget')?.shadowRoot?.activeElement?.className === 'launcher',
      );
    for (let i = 0; i < 10 && !(await launcherFocused()); i++) await page.keyboard.press('Tab');
    expect(await launcherFocused()).toBe(true);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Acme help' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    await expect
      .poll(() => page.getByRole('textbox', { name: 'Your message' }).evaluate((e) => e === (e.getRootNode() as ShadowRoot).activeElement))
      .toBe(true);
    await expect.poll(() => launcher.getAttribute('aria-expanded')).toBe('true');
    expect(await launcher.getAttribute('aria-label')).toBe('Hide chat');
    expect(await dialog.getByText('Hello from Acme!').isVisible()).toBe(true);

    await watchAnswers(page);
    await page.keyboard.type('How much does the premium plan cost?');
    await page.keyboard.press('Enter');
    const pricingLink = dialog.getByRole('link', { name: 'Pricing — Acme Plumbing' });
    await pricingLink.waitFor({ timeout: 30_000 });
    expect(await pricingLink.getAttribute('href')).toBe('https://acme-plumbing.example/pricing');
    expect(await pricingLink.getAttribute('target')).toBe('_blank');
    expect(await pricingLink.getAttribute('rel')).toBe('noopener noreferrer');

    const first = await probe(page);
    // Streamed: the bubble grew through several partial texts before the final answer.
    expect(first.texts.length).toBeGreaterThan(2);
    const answer = first.texts.at(-1) ?? '';
    expect(answer).toContain('49 euros');
    for (const partial of first.texts.slice(0, -1)) expect(answer.startsWith(partial)).toBe(true);
    // The source list is numbered as the answer cites it: item 1 is sources[0], and every [k] has an item k.
    const listed = await dialog
      .locator('.src ol')
      .last()
      .locator('li')
      .evaluateAll((items) => items.map((li) => [(li as HTMLLIElement).value, li.textContent]));
    expect(listed[0]).toEqual([1, 'Pricing — Acme Plumbing']);
    const markers = [...answer.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    expect(markers[0]).toBe(1);
    for (const k of markers) expect(listed.map((l) => l[0])).toContain(k);

    expect(streamBodies.at(-1)).toEqual({
      clientId,
      message: 'How much does the premium plan cost?',
      context: { pageUrl: `${site.url}/` },
    });
    const sessionId = await page.evaluate((id) => localStorage.getItem(`kbchat:${id}:session`), clientId);
    expect(sessionId).toBeTruthy();

    // A hostile crawled title is shown as text and runs nothing.
    await page.keyboard.type('Do you repair boilers?');
    await page.keyboard.press('Enter');
    const hostile = dialog.getByRole('link', { name: /Boiler services/ });
    await hostile.waitFor({ timeout: 30_000 });
    expect(await hostile.textContent()).toBe(PAGES[2]?.title);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(streamBodies.at(-1)?.sessionId).toBe(sessionId);

    await page.screenshot({ path: path.join(ARTIFACTS, 'widget-desktop.png') });

    // The lead flow.
    await page.keyboard.type('can someone call me?');
    await page.keyboard.press('Enter');
    const name = dialog.getByRole('textbox', { name: 'Name', exact: true });
    await name.waitFor({ timeout: 30_000 });
    expect(await name.getAttribute('aria-required')).toBe('true');
    expect(await dialog.getByRole('textbox', { name: 'Email', exact: true }).getAttribute('aria-required')).toBe('true');
    expect(await dialog.getByRole('textbox', { name: 'Phone', exact: true }).getAttribute('aria-required')).toBeNull();
    expect(await dialog.getByRole('textbox', { name: 'Message', exact: true }).isVisible()).toBe(true);
    await expect.poll(() => name.evaluate((e) => e === (e.getRootNode() as ShadowRoot).activeElement)).toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'widget-lead-form.png') });

    await page.keyboard.type('Ada Lovelace');
    await page.keyboard.press('Tab');
    await page.keyboard.type('not-an-email');
    await page.keyboard.press('Enter');
    const email = dialog.getByRole('textbox', { name: 'Email', exact: true });
    await expect.poll(() => email.getAttribute('aria-invalid')).toBe('true');
    const emailError = await email.evaluate(
      (e) =>
        e.getRootNode() instanceof ShadowRoot &&
        (e.getRootNode() as ShadowRoot).getElementById(e.getAttribute('aria-describedby') ?? '')?.textContent,
    );
    expect(emailError).toMatch(/^Email must be a valid email address/);
    expect(await email.evaluate((e) => e === (e.getRootNode() as ShadowRoot).activeElement)).toBe(true);
    const noLeadYet = await api<{ total: number }>(gateway.baseUrl, 'GET', `/api/admin/clients/${clientId}/leads`);
    expect(noLeadYet.body.total).toBe(0);

    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('ada@example.com');
    await page.keyboard.press('Tab');
    await page.keyboard.type('+44 20 7946 0958');
    await page.keyboard.press('Enter');
    const thanks = dialog.getByRole('status');
    await thanks.waitFor({ timeout: 15_000 });
    expect(await thanks.textContent()).toContain('Thank you, Ada Lovelace!');

    const leads = await api<{ leads: { name: string; email: string; phone: string; sessionId: string }[] }>(
      gateway.baseUrl,
      'GET',
      `/api/admin/clients/${clientId}/leads`,
    );
    expect(leads.body.leads).toEqual([
      expect.objectContaining({ name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0958', sessionId }),
    ]);
    const [hook] = await receiver.waitForRequests(1, { path: '/acme', timeoutMs: 30_000 });
    expect(hook?.body).toMatchObject({
      event: 'lead.created',
      data: { name: 'Ada Lovelace', email: 'ada@example.com', clientId, sessionId },
    });

    // Escape closes the panel and gives focus back to the launcher.
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.isVisible()).toBe(false);
    expect(await launcherFocused()).toBe(true);

    // A reload keeps the session (the same sessionId is sent) and the visible conversation.
    await page.reload();
    await launcher.click();
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.getByText('How much does the premium plan cost?').isVisible()).toBe(true);
    await page.getByRole('textbox', { name: 'Your message' }).fill('When are you open?');
    await page.getByRole('button', { name: 'Send' }).click();
    await dialog.getByRole('link', { name: 'Opening hours' }).waitFor({ timeout: 30_000 });
    expect(streamBodies.at(-1)).toMatchObject({ clientId, message: 'When are you open?', sessionId });

    const timings = await probe(page).catch(() => undefined);
    await writeMetrics({ firstAnswer: first, timingsAfterReload: timings });
    await page.context().close();
  });

  it('rates an answer with thumbs up / down: the rating reaches the API and the console transcript', async () => {
    const page = await openPage('?plain=1');
    await page.getByRole('button', { name: 'Open chat' }).click();
    const dialog = page.getByRole('dialog', { name: 'Acme help' });
    await page.getByRole('textbox', { name: 'Your message' }).fill('When are you open?');
    await page.keyboard.press('Enter');
    await dialog.getByRole('link', { name: 'Opening hours' }).waitFor({ timeout: 30_000 });
    const rating = dialog.getByRole('group', { name: 'Rate this answer' }).last();
    const up = rating.getByRole('button', { name: 'Helpful answer' });
    const down = rating.getByRole('button', { name: 'Not helpful' });
    expect([await up.getAttribute('aria-pressed'), await down.getAttribute('aria-pressed')]).toEqual(['false', 'false']);
    // Keyboard: the rating buttons are in the tab order, Space presses one.
    await down.focus();
    await page.keyboard.press('Space');
    await expect.poll(() => down.getAttribute('aria-pressed')).toBe('true');
    expect(await up.getAttribute('aria-pressed')).toBe('false');
    await page.screenshot({ path: path.join(ARTIFACTS, 'widget-feedback.png') });

    const sessionId = (await page.evaluate((id) => localStorage.getItem(`kbchat:${id}:session`), clientId)) ?? '';
    const transcript = await api<{ messages: { role: string; feedback: string | null }[] }>(
      gateway.baseUrl,
      'GET',
      `/api/admin/clients/${clientId}/conversations/${sessionId}`,
    );
    expect(transcript.body.messages.filter((m) => m.role === 'assistant').at(-1)?.feedback).toBe('down');

    // A reload shows the rating pressed (kept with the tab's transcript; the panel stays open).
    await page.reload();
    await expect.poll(() => dialog.getByRole('button', { name: 'Not helpful' }).last().getAttribute('aria-pressed')).toBe('true');

    // The operator sees it in the console's transcript (no ADMIN_API_KEY: loopback may read).
    const console = await page.context().newPage();
    await console.goto(`${gateway.baseUrl}/admin#client=${clientId}&tab=conversations`);
    const list = console.getByRole('region', { name: 'Conversations', exact: true });
    await list.getByLabel('Feedback').selectOption('down');
    await list.getByRole('button', { name: 'Apply' }).click();
    await list.getByRole('button', { name: 'When are you open?' }).first().click();
    await console.getByRole('region', { name: 'Transcript' }).getByText('Feedback: down').waitFor();
    await console.screenshot({ path: path.join(ARTIFACTS, 'console-transcript-feedback.png'), fullPage: true });
    await page.context().close();
  });

  it("takes the client's settings: title, colour, starter questions and position", async () => {
    const styled = await createClient(gateway.baseUrl, {
      name: 'Styled Plumbing',
      widget: {
        title: 'Ask Styled',
        greeting: 'Welcome to Styled Plumbing.',
        color: '#0a7a45',
        starterQuestions: ['How much does the premium plan cost?', 'When are you open?'],
        position: 'bottom-left',
      },
    });
    await seeder.seed(styled.clientId, PAGES);
    const page = await openPage(`?plain=1&client=${styled.clientId}`);
    const launcher = page.locator('.launcher');
    await launcher.waitFor();
    expect(await launcher.evaluate((e) => getComputedStyle(e).backgroundColor)).toBe('rgb(10, 122, 69)');
    // Bottom left: the launcher sits at the left edge.
    expect((await launcher.boundingBox())?.x).toBe(20);
    await launcher.click();
    const dialog = page.getByRole('dialog', { name: 'Ask Styled' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.getByText('Welcome to Styled Plumbing.').isVisible()).toBe(true);
    const starters = dialog.getByRole('group', { name: 'Suggested questions' });
    expect(await starters.getByRole('button').allTextContents()).toEqual(['How much does the premium plan cost?', 'When are you open?']);
    await page.screenshot({ path: path.join(ARTIFACTS, 'widget-starter-questions.png') });
    await starters.getByRole('button', { name: 'How much does the premium plan cost?' }).click();
    await dialog.getByRole('link', { name: 'Pricing — Acme Plumbing' }).waitFor({ timeout: 30_000 });
    expect(streamBodies.at(-1)).toMatchObject({ clientId: styled.clientId, message: 'How much does the premium plan cost?' });
    // Asked: the suggestions step aside, and the keyboard focus is in the message box, not lost.
    expect(await starters.count()).toBe(0);
    expect(
      await page.getByRole('textbox', { name: 'Your message' }).evaluate((e) => e === (e.getRootNode() as ShadowRoot).activeElement),
    ).toBe(true);
    await page.context().close();
  });

  it('speaks the language of the page it sits on, where the operator wrote nothing', async () => {
    const page = await openPage(`?plain=1&lang=es-ES&client=${clientId}`);
    const launcher = page.getByRole('button', { name: 'Abrir el chat' });
    await launcher.click();
    const dialog = page.getByRole('dialog', { name: 'Chatee con nosotros' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.getByText('¡Hola! Pregúnteme lo que quiera sobre este sitio.').isVisible()).toBe(true);
    const box = page.getByRole('textbox', { name: 'Su mensaje' });
    expect(await box.getAttribute('placeholder')).toBe('Escriba su pregunta…');
    expect(await dialog.getByRole('button', { name: 'Enviar' }).isVisible()).toBe(true);
    await page.context().close();
  });

  it('falls back to POST /api/chat when the stream cannot be opened', async () => {
    const page = await openPage();
    await page.route('**/api/chat/stream', (route) => route.abort('connectionfailed'));
    const plainCalls: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/api/chat')) plainCalls.push(r.postData() ?? '');
    });
    await page.getByRole('button', { name: 'Open chat' }).click();
    await page.getByRole('textbox', { name: 'Your message' }).fill('How much does the premium plan cost?');
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Acme help' });
    await dialog.getByRole('link', { name: 'Pricing — Acme Plumbing' }).waitFor({ timeout: 30_000 });
    expect(plainCalls).toHaveLength(1);
    expect(JSON.parse(plainCalls[0] ?? '{}')).toMatchObject({ clientId, message: 'How much does the premium plan cost?' });
    expect(await dialog.getByText(/49 euros/).isVisible()).toBe(true);
    await page.context().close();
  });

  it('shows a fenced code example of an answer as code, and the rest as text', async () => {
    const previous = fake.chatHandler;
    fake.chatHandler = (body) =>
      /office open/.test(body.messages.at(-1)?.content ?? '')
        ? { content: 'Ask the office line with:\n```\ncurl https://acme.example/hours\n```\nIt answers Monday to Friday. [1]' }
        : previous(body);
    try {
      const page = await openPage();
      await page.getByRole('button', { name: 'Open chat' }).click();
      await page.getByRole('textbox', { name: 'Your message' }).fill('When is your office open?');
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Acme help' });
      const code = dialog.locator('pre code');
      await code.waitFor({ timeout: 30_000 });
      expect(await code.textContent()).toBe('curl https://acme.example/hours');
      expect(await code.evaluate((e) => getComputedStyle(e).fontFamily)).toMatch(/monospace/);
      const bubble = dialog.locator('.m.bot').filter({ has: page.locator('pre code') });
      const text = (await bubble.evaluate((e) => e.firstChild?.textContent ?? '')) as string;
      expect(text).toBe('Ask the office line with:');
      expect(await bubble.textContent()).not.toContain('```');
      expect(await bubble.textContent()).toContain('It answers Monday to Friday. [1]');
      await page.context().close();
    } finally {
      fake.chatHandler = previous;
    }
  });

  it('takes an accent colour, picks readable text for it, and ignores a value that is not a colour', async () => {
    const launcherColours = async (query: string) => {
      const page = await openPage(query);
      await page.getByRole('button', { name: 'Open chat' }).waitFor();
      const colours = await page.locator('.launcher').evaluate((e) => [getComputedStyle(e).backgroundColor, getComputedStyle(e).color]);
      await page.context().close();
      return colours;
    };
    expect(await launcherColours('?plain=1&accent=%23ffd000')).toEqual(['rgb(255, 208, 0)', 'rgb(17, 17, 17)']);
    expect(await launcherColours('?plain=1&accent=%23123456')).toEqual(['rgb(18, 52, 86)', 'rgb(255, 255, 255)']);
    expect(await launcherColours('?plain=1&accent=red%3Bbackground%3Aurl(x)')).toEqual(['rgb(31, 79, 209)', 'rgb(255, 255, 255)']);
  });

  it('turns into a full-screen panel on a phone', async () => {
    // A responsive host page (the hostile one overflows a phone's width, which widens the layout viewport).
    const page = await openPage('?plain=1', { width: 390, height: 844 }, true);
    await page.getByRole('button', { name: 'Open chat' }).click();
    const launcher = page.locator('.launcher');
    const dialog = page.getByRole('dialog', { name: 'Acme help' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.boundingBox()).toEqual({ x: 0, y: 0, width: 390, height: 844 });
    // The launcher steps aside; the close button in the header is the way out.
    expect(await launcher.isVisible()).toBe(false);
    await page.getByRole('textbox', { name: 'Your message' }).fill('When are you open?');
    await page.keyboard.press('Enter');
    await dialog.getByRole('link', { name: 'Opening hours' }).waitFor({ timeout: 30_000 });
    await page.screenshot({ path: path.join(ARTIFACTS, 'widget-mobile.png') });
    await dialog.getByRole('button', { name: 'Close chat' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    await page.context().close();
  });

  /** The numbers of the report (docs/widget.md): size of the script, time to first token vs the whole answer. */
  async function writeMetrics(extra: Record<string, unknown>): Promise<void> {
    const script = Buffer.from(await (await fetch(`${gateway.baseUrl}/widget.js`)).arrayBuffer());
    const runs: { firstTokenMs: number; totalMs: number }[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const res = await fetch(`${gateway.baseUrl}/api/chat/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientId, message: 'How much does the premium plan cost?' }),
      });
      let firstTokenMs: number | undefined;
      const decoder = new TextDecoder();
      let seen = '';
      for await (const chunk of res.body ?? []) {
        seen += decoder.decode(chunk as Uint8Array, { stream: true });
        if (firstTokenMs === undefined && seen.includes('event: token')) firstTokenMs = performance.now() - started;
      }
      expect(seen.indexOf('event: token')).toBeLessThan(seen.indexOf('event: done'));
      runs.push({ firstTokenMs: firstTokenMs ?? Number.NaN, totalMs: performance.now() - started });
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
    const metrics = {
      widgetBytes: script.length,
      widgetGzipBytes: gzipSync(script, { level: 9 }).length,
      fakeStreamChunkDelayMs: fake.streamChunkDelayMs,
      streamMedianFirstTokenMs: Math.round(median(runs.map((r) => r.firstTokenMs))),
      streamMedianTotalMs: Math.round(median(runs.map((r) => r.totalMs))),
      ...extra,
    };
    await writeFile(path.join(ARTIFACTS, 'widget-metrics.json'), `${JSON.stringify(metrics, null, 2)}\n`);
    process.stderr.write(`[widget metrics] ${JSON.stringify({ ...metrics, firstAnswer: undefined, timingsAfterReload: undefined })}\n`);
  }
});
