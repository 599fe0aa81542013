import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../support/kbchat.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { ARTIFACTS, type Gateway, hasChromium, launchChromium, SITE_PAGE_COUNT, startGatewayProcess, startPlumberSite } from './support.ts';

const ADMIN_KEY = 'admin-page-test-key-0123456789abcdef';
const auth = { authorization: `Bearer ${ADMIN_KEY}` };

interface CrawlState {
  status: string;
  value: string | null;
  max: string | null;
  indexed: string | null;
}

if (!hasChromium) process.stderr.write('[browser tests] skipped: /usr/bin/chromium is not installed\n');

describe.skipIf(!hasChromium)('operator console in Chromium', () => {
  let gateway: Gateway;
  let site: Awaited<ReturnType<typeof startPlumberSite>>;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let page: Page;
  let clientId = '';
  const problems: string[] = [];

  beforeAll(async () => {
    // Quick self-healing: a page job lost to a transient database error is re-enqueued by the watchdog in seconds.
    gateway = await startGatewayProcess({ ADMIN_API_KEY: ADMIN_KEY, WORKER_LOCK_MS: '2000', PIPELINE_WATCHDOG_MS: '1000' });
    // Slow pages: the crawl lasts long enough for the page to poll it mid-way.
    site = await startPlumberSite({ delayMs: 400 });
    receiver = await startWebhookReceiver();
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
    page = await context.newPage();
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
    // A CSP violation would mean part of the page silently does not work.
    page.on('console', (msg) => {
      if (msg.type() === 'error' && /Content Security Policy|Refused to/i.test(msg.text())) problems.push(msg.text());
    });
    page.on('dialog', (d) => void d.accept());
  });

  afterAll(async () => {
    await browser?.close();
    await receiver?.stop();
    await site?.close();
    await gateway?.stop();
  });

  const tab = (name: string) => page.getByRole('tab', { name, exact: true });
  const region = (name: string) => page.getByRole('region', { name, exact: true });
  const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `console-${name}.png`), fullPage: true });
  async function openTab(name: string): Promise<void> {
    await tab(name).click();
    await expect.poll(() => tab(name).getAttribute('aria-selected')).toBe('true');
  }
  const explain = async (err: Error) => {
    throw new Error(`${err.message}\nkbchat output:\n${gateway.service.output().slice(-4000)}`);
  };

  it('signs in with the key, creates a client and sets its widget', async () => {
    await page.goto(`${gateway.baseUrl}/admin`);
    // Without the key the shell loads but the data does not.
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/Unauthorized.*enter the admin API key/);
    await page.getByLabel('Admin API key').fill(ADMIN_KEY);
    await page.getByRole('button', { name: 'Use key' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Key set for this browser tab.');

    const form = page.getByRole('form', { name: 'New client' });
    await form.getByLabel('Name').fill('Console Plumbing');
    await form.getByLabel('Lead webhook URL').fill(receiver.url('/console-hook'));
    await form.getByRole('button', { name: 'Create client' }).click();
    await page.getByRole('heading', { name: 'Client: Console Plumbing' }).waitFor();
    expect(await page.getByRole('region', { name: 'Webhook signing secret' }).locator('pre').textContent()).toMatch(/^whsec_/);
    clientId = new URLSearchParams(new URL(page.url()).hash.slice(1)).get('client') ?? '';
    expect(clientId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await page.getByText(`data-client-id="${clientId}"`).isVisible()).toBe(true);

    const widget = page.getByRole('form', { name: 'Widget' });
    await widget.getByLabel('Title').fill('Ask Acme');
    await widget.getByLabel('Accent colour').fill('#0A7A45');
    await widget.getByLabel('Starter question 1').fill('How much is the premium plan?');
    await widget.getByLabel('Starter question 2').fill('When are you open?');
    await widget.getByLabel('Position').selectOption('bottom-left');
    await widget.getByRole('button', { name: 'Save widget' }).click();
    await expect.poll(() => page.locator('#notice').textContent()).toMatch(/^Widget settings saved/);
    const stored = await api<{ widget: unknown }>(gateway.baseUrl, 'GET', `/api/admin/clients/${clientId}`, undefined, auth);
    expect(stored.body.widget).toEqual({
      title: 'Ask Acme',
      greeting: null,
      color: '#0a7a45',
      starterQuestions: ['How much is the premium plan?', 'When are you open?'],
      position: 'bottom-left',
    });
    // A value the widget could not show is refused with the API's words.
    await widget.getByLabel('Accent colour').fill('green');
    await widget.getByRole('button', { name: 'Save widget' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/widget\.color must be a hex colour/);
    await shot('settings');
  });

  it('crawls with live progress, schedules the source, shows its changes, adds and deletes a text', async () => {
    await openTab('Sources');
    // Record what the jobs panel shows each time it changes.
    await page.evaluate(() => {
      const states: CrawlState[] = [];
      (window as unknown as { __crawl: CrawlState[] }).__crawl = states;
      const jobs = document.querySelector('.activity');
      if (!jobs) throw new Error('no jobs region');
      new MutationObserver(() => {
        const bar = jobs.querySelector('progress');
        const state = {
          status: jobs.querySelector('.job [role=status]')?.textContent ?? '',
          value: bar?.getAttribute('value') ?? null,
          max: bar?.getAttribute('max') ?? null,
          indexed: jobs.querySelector('[data-counter=pagesIndexed]')?.textContent ?? null,
        };
        const last = states.at(-1);
        if (!last || JSON.stringify(last) !== JSON.stringify(state)) states.push(state);
      }).observe(jobs, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    const crawl = page.getByRole('form', { name: 'Crawl a website' });
    await crawl.getByLabel('Start URL').fill(`${site.url}/`);
    await crawl.getByLabel('Max pages').fill('10');
    await crawl.getByLabel('Render JavaScript').selectOption('never');
    await crawl.getByRole('button', { name: 'Start crawl' }).click();
    const jobs = region('Jobs');
    await jobs.getByText('Crawl: completed').waitFor({ timeout: 40_000 }).catch(explain);
    const states = await page.evaluate(() => (window as unknown as { __crawl: CrawlState[] }).__crawl);
    // Live: the panel showed the job before it was done, then the finished job with a full bar.
    expect(states.some((s) => /^Crawl: (queued|active) — \S/.test(s.status))).toBe(true);
    expect(states.at(-1)).toMatchObject({ status: 'Crawl: completed', value: '1', max: '1', indexed: String(SITE_PAGE_COUNT) });
    expect(await jobs.getByRole('progressbar', { name: 'Crawl progress' }).isVisible()).toBe(true);
    expect(await jobs.locator('dt', { hasText: 'Pages discovered' }).isVisible()).toBe(true);

    const sources = region('Sources');
    await expect.poll(() => sources.getByRole('cell', { name: `${site.url}/`, exact: true }).count(), { timeout: 10_000 }).toBe(1);
    const row = sources.getByRole('row').filter({ hasText: `${site.url}/` });
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells[0]).toBe('website');
    expect(cells[2]).toBe(String(SITE_PAGE_COUNT));

    // Schedule: weekly, then the listing shows it with its next run.
    await row.getByLabel(`Schedule of ${site.url}/`, { exact: true }).selectOption('weekly');
    await row.getByRole('button', { name: `Set schedule of ${site.url}/` }).click();
    await expect.poll(() => page.locator('#notice').textContent()).toMatch(/: weekly, next run /);
    await expect
      .poll(
        async () =>
          (
            await sources
              .getByRole('row')
              .filter({ hasText: `${site.url}/` })
              .getByRole('cell')
              .allTextContents()
          )[6],
      )
      .not.toBe('—');
    const listed = await api<{ sources: { schedule: string; nextRunAt: string | null }[] }>(
      gateway.baseUrl,
      'GET',
      `/api/admin/clients/${clientId}/sources`,
      undefined,
      auth,
    );
    expect(listed.body.sources[0]).toMatchObject({ schedule: 'weekly', nextRunAt: expect.any(String) });

    // The changes of the crawl: every page added.
    await sources.getByRole('button', { name: `Changes of ${site.url}/` }).click();
    const changes = region(`Changes of ${site.url}/`);
    await changes.getByText(`${SITE_PAGE_COUNT} added, 0 changed, 0 removed`).waitFor();

    // A text source: added, listed with its type, deleted.
    const textForm = page.getByRole('form', { name: 'Add a text' });
    await textForm.getByLabel('Title').fill('Gift vouchers');
    await textForm.getByLabel('Text').fill('Acme Plumbing sells gift vouchers for boiler services, valid for two years.');
    await textForm.getByRole('button', { name: 'Add text' }).click();
    await sources.getByRole('cell', { name: /^Gift vouchers/ }).waitFor();
    await shot('sources');
    await sources.getByRole('button', { name: 'Delete Gift vouchers' }).click();
    await expect.poll(() => sources.getByRole('cell', { name: /^Gift vouchers/ }).count()).toBe(0);

    // A file: uploaded as multipart, listed as a file source.
    const fileForm = page.getByRole('form', { name: 'Upload a file' });
    await fileForm.getByLabel('File').setInputFiles({
      name: 'price-list.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from('# Price list\n\nA boiler service costs 120 euros. A new tap costs 60 euros fitted.\n'),
    });
    await fileForm.getByRole('button', { name: 'Upload' }).click();
    const fileRow = sources.getByRole('row').filter({ hasText: 'Price list' });
    await fileRow.waitFor();
    expect((await fileRow.getByRole('cell').allTextContents())[0]).toBe('file');
  });

  it('shows a crawl started elsewhere, live, after a reload and in any section', async () => {
    // Started by another tab (here: the API), while the console shows another section.
    await openTab('Leads');
    const started = await api<{ jobId: string }>(
      gateway.baseUrl,
      'POST',
      '/api/admin/crawl',
      { clientId, url: `${site.url}/`, maxPages: 10, render: 'never', wait: false },
      auth,
    );
    expect(started.status).toBe(202);
    await page.reload();
    await page.getByRole('heading', { name: 'Client: Console Plumbing' }).waitFor();
    expect(await tab('Leads').getAttribute('aria-selected')).toBe('true');
    const job = page.locator(`.job[data-job-id="${started.body.jobId}"]`);
    await job.waitFor({ timeout: 10_000 });
    await job.getByText('Crawl: completed').waitFor({ timeout: 40_000 }).catch(explain);
    await region('Jobs').getByRole('button', { name: 'Clear finished' }).click();
    await expect.poll(() => job.count()).toBe(0);
  });

  it('lists conversations with filters, and shows a transcript with its sources and feedback', async () => {
    const chat = await api<{ sessionId: string; messageId: string }>(gateway.baseUrl, 'POST', '/api/chat', {
      clientId,
      message: 'How much does the premium maintenance plan cost?',
    });
    expect(chat.status).toBe(200);
    const rated = await api(gateway.baseUrl, 'POST', '/api/feedback', {
      clientId,
      sessionId: chat.body.sessionId,
      messageId: chat.body.messageId,
      rating: 'down',
      comment: 'Too vague',
    });
    expect(rated.status).toBe(200);
    await api(gateway.baseUrl, 'POST', '/api/chat', { clientId, message: 'When is the office open?' });

    await openTab('Conversations');
    const list = region('Conversations');
    await list.getByRole('button', { name: 'How much does the premium maintenance plan cost?' }).waitFor();
    expect(await list.getByRole('button', { name: 'When is the office open?' }).count()).toBe(1);
    // Filters: rated down only.
    await list.getByLabel('Feedback').selectOption('down');
    await list.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => list.getByRole('button', { name: 'When is the office open?' }).count()).toBe(0);
    await list.getByRole('button', { name: 'How much does the premium maintenance plan cost?' }).click();
    const transcript = region('Transcript');
    await transcript.getByText('Feedback: down — “Too vague”').waitFor();
    expect(await transcript.locator('.src li').count()).toBeGreaterThan(0);
    await shot('conversations');

    // A visitor's erasure request: the other conversation goes.
    await list.getByLabel('Feedback').selectOption('');
    await list.getByRole('button', { name: 'Apply' }).click();
    await list.getByRole('button', { name: 'When is the office open?' }).click();
    await transcript.getByRole('button', { name: 'Delete conversation' }).click();
    await expect.poll(() => list.getByRole('button', { name: 'When is the office open?' }).count()).toBe(0);
    expect(await list.getByRole('button', { name: 'How much does the premium maintenance plan cost?' }).count()).toBe(1);
  });

  it('lists knowledge gaps; "write the answer" makes a curated answer the chat then gives; answers are edited and deleted', async () => {
    // An answer written before: listed first, it is not the one the gap below comes closest to.
    const earlier = await api(
      gateway.baseUrl,
      'POST',
      `/api/admin/clients/${clientId}/answers`,
      { question: 'Do you offer emergency call-outs?', answer: 'Yes: a plumber comes within two hours, day and night.' },
      auth,
    );
    expect(earlier.status, JSON.stringify(earlier.body)).toBe(201);
    const declined = await api<{ sources: unknown[] }>(gateway.baseUrl, 'POST', '/api/chat', {
      clientId,
      message: 'Do you install solar panels?',
    });
    expect(declined.body.sources).toEqual([]);
    // The same need in words no answer uses: a gap of its own, added to the answer below.
    const pvWording = 'Can you put photovoltaic modules on my roof?';
    const pv = await api<{ sources: unknown[] }>(gateway.baseUrl, 'POST', '/api/chat', { clientId, message: pvWording });
    expect(pv.body.sources).toEqual([]);

    await openTab('Knowledge gaps');
    const gaps = region('Knowledge gaps');
    const solar = gaps.getByRole('row').filter({ hasText: 'Do you install solar panels?' });
    await solar.waitFor();
    expect((await solar.getByRole('cell').allTextContents())[3]).toBe('declined');
    const rated = gaps.getByRole('row').filter({ hasText: 'How much does the premium maintenance plan cost?' });
    expect((await rated.getByRole('cell').allTextContents())[3]).toBe('rated down');
    await shot('knowledge-gaps');

    // Dismiss one; write the answer to the other.
    await gaps.getByRole('button', { name: 'Dismiss How much does the premium maintenance plan cost?' }).click();
    await expect.poll(() => rated.count()).toBe(0);
    await gaps.getByRole('button', { name: 'Write the answer to Do you install solar panels?' }).click();
    const write = page.getByRole('form', { name: 'Write the answer' });
    expect(await write.getByLabel('Question').inputValue()).toBe('Do you install solar panels?');
    await write.getByLabel('Answer').fill('No: we are plumbers. For solar panels ask a roofer; we connect solar water heaters.');
    await write.getByRole('button', { name: 'Save as curated answer' }).click();
    await expect.poll(() => page.locator('#notice').textContent()).toMatch(/^Curated answer created/);
    // A gap a curated answer now answers leaves the list by itself.
    await expect.poll(() => solar.count()).toBe(0);
    const chat = await api<{ answer: string }>(gateway.baseUrl, 'POST', '/api/chat', { clientId, message: 'Do you install solar panels?' });
    expect(chat.body.answer).toContain('we are plumbers');
    // …and asked in other words (docs/operators.md "Curated answers").
    const paraphrase = await api<{ answer: string }>(gateway.baseUrl, 'POST', '/api/chat', {
      clientId,
      message: 'Solar panel installation: is that something you do?',
    });
    expect(paraphrase.body.answer).toContain('we are plumbers');

    // "Add to an answer": the other wording becomes a way of asking for it, and leaves the gaps.
    const pvGap = gaps.getByRole('row').filter({ hasText: pvWording });
    await gaps.getByRole('button', { name: `Add ${pvWording} to an answer` }).click();
    const attach = page.getByRole('form', { name: 'Add to an answer' });
    // It starts from the answer the wording comes closest to ("photovoltaic" is "solar" in WordNet).
    const picker = attach.getByLabel('Answer');
    expect(await picker.locator('option').allTextContents()).toEqual([
      'Do you install solar panels? (closest)',
      'Do you offer emergency call-outs?',
    ]);
    expect(await picker.evaluate((s: HTMLSelectElement) => s.selectedOptions[0]?.textContent)).toBe(
      'Do you install solar panels? (closest)',
    );
    await shot('gap-add-to-answer');
    await attach.getByRole('button', { name: 'Add this wording' }).click();
    await expect.poll(() => page.locator('#notice').textContent()).toMatch(/^Wording added/);
    await expect.poll(() => pvGap.count()).toBe(0);
    const worded = await api<{ answer: string }>(gateway.baseUrl, 'POST', '/api/chat', { clientId, message: pvWording });
    expect(worded.body.answer).toContain('we are plumbers');

    await openTab('Curated answers');
    const answers = region('Curated answers');
    const row = answers.getByRole('row').filter({ hasText: 'Do you install solar panels?' });
    await row.waitFor();
    await answers.getByRole('button', { name: 'Edit the answer to Do you install solar panels?' }).click();
    const edit = page.getByRole('form', { name: 'Edit the answer' });
    expect(await edit.getByLabel('Other ways of asking').inputValue()).toBe(pvWording);
    await edit.getByLabel('Answer').fill('No: we are plumbers. We do connect solar water heaters.');
    await edit.getByLabel('Link').fill('https://acme-plumbing.example/solar');
    await edit.getByRole('button', { name: 'Save answer' }).click();
    await expect
      .poll(async () => (await row.getByRole('cell').allTextContents()).slice(1, 4))
      .toEqual([pvWording, 'No: we are plumbers. We do connect solar water heaters.', 'https://acme-plumbing.example/solar']);
    const add = page.getByRole('form', { name: 'New curated answer' });
    await add.getByLabel('Question').fill('Do you work on Sundays?');
    await add.getByLabel('Answer').fill('Only the emergency line: it answers every day of the year.');
    await add.getByRole('button', { name: 'Add answer' }).click();
    await answers.getByRole('row').filter({ hasText: 'Do you work on Sundays?' }).waitFor();
    await shot('answers');
    await answers.getByRole('button', { name: 'Delete the answer to Do you install solar panels?' }).click();
    await expect.poll(() => row.count()).toBe(0);
    const stored = await api<{ items: { question: string }[] }>(
      gateway.baseUrl,
      'GET',
      `/api/admin/clients/${clientId}/answers`,
      undefined,
      auth,
    );
    expect(stored.body.items.map((a) => a.question)).toEqual(['Do you offer emergency call-outs?', 'Do you work on Sundays?']);
  });

  it('shows leads by name, with the webhook deliveries named by their lead', async () => {
    const hostileName = '<img src=x onerror="window.__pwned=1">Mallory';
    const lead = await api(gateway.baseUrl, 'POST', '/api/lead', { clientId, name: hostileName, email: 'mallory@example.com' });
    expect(lead.status).toBe(200);
    await receiver.waitForRequests(1, { path: '/console-hook', timeoutMs: 30_000 });
    await openTab('Leads');
    const leads = region('Leads');
    await leads.getByRole('cell', { name: hostileName, exact: true }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    const deliveries = region('Webhook deliveries');
    await expect
      .poll(
        async () => {
          await deliveries.getByRole('button', { name: 'Refresh' }).click();
          return deliveries.getByRole('cell', { name: 'delivered', exact: true }).count();
        },
        { timeout: 30_000 },
      )
      .toBe(1);
    const delivered = await deliveries.getByRole('row').filter({ hasText: 'delivered' }).getByRole('cell').allTextContents();
    expect(delivered[1]).toBe(hostileName);
    expect(delivered.slice(2, 5)).toEqual(['1', 'delivered', '200']);
    await shot('leads');
  });

  it('charts the figures', async () => {
    await openTab('Stats');
    const figures = region('Figures');
    for (const name of ['Conversations and messages', 'Answered and declined', 'Visitor feedback', 'Leads', 'Tokens', 'Cost (USD)']) {
      await figures.getByRole('img', { name, exact: true }).waitFor();
    }
    // Two conversations in the Conversations test (one deleted), five solar-panel questions in the gaps test.
    await expect.poll(() => figures.locator('[data-total=conversations]').textContent()).toBe('6');
    expect(await figures.locator('[data-total=feedbackDown]').textContent()).toBe('1');
    expect(await figures.locator('[data-total=leads]').textContent()).toBe('1');
    // Bars drawn for the day with conversations.
    expect(await figures.getByRole('img', { name: 'Conversations and messages' }).locator('rect').count()).toBeGreaterThan(0);
    await figures.getByLabel('Interval').selectOption('week');
    await figures.getByRole('button', { name: 'Show' }).click();
    await figures.getByRole('img', { name: 'Leads', exact: true }).waitFor();
    await shot('stats');
    expect(problems).toEqual([]);
  });

  it('keeps the key and the section across a reload; the secret is not shown again', async () => {
    await page.reload();
    await page.getByRole('heading', { name: 'Client: Console Plumbing' }).waitFor();
    expect(await tab('Stats').getAttribute('aria-selected')).toBe('true');
    expect(await page.getByRole('region', { name: 'Webhook signing secret' }).count()).toBe(0);
    // Keyboard: arrows move between sections.
    await tab('Stats').focus();
    await page.keyboard.press('ArrowRight');
    expect(await tab('Settings').getAttribute('aria-selected')).toBe('true');
    await page.getByRole('form', { name: 'Settings' }).getByLabel('Name').fill('Console Plumbing Ltd');
    await page.getByRole('form', { name: 'Settings' }).getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Client: Console Plumbing Ltd' }).waitFor();
    expect(problems).toEqual([]);
  });
});
