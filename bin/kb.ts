#!/usr/bin/env node
// `pnpm kb …`: the operator CLI. A plain HTTP client of the gateway's API (no database access), so
// it works the same against a local instance and a remote one.
import { parseArgs } from 'node:util';
import { readSseMessages } from '@kbchat/shared/sse';

const USAGE = `Usage: pnpm kb <command> [options]

Commands:
  clients create --name NAME [--webhook URL] [--format envelope|flat] [--origin ORIGIN]...
  clients list
  crawl <clientId> <url> [--max-pages N] [--render auto|never|always]
  embed <clientId>                      generate missing embeddings
  ask <clientId> "question" [--session ID] [--page-url URL]
  leads <clientId> [--limit N] [--offset N]

Options:
  --json        print the API's JSON on stdout (progress still goes to stderr)
  -h, --help    this text

Environment:
  KBCHAT_URL     gateway base URL (default http://127.0.0.1:3000)
  ADMIN_API_KEY  sent as "Authorization: Bearer …" to the admin API

Exit codes: 0 done; 1 the API refused or the job failed; 2 usage error; 3 gateway unreachable.
`;

const EXIT = { ok: 0, failed: 1, usage: 2, unreachable: 3 } as const;
const POLL_MS = 500;
// About half a minute of consecutive failed polls before giving up on watching a job.
const MAX_POLL_FAILURES = 30;

class CliError extends Error {
  readonly code: number;
  /** The HTTP status when the gateway answered with an error. */
  readonly status: number | undefined;
  constructor(message: string, code: number, status?: number) {
    super(message);
    this.code = code;
    this.status = status;
  }
}
const usageError = (message: string) => new CliError(`${message}\nRun "pnpm kb --help" for usage.`, EXIT.usage);

type Json = Record<string, unknown>;

interface Env {
  baseUrl: string;
  adminKey: string | undefined;
}

function readEnv(env: NodeJS.ProcessEnv): Env {
  const raw = env.KBCHAT_URL?.trim() || 'http://127.0.0.1:3000';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError(`KBCHAT_URL is not a URL: ${raw}`, EXIT.usage);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`KBCHAT_URL must be http(s): ${raw}`, EXIT.usage);
  return { baseUrl: url.toString().replace(/\/$/, ''), adminKey: env.ADMIN_API_KEY?.trim() || undefined };
}

