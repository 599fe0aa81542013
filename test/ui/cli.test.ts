import { spawn } from 'node:child_process';
import { freePort } from '@kbchat/shared/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SITE_PAGE_COUNT, startPlumberSite } from '../browser/support.ts';
import { api, type Kbchat, REPO_ROOT, startKbchat } from '../support/kbchat.ts';

const ADMIN_KEY = 'cli-test-admin-key-0123456789abcdef';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `pnpm kb …` as an operator runs it: a separate process, configured only by its environment. */
function kb(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/kb.ts', ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    // A hung command fails its test with whatever it printed, instead of the test's timeout.
    const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('kb CLI against a real gateway', () => {
  let kbchat: Kbchat;
  let site: Awaited<ReturnType<typeof startPlumberSite>>;
  let env: Record<string, string>;
  let clientId: string;

  beforeAll(async () => {
    // Quick self-healing: a page job lost to a transient database error (seen on the embedded PGlite:
    // 'portal "" does not exist') is re-enqueued by the watchdog in seconds instead of a minute.
    kbchat = await startKbchat({ env: { ADMIN_API_KEY: ADMIN_KEY, WORKER_LOCK_MS: '2000', PIPELINE_WATCHDOG_MS: '1000' } });
    site = await startPlumberSite();
    env = { KBCHAT_URL: kbchat.baseUrl, ADMIN_API_KEY: ADMIN_KEY };
  });
  afterAll(async () => {
    await site?.close();
    await kbchat?.stop();
  });

  it('creates and lists clients, for people and for scripts', async () => {
    const created = await kb(
      ['clients', 'create', '--name', 'CLI Plumbing', '--webhook', 'https://hooks.example.com/in', '--format', 'flat', '--json'],
      env,
    );
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const body = JSON.parse(created.stdout) as Record<string, unknown>;
    expect(body).toMatchObject({ name: 'CLI Plumbing', leadWebhookUrl: 'https://hooks.example.com/in', webhookFormat: 'flat' });
    expect(body.webhookSecret).toMatch(/^whsec_/);
    clientId = String(body.clientId);

    const human = await kb(['clients', 'create', '--name', 'Second Co', '--origin', 'https://second.example'], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(
      /^Created client "Second Co"\n {2}clientId: {7}[0-9a-f-]{36}\n {2}webhook secret: whsec_\S+ {3}\(shown only now/,
    );
    expect(human.stdout).toContain(`<script src="${kbchat.baseUrl}/widget.js" data-client-id=`);

    const list = await kb(['clients', 'list'], env);
    expect(list.code).toBe(0);
    const lines = list.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^CLIENT ID\s+NAME\s+FORMAT\s+WEBHOOK\s+CREATED$/);
    expect(lines.find((l) => l.startsWith(clientId))).toMatch(/CLI Plumbing\s+flat\s+https:\/\/hooks\.example\.com\/in/);

    const listJson = await kb(['clients', 'list', '--json'], env);
    const parsed = JSON.parse(listJson.stdout) as { clients: { clientId: string }[] };
    expect(parsed.clients.map((c) => c.clientId)).toContain(clientId);
  });

  it('crawls a site with a progress bar on stderr and the result on stdout', async () => {
    const run = await kb(['crawl', clientId, `${site.url}/`, '--max-pages', '10', '--render', 'never'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^Crawl started: job [0-9a-f-]{36}, source [0-9a-f-]{36}\n/);
    const bars = run.stderr.split('\n').filter((l) => l.startsWith('crawl ['));
    expect(bars.length).toBeGreaterThan(0);
    // The last line is the finished job: a full bar, completed.
    expect(bars.at(-1)).toMatch(/^crawl \[#{24}\] \d+\/(\d+|\?) \w+ completed · 4 indexed, \d+ documents/);
    expect(run.stdout).toMatch(/4 pages?/);

    const sources = await api<{ sources: { url: string; pages: number; documents: number }[] }>(
      kbchat.baseUrl,
      'GET',
      `/api/admin/clients/${clientId}/sources`,
      undefined,
      { authorization: `Bearer ${ADMIN_KEY}` },
    );
    expect(sources.body.sources).toEqual([expect.objectContaining({ url: `${site.url}/`, pages: SITE_PAGE_COUNT })]);
    expect(sources.body.sources[0]?.documents).toBeGreaterThan(0);
  });

  it('asks a question, prints the answer with its sources, and continues a session', async () => {
    const first = await kb(['ask', clientId, 'How much does the premium maintenance plan cost?'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('49 euros');
    expect(first.stdout).toMatch(new RegExp(`Sources:\\n {2}1\\. Pricing — ${site.url}/pricing`));
    const sessionId = /^session: (\S+)/m.exec(first.stderr)?.[1];
    expect(sessionId).toBeTruthy();

    const followUp = await kb(['ask', clientId, 'What are your opening hours on Saturday?', '--session', String(sessionId), '--json'], env);
    expect(followUp.code).toBe(0);
    const done = JSON.parse(followUp.stdout) as { sessionId: string; sources: { url: string }[]; leadCaptureIntent: boolean };
    expect(done.sessionId).toBe(sessionId);
    expect(done.sources.map((s) => s.url)).toContain(`${site.url}/hours`);

    const lead = await kb(['ask', clientId, 'Please call me back about a quote', '--session', String(sessionId)], env);
    expect(lead.stdout).toContain('(lead capture: the visitor wants to be contacted');
  });

  it('lists leads', async () => {
    const none = await kb(['leads', clientId], env);
    expect(none).toMatchObject({ code: 0, stdout: 'No leads.\n' });
    const posted = await api(kbchat.baseUrl, 'POST', '/api/lead', {
      clientId,
      name: 'Grace Hopper',
      email: 'grace@example.com',
      sessionId: 's-cli-1',
    });
    expect(posted.status).toBe(200);
    const table = await kb(['leads', clientId], env);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      /^RECEIVED\s+NAME\s+EMAIL\s+PHONE\s+WEBHOOK\s+SESSION\s+MESSAGE\n\S+\s+Grace Hopper\s+grace@example\.com\s+-\s+\w+\s+s-cli-1\s+-\n$/,
    );
    const asJson = JSON.parse((await kb(['leads', clientId, '--json', '--limit', '1'], env)).stdout) as {
      leads: unknown[];
      total: number;
      limit: number;
    };
    expect(asJson).toMatchObject({ total: 1, limit: 1, leads: [expect.objectContaining({ name: 'Grace Hopper', sessionId: 's-cli-1' })] });
  });

  it('fails clearly, with distinct exit codes, and changes nothing', async () => {
    const badKey = await kb(['clients', 'list'], { ...env, ADMIN_API_KEY: 'not-the-key-not-the-key' });
    expect(badKey).toMatchObject({ code: 1, stdout: '' });
    expect(badKey.stderr).toMatch(/^kb: Unauthorized: the admin API key is not valid \(HTTP 401\) \(set ADMIN_API_KEY\)\n$/);
    const noKey = await kb(['clients', 'create', '--name', 'Nope'], { KBCHAT_URL: kbchat.baseUrl });
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain('(HTTP 401)');

    const unknown = await kb(['crawl', '00000000-0000-4000-8000-000000000000', 'https://example.com/'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^kb: Client not found.*\(HTTP 404\)/);
    const badUrl = await kb(['crawl', clientId, 'ftp://example.com/'], env);
    expect(badUrl.code).toBe(1);
    expect(badUrl.stderr).toMatch(/url must be a valid HTTP or HTTPS URL \(HTTP 400\)/);
    const badLead = await kb(['leads', 'not-a-client'], env);
    expect(badLead.code).toBe(1);

    const closed = await freePort();
    const down = await kb(['clients', 'list'], { ...env, KBCHAT_URL: `http://127.0.0.1:${closed}` });
    expect(down.code).toBe(3);
    expect(down.stderr).toMatch(/cannot reach kbchat at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);

    for (const [args, message] of [
      [['crawl', clientId], '"crawl" takes <clientId> <url>'],
      [['clients', 'create'], 'clients create needs --name'],
      [['clients', 'create', '--name', 'X', '--format', 'xml'], '--format must be envelope or flat'],
      [['crawl', clientId, 'https://example.com/', '--max-pages', 'many'], '--max-pages must be a positive whole number'],
      [['crawl', clientId, 'https://example.com/', '--name', 'X'], '--name does not apply to "crawl"'],
      [['frobnicate'], 'unknown command: frobnicate'],
      [['clients', 'list', '--bogus'], "Unknown option '--bogus'"],
    ] as const) {
      const run = await kb([...args], env);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain(message);
      expect(run.stderr).toContain('pnpm kb --help');
    }
    const badEnv = await kb(['clients', 'list'], { KBCHAT_URL: 'ftp://x' });
    expect(badEnv).toMatchObject({ code: 2, stderr: 'kb: KBCHAT_URL must be http(s): ftp://x\n' });

    const help = await kb(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: pnpm kb <command>/);
    const bare = await kb([]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/^Usage: pnpm kb <command>/);

    // Other test files share the database: look for what these runs would have created, by name.
    const after = await api<{ clients: { name: string }[] }>(kbchat.baseUrl, 'GET', '/api/admin/clients?limit=500', undefined, {
      authorization: `Bearer ${ADMIN_KEY}`,
    });
    expect(after.body.clients.map((c) => c.name).filter((n) => n === 'Nope' || n === 'X')).toEqual([]);
  });
});
