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

describe.skipIf(!hasChromium)('admin page in Chromium', () => {
  let gateway: Gateway;
  let site: Awaited<ReturnType<typeof startPlumberSite>>;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    // Quick self-healing: a page job lost to a transient database error (seen on the embedded PGlite:
    // 'portal "" does not exist') is re-enqueued by the watchdog in seconds instead of a minute.
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

  it('signs in with the key, creates a client, crawls with live progress, and shows sources, leads and deliveries', async () => {
    await page.goto(`${gateway.baseUrl}/admin`);
    // Without the key the shell loads but the data does not.
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/Unauthorized.*enter the admin API key/);
    await page.getByLabel('Admin API key').fill(ADMIN_KEY);
    await page.getByRole('button', { name: 'Use key' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('Key set for this browser tab.');

    // Create
    const form = page.getByRole('form', { name: 'New client' });
    await form.getByLabel('Name').fill('Admin Page Plumbing');
    await form.getByLabel('Lead webhook URL').fill(receiver.url('/admin-hook'));
    await form.getByLabel('Allowed origins').fill('https://acme-plumbing.example\nhttps://www.acme-plumbing.example');
    await form.getByRole('button', { name: 'Create client' }).click();
    const heading = page.getByRole('heading', { name: 'Client: Admin Page Plumbing' });
    await heading.waitFor();
    const secret = await page.getByRole('region', { name: 'Webhook signing secret' }).locator('pre').textContent();
    expect(secret).toMatch(/^whsec_/);
    const clientId = /^#client=(.+)$/.exec(new URL(page.url()).hash)?.[1] ?? '';
    const stored = await api<Record<string, unknown>>(gateway.baseUrl, 'GET', `/api/admin/clients/${clientId}`, undefined, auth);
    expect(stored.body).toMatchObject({
      name: 'Admin Page Plumbing',
      leadWebhookUrl: receiver.url('/admin-hook'),
      webhookFormat: 'envelope',
      allowedOrigins: ['https://acme-plumbing.example', 'https://www.acme-plumbing.example'],
    });
    expect(await page.getByText(`data-client-id="${clientId}"`).isVisible()).toBe(true);

    // Crawl, recording what the progress panel shows each time it changes.
    await page.evaluate(() => {
      const states: CrawlState[] = [];
      (window as unknown as { __crawl: CrawlState[] }).__crawl = states;
      const card = document.querySelector('[aria-labelledby="crawl-h"]');
      if (!card) throw new Error('no crawl card');
      new MutationObserver(() => {
        const bar = card.querySelector('progress');
        const state = {
          status: card.querySelector('.job [role=status]')?.textContent ?? '',
          value: bar?.getAttribute('value') ?? null,
          max: bar?.getAttribute('max') ?? null,
          indexed: card.querySelector('[data-counter=pagesIndexed]')?.textContent ?? null,
        };
        const last = states.at(-1);
        if (!last || JSON.stringify(last) !== JSON.stringify(state)) states.push(state);
      }).observe(card, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    const crawl = page.getByRole('form', { name: 'Crawl a website' });
    await crawl.getByLabel('Start URL').fill(`${site.url}/`);
    await crawl.getByLabel('Max pages').fill('10');
    await crawl.getByLabel('Render JavaScript').selectOption('never');
    await crawl.getByRole('button', { name: 'Start crawl' }).click();
    await crawl
      .getByText('Crawl: completed')
      .waitFor({ timeout: 40_000 })
      .catch(async (err: Error) => {
        // Say where the crawl stood, and what the services logged, rather than only "timed out".
        const sources = await api<{ sources: { lastJob: { jobId: string } | null }[] }>(
          gateway.baseUrl,
          'GET',
          `/api/admin/clients/${clientId}/sources`,
          undefined,
          auth,
        );
        const jobId = sources.body.sources[0]?.lastJob?.jobId;
        const job = jobId ? (await api(gateway.baseUrl, 'GET', `/api/admin/jobs/${jobId}`, undefined, auth)).body : undefined;
        throw new Error(`${err.message}\njob: ${JSON.stringify(job)}\nkbchat output:\n${gateway.service.output().slice(-4000)}`);
      });

    const states = await page.evaluate(() => (window as unknown as { __crawl: CrawlState[] }).__crawl);
    // Live: the panel showed the job before it was done, then the finished job with a full bar.
    // (" — " and the server's own account of the running job: only a poll of an unfinished job shows it.)
    expect(states.some((s) => /^Crawl: (queued|active) — \S/.test(s.status))).toBe(true);
    expect(states.at(-1)).toMatchObject({ status: 'Crawl: completed', value: '1', max: '1', indexed: String(SITE_PAGE_COUNT) });
    expect(await crawl.getByRole('progressbar', { name: 'Crawl progress' }).isVisible()).toBe(true);
    expect(await crawl.locator('dt', { hasText: 'Pages discovered' }).isVisible()).toBe(true);

    const sources = page.getByRole('region', { name: 'Sources' });
    await expect.poll(() => sources.getByRole('cell', { name: `${site.url}/`, exact: true }).count()).toBe(1);
    const row = sources.getByRole('row').filter({ hasText: `${site.url}/` });
    const cells = await row.getByRole('cell').allTextContents();
    expect(cells[1]).toBe(String(SITE_PAGE_COUNT));
    expect(Number(cells[2])).toBeGreaterThan(0);

    // Generate embeddings (nothing left to embed: the crawl embedded everything).
    await page.getByRole('button', { name: 'Generate embeddings' }).click();
    await page.getByText('Embeddings: completed').waitFor({ timeout: 60_000 });

    // Leads: a hostile name is shown as text and runs nothing.
    const hostileName = '<img src=x onerror="window.__pwned=1">Mallory';
    const lead = await api(gateway.baseUrl, 'POST', '/api/lead', {
      clientId,
      name: hostileName,
      email: 'mallory@example.com',
      sessionId: 'sess-admin-1',
    });
    expect(lead.status).toBe(200);
    const leads = page.getByRole('region', { name: 'Leads' });
    await leads.getByRole('button', { name: 'Refresh' }).click();
    await leads.getByRole('cell', { name: hostileName, exact: true }).waitFor();
    expect(await leads.getByRole('cell', { name: 'sess-admin-1' }).isVisible()).toBe(true);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

    await receiver.waitForRequests(1, { path: '/admin-hook', timeoutMs: 30_000 });
    const deliveries = page.getByRole('region', { name: 'Webhook deliveries' });
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
    expect(delivered.slice(2, 5)).toEqual(['1', 'delivered', '200']);
    expect(delivered[7]).toBe(receiver.url('/admin-hook'));

    await page.screenshot({ path: path.join(ARTIFACTS, 'admin-page.png'), fullPage: true });

    // Edit and rotate.
    const settings = page.getByRole('form', { name: 'Settings' });
    await settings.getByLabel('Name').fill('Admin Page Plumbing Ltd');
    await settings.getByLabel('Webhook format').selectOption('flat');
    await settings.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Client: Admin Page Plumbing Ltd' }).waitFor();
    const patched = await api<Record<string, unknown>>(gateway.baseUrl, 'GET', `/api/admin/clients/${clientId}`, undefined, auth);
    expect(patched.body).toMatchObject({ name: 'Admin Page Plumbing Ltd', webhookFormat: 'flat' });

    await settings.getByRole('button', { name: 'Rotate webhook secret' }).click();
    await expect.poll(() => page.getByRole('region', { name: 'Webhook signing secret' }).locator('pre').textContent()).not.toBe(secret);
    expect(await page.getByRole('region', { name: 'Webhook signing secret' }).locator('pre').textContent()).toMatch(/^whsec_/);

    // A reload keeps the key (this tab) and the selected client; the secret is not shown again.
    await page.reload();
    await page.getByRole('heading', { name: 'Client: Admin Page Plumbing Ltd' }).waitFor();
    expect(await page.getByRole('region', { name: 'Webhook signing secret' }).count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