/** One request to the gateway; API errors and unreachable servers become CliErrors with their exit code. */
async function request(
  env: Env,
  method: string,
  path: string,
  body?: unknown,
  init: { admin?: boolean; accept?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = { accept: init.accept ?? 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (init.admin !== false && env.adminKey) headers.authorization = `Bearer ${env.adminKey}`;
  let res: Response;
  try {
    res = await fetch(`${env.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new CliError(
      `cannot reach kbchat at ${env.baseUrl} (${cause?.code ?? cause?.message ?? (err as Error).message}). Is it running? Set KBCHAT_URL to its address.`,
      EXIT.unreachable,
    );
  }
  if (!res.ok) {
    const data = (await res.json().catch(() => ({}))) as Json;
    const details = Array.isArray(data.details) ? data.details.join('; ') : typeof data.details === 'string' ? data.details : '';
    const hint =
      res.status === 401
        ? ' (set ADMIN_API_KEY)'
        : res.status === 403 && !env.adminKey
          ? ' (set ADMIN_API_KEY, or run on the gateway host)'
          : '';
    throw new CliError(
      `${String(data.error ?? res.statusText)}${details ? `: ${details}` : ''} (HTTP ${res.status})${hint}`,
      EXIT.failed,
      res.status,
    );
  }
  return res;
}

async function call<T = Json>(env: Env, method: string, path: string, body?: unknown, init?: { admin?: boolean }): Promise<T> {
  const res = await request(env, method, path, body, init);
  return (await res.json()) as T;
}

const out = (text: string) => process.stdout.write(`${text}\n`);
const json = (value: unknown) => out(JSON.stringify(value, null, 2));

/** Left-aligned columns, long cells cut: for eyes, `--json` is for scripts. */
function printTable(headers: string[], rows: unknown[][]): void {
  const cell = (v: unknown) => {
    const s = v === null || v === undefined || v === '' ? '-' : String(v).replace(/\s+/g, ' ');
    return s.length > 60 ? `${s.slice(0, 59)}…` : s;
  };
  const cells = rows.map((r) => r.map(cell));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]?.length ?? 0)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  out(line(headers));
  for (const r of cells) out(line(r));
}

function positiveInt(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw usageError(`--${name} must be a positive whole number (got ${raw})`);
  return Number(raw);
}

// ------------------------------------------------------------------ progress

interface Progress {
  [counter: string]: unknown;
}

/** A bar redrawn in place on a terminal; one line per change otherwise (logs, CI, tests). */
function progressReporter(label: string) {
  const tty = process.stderr.isTTY === true;
  let last = '';
  return {
    update(job: Json): void {
      const p = (job.progress ?? {}) as Progress;
      const n = (k: string) => (typeof p[k] === 'number' ? (p[k] as number) : 0);
      const maxPages = Number((job.options as Json | undefined)?.maxPages) || Number.POSITIVE_INFINITY;
      // Pages while crawling (settled out of discovered, capped by maxPages; unchanged pages count as
      // indexed), then embeddings.
      const crawling = job.phase === 'crawling' || (job.kind === 'crawl' && job.phase !== 'embedding' && job.phase !== 'done');
      const [done, total, unit] = crawling
        ? [n('pagesIndexed') + n('pagesSkipped') + n('pagesFailed'), Math.min(n('pagesDiscovered'), maxPages), 'pages']
        : [n('embeddingsDone') + n('embeddingsFailed'), n('documentsCreated'), 'embeddings'];
      const status = String(job.status);
      const ratio = status === 'completed' ? 1 : total > 0 ? Math.min(1, done / total) : 0;
      const width = 24;
      const filled = Math.round(ratio * width);
      const bar = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
      const extra = [
        n('pagesIndexed') ? `${n('pagesIndexed')} indexed` : '',
        n('pagesFailed') ? `${n('pagesFailed')} failed` : '',
        n('documentsCreated') ? `${n('documentsCreated')} documents` : '',
        n('embeddingsDone') ? `${n('embeddingsDone')} embedded` : '',
      ]
        .filter(Boolean)
        .join(', ');
      const line = `${label} ${bar} ${done}/${total || '?'} ${unit} ${status}${extra ? ` · ${extra}` : ''}`;
      if (line === last) return;
      last = line;
      process.stderr.write(tty ? `\r\x1b[2K${line}` : `${line}\n`);
    },
    end(): void {
      if (tty && last) process.stderr.write('\n');
    },
  };
}

/** Polls GET /api/admin/jobs/:jobId until the job completes or fails. */
async function followJob(env: Env, jobId: string, label: string): Promise<Json> {
  const progress = progressReporter(label);
  const onInterrupt = () => {
    progress.end();
    process.stderr.write(`Stopped watching; the job continues on the server: GET /api/admin/jobs/${jobId}\n`);
    process.exit(130);
  };
  process.once('SIGINT', onInterrupt);
  try {
    let failures = 0;
    for (;;) {
      let job: Json;
      try {
        job = await call(env, 'GET', `/api/admin/jobs/${encodeURIComponent(jobId)}`);
        failures = 0;
      } catch (err) {
        // The job runs on regardless: a gateway restart or a brief 503 is no reason to stop watching.
        const transient = err instanceof CliError && (err.code === EXIT.unreachable || (err.status ?? 0) >= 500);
        if (!transient || ++failures > MAX_POLL_FAILURES) throw err;
        process.stderr.write(`${(err as Error).message}; retrying\n`);
        await new Promise((r) => setTimeout(r, POLL_MS * 2));
        continue;
      }
      progress.update(job);
      if (job.status === 'completed' || job.status === 'failed') return job;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } finally {
    progress.end();
    process.off('SIGINT', onInterrupt);
  }
}

function printJobResult(kind: string, job: Json, asJson: boolean): void {
  if (asJson) json(job);
  const result = (job.result ?? {}) as Json;
  if (job.status === 'failed') throw new CliError(`${kind} failed: ${String(job.error ?? job.message ?? 'unknown error')}`, EXIT.failed);
  if (!asJson) out(String(result.message ?? job.message ?? `${kind} ${String(job.status)}`));
}

// ------------------------------------------------------------------ ask

interface ChatDone {
  answer: string;
  sources: { title: string; url: string }[];
  sessionId: string;
  leadCaptureIntent: boolean;
}

/** /api/chat/stream, printing tokens as they arrive; /api/chat when streaming fails before any token. */
async function ask(env: Env, body: Json, onToken: (t: string) => void): Promise<ChatDone> {
  let printed = false;
  try {
    const res = await request(env, 'POST', '/api/chat/stream', body, { admin: false, accept: 'text/event-stream' });
    if (!res.body || !(res.headers.get('content-type') ?? '').includes('text/event-stream')) throw new Error('not an event stream');
    for await (const message of readSseMessages(res.body as unknown as AsyncIterable<Uint8Array>)) {
      const payload = JSON.parse(message.data) as Json;
      if (message.event === 'token' && typeof payload.text === 'string') {
        printed = true;
        onToken(payload.text);
      } else if (message.event === 'done') return payload as unknown as ChatDone;
      else if (message.event === 'error') throw new CliError(`${String(payload.error)} (during the answer)`, EXIT.failed);
    }
    throw new Error('the stream ended without a final event');
  } catch (err) {
    // A 4xx is final (the plain endpoint would say the same), and so is an unreachable gateway; a
    // missing stream route, a 5xx or a broken stream before any token is worth one plain request.
    const status = err instanceof CliError ? err.status : undefined;
    const final =
      err instanceof CliError && (err.code !== EXIT.failed || (status !== undefined && status < 500 && status !== 404 && status !== 405));
    if (printed || final) throw err;
    return call<ChatDone>(env, 'POST', '/api/chat', body, { admin: false });
  }
}

// ------------------------------------------------------------------ commands

type Values = Record<string, string | boolean | string[] | undefined>;

const OPTIONS_BY_COMMAND: Record<string, string[]> = {
  'clients create': ['name', 'webhook', 'format', 'origin'],
  'clients list': [],
  crawl: ['max-pages', 'render'],
  embed: [],
  ask: ['session', 'page-url'],
  leads: ['limit', 'offset'],
};

export async function run(argv: string[], environment: NodeJS.ProcessEnv): Promise<number> {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        name: { type: 'string' },
        webhook: { type: 'string' },
        format: { type: 'string' },
        origin: { type: 'string', multiple: true },
        'max-pages': { type: 'string' },
        render: { type: 'string' },
        session: { type: 'string' },
        'page-url': { type: 'string' },
        limit: { type: 'string' },
        offset: { type: 'string' },
      },
    });
  } catch (err) {
    throw usageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return EXIT.ok;
  }
  if (positionals.length === 0) {
    process.stderr.write(USAGE);
    return EXIT.usage;
  }
  const asJson = values.json === true;
  const [command, ...args] = positionals;
  const name = command === 'clients' ? `clients ${args[0] ?? ''}`.trim() : (command ?? '');
  const allowed = OPTIONS_BY_COMMAND[name];
  if (!allowed) throw usageError(`unknown command: ${positionals.slice(0, command === 'clients' ? 2 : 1).join(' ')}`);
  for (const key of Object.keys(values)) {
    if (key !== 'json' && key !== 'help' && !allowed.includes(key)) throw usageError(`--${key} does not apply to "${name}"`);
  }
  const rest = command === 'clients' ? args.slice(1) : args;
  const expectArgs = (names: string[]) => {
    if (rest.length !== names.length) throw usageError(`"${name}" takes ${names.map((n) => `<${n}>`).join(' ') || 'no arguments'}`);
  };
  const env = readEnv(environment);
  const str = (k: string) => values[k] as string | undefined;

  switch (name) {
    case 'clients create': {
      expectArgs([]);
      if (!str('name')) throw usageError('clients create needs --name');
      const format = str('format');
      if (format !== undefined && format !== 'envelope' && format !== 'flat') throw usageError('--format must be envelope or flat');
      const created = await call(env, 'POST', '/api/admin/clients', {
        name: str('name'),
        leadWebhookUrl: str('webhook'),
        webhookFormat: format,
        allowedOrigins: values.origin as string[] | undefined,
      });
      if (asJson) json(created);
      else {
        out(`Created client "${String(created.name)}"`);
        out(`  clientId:       ${String(created.clientId)}`);
        out(`  webhook secret: ${String(created.webhookSecret)}   (shown only now: store it to verify webhook signatures)`);
        out(`  embed:          <script src="${env.baseUrl}/widget.js" data-client-id="${String(created.clientId)}" async></script>`);
      }
      return EXIT.ok;
    }
    case 'clients list': {
      expectArgs([]);
      const data = await call<{ clients: Json[]; total: number }>(env, 'GET', '/api/admin/clients?limit=500');
      if (asJson) json(data);
      else if (data.clients.length === 0) out('No clients. Create one: pnpm kb clients create --name "Acme"');
      else
        printTable(
          ['CLIENT ID', 'NAME', 'FORMAT', 'WEBHOOK', 'CREATED'],
          data.clients.map((c) => [c.clientId, c.name, c.webhookFormat, c.leadWebhookUrl, c.createdAt]),
        );
      return EXIT.ok;
    }
    case 'crawl': {
      expectArgs(['clientId', 'url']);
      const render = str('render');
      if (render !== undefined && !['auto', 'never', 'always'].includes(render)) throw usageError('--render must be auto, never or always');
      const [clientId, url] = rest as [string, string];
      const started = await call(env, 'POST', '/api/admin/crawl', {
        clientId,
        url,
        maxPages: positiveInt('max-pages', str('max-pages')),
        render,
        wait: false,
      });
      if (typeof started.jobId !== 'string') {
        if (asJson) json(started);
        else out(String(started.message ?? 'Crawl finished.'));
        return EXIT.ok;
      }
      if (!asJson) process.stderr.write(`Crawl started: job ${started.jobId}, source ${String(started.sourceId)}\n`);
      printJobResult('Crawl', await followJob(env, started.jobId, 'crawl'), asJson);
      return EXIT.ok;
    }
    case 'embed': {
      expectArgs(['clientId']);
      const started = await call(env, 'POST', '/api/admin/generate-embeddings', { clientId: rest[0], wait: false });
      if (typeof started.jobId !== 'string') {
        if (asJson) json(started);
        else out(String(started.message ?? 'Embeddings generated.'));
        return EXIT.ok;
      }
      printJobResult('Embedding generation', await followJob(env, started.jobId, 'embed'), asJson);
      return EXIT.ok;
    }
    case 'ask': {
      expectArgs(['clientId', 'question']);
      const [clientId, message] = rest as [string, string];
      const pageUrl = str('page-url');
      const body = { clientId, message, sessionId: str('session'), context: pageUrl ? { pageUrl } : undefined };
      let streamed = false;
      const done = await ask(env, body, (t) => {
        if (asJson) return;
        streamed = true;
        process.stdout.write(t);
      });
      if (asJson) {
        json(done);
        return EXIT.ok;
      }
      if (!streamed) process.stdout.write(done.answer);
      out('');
      if (done.sources.length > 0) {
        out('\nSources:');
        done.sources.forEach((s, i) => {
          out(`  ${i + 1}. ${s.title} — ${s.url}`);
        });
      }
      if (done.leadCaptureIntent) out('\n(lead capture: the visitor wants to be contacted — the widget shows its lead form here)');
      process.stderr.write(`session: ${done.sessionId}   (continue with --session ${done.sessionId})\n`);
      return EXIT.ok;
    }
    case 'leads': {
      expectArgs(['clientId']);
      const limit = positiveInt('limit', str('limit')) ?? 50;
      const offset = str('offset') === undefined ? 0 : Number(str('offset'));
      if (!Number.isInteger(offset) || offset < 0) throw usageError('--offset must be 0 or a positive whole number');
      const data = await call<{ leads: Json[]; total: number }>(
        env,
        'GET',
        `/api/admin/clients/${encodeURIComponent(rest[0] ?? '')}/leads?limit=${limit}&offset=${offset}`,
      );
      if (asJson) json(data);
      else if (data.leads.length === 0) out('No leads.');
      else {
        printTable(
          ['RECEIVED', 'NAME', 'EMAIL', 'PHONE', 'WEBHOOK', 'SESSION', 'MESSAGE'],
          data.leads.map((l) => [l.createdAt, l.name, l.email, l.phone, l.webhookStatus, l.sessionId, l.message]),
        );
        if (data.total > data.leads.length) out(`(${data.leads.length} of ${data.total}; page with --limit and --offset)`);
      }
      return EXIT.ok;
    }
  }
  throw usageError(`unknown command: ${name}`);
}

if (import.meta.main) {
  try {
    process.exitCode = await run(process.argv.slice(2), process.env);
  } catch (err) {
    if (err instanceof CliError) {
      process.stderr.write(`kb: ${err.message}\n`);
      process.exitCode = err.code;
    } else {
      process.stderr.write(`kb: unexpected error: ${(err as Error).stack ?? String(err)}\n`);
      process.exitCode = EXIT.failed;
    }
  }
}
