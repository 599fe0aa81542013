import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startGeneratedSite } from '../support/fixture-site.ts';
import { api, createClient, type Kbchat, startKbchat, waitFor } from '../support/kbchat.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

/** Every table that holds a tenant's rows, and how a row finds its client. */
const TENANT_ROWS: Record<string, string> = {
  sources: 'client_id = $1',
  jobs: 'client_id = $1',
  crawl_urls: 'job_id IN (SELECT id FROM jobs WHERE client_id = $1)',
  pages: 'client_id = $1',
  documents: 'client_id = $1',
  sessions: 'client_id = $1',
  messages: 'client_id = $1',
  leads: 'client_id = $1',
  webhook_deliveries: 'client_id = $1',
  usage: 'client_id = $1',
};

describe('DELETE /api/admin/clients/:clientId', () => {
  let kb: Kbchat;
  let site: Awaited<ReturnType<typeof startGeneratedSite>>;
  let receiver: WebhookReceiver;
  let db: pg.Client;
  beforeAll(async () => {
    kb = await startKbchat();
    site = await startGeneratedSite({ pages: 3 });
    receiver = await startWebhookReceiver();
    db = new pg.Client({ connectionString: inject('databaseUrl') });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await kb?.stop();
    await site?.close();
    await receiver?.stop();
  });

  async function rowsOf(clientId: string): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const [table, where] of Object.entries(TENANT_ROWS)) {
      const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, [clientId]);
      counts[table] = rows[0]?.n ?? -1;
    }
    return counts;
  }

  async function populate(): Promise<string> {
    const { clientId } = await createClient(kb.baseUrl, { leadWebhookUrl: receiver.url('/hook') });
    const crawl = await api<{ success: boolean }>(kb.baseUrl, 'POST', '/api/admin/crawl', { clientId, url: site.url, maxPages: 3 });
    expect(crawl.body.success).toBe(true);
    const chat = await api(kb.baseUrl, 'POST', '/api/chat', { clientId, message: 'Tell me about the glacier and the harbour' });
    expect(chat.status).toBe(200);
    const lead = await api(kb.baseUrl, 'POST', '/api/lead', { clientId, name: 'Del Ete', email: 'del@example.com' });
    expect(lead.status).toBe(200);
    await waitFor(async () => ((await rowsOf(clientId)).webhook_deliveries ?? 0) > 0, { what: 'the webhook delivery to be logged' });
    // Usage is only written by billed providers; one row stands in for them.
    await db.query("INSERT INTO usage (client_id, kind, model, prompt_tokens, cost_usd) VALUES ($1, 'chat', 'test-model', 10, 0.001)", [
      clientId,
    ]);
    return clientId;
  }

  it('removes every row of that client, and only of that client', async () => {
    const doomed = await populate();
    const kept = await populate();
    const before = await rowsOf(doomed);
    for (const [table, n] of Object.entries(before)) expect(n, `${table} rows before the delete`).toBeGreaterThan(0);
    const keptBefore = await rowsOf(kept);

    const del = await api(kb.baseUrl, 'DELETE', `/api/admin/clients/${doomed}`);
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ success: true, clientId: doomed });

    expect(await rowsOf(doomed)).toEqual(Object.fromEntries(Object.keys(TENANT_ROWS).map((t) => [t, 0])));
    expect(await rowsOf(kept)).toEqual(keptBefore);
    expect((await api(kb.baseUrl, 'GET', `/api/admin/clients/${doomed}`)).status).toBe(404);
    expect((await api(kb.baseUrl, 'POST', '/api/chat', { clientId: doomed, message: 'hello?' })).status).toBe(404);
  });
});
