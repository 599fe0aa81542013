import { createHmac, timingSafeEqual } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from './kbchat.ts';

/**
 * A real HTTP webhook receiver for tests: records every request, answers each as a script says
 * (a status, or hang: never answer), can be stopped and started again on the same port, and checks
 * Standard Webhooks signatures with its own HMAC code (independent of the code under test).
 */

export interface ReceivedWebhook {
  /** Order of arrival, from 0. */
  index: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** rawBody parsed as JSON (undefined when it is not JSON). */
  body: unknown;
  webhookId: string | undefined;
  /** Requests to the same path still waiting for an answer when this one arrived (hanging ones included). */
  openOnPathAtArrival: number;
  /** Requests to other paths still waiting for an answer when this one arrived. */
  openElsewhereAtArrival: number;
  /** The status sent, or 'hang' (never answered). */
  answer?: number | 'hang';
}

export type Reply = number | 'hang';
export type Script = (req: ReceivedWebhook) => Reply | Promise<Reply>;

export interface WebhookReceiver {
  port: number;
  /** The URL of a path on this receiver (several clients can share one receiver on different paths). */
  url(path?: string): string;
  readonly requests: ReceivedWebhook[];
  /** Sets how the next requests are answered (default: 200). */
  respond(script: Script): void;
  on(path: string): ReceivedWebhook[];
  /** Requests per webhook-id, for exactly-once checks. */
  countByWebhookId(path?: string): Map<string, number>;
  /** Most requests to path that were waiting for an answer at the same time. */
  maxConcurrent(path: string): number;
  /** Requests currently waiting for an answer. */
  open(path?: string): number;
  waitForRequests(count: number, options?: { path?: string; timeoutMs?: number }): Promise<ReceivedWebhook[]>;
  /** True when the request's webhook-signature holds for the secret (and the timestamp is fresh). */
  verify(req: Pick<ReceivedWebhook, 'headers' | 'rawBody'>, secret: string): boolean;
  /** Closes the listener and every connection, hanging ones included: senders see the socket drop. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

export async function startWebhookReceiver(options: { port?: number } = {}): Promise<WebhookReceiver> {
  const requests: ReceivedWebhook[] = [];
  let script: Script = () => 200;
  const openByPath = new Map<string, number>();
  const maxByPath = new Map<string, number>();
  let server: http.Server | undefined;
  let port = options.port ?? 0;

  const handler: http.RequestListener = (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = undefined;
      }
      const openHere = openByPath.get(path) ?? 0;
      const openTotal = [...openByPath.values()].reduce((a, b) => a + b, 0);
      openByPath.set(path, openHere + 1);
      maxByPath.set(path, Math.max(maxByPath.get(path) ?? 0, openHere + 1));
      let closed = false;
      const done = () => {
        if (closed) return;
        closed = true;
        openByPath.set(path, (openByPath.get(path) ?? 1) - 1);
      };
      res.on('close', done);
      const record: ReceivedWebhook = {
        index: requests.length,
        method: req.method ?? '',
        path,
        headers: req.headers,
        rawBody,
        body,
        webhookId: header(req.headers, 'webhook-id'),
        openOnPathAtArrival: openHere,
        openElsewhereAtArrival: openTotal - openHere,
      };
      requests.push(record);
      let answer: Reply;
      try {
        answer = await script(record);
      } catch {
        answer = 500;
      }
      record.answer = answer;
      if (answer === 'hang') return;
      res.writeHead(answer, { 'content-type': 'application/json' });
      res.end(answer === 204 ? undefined : JSON.stringify({ received: true }));
      done();
    });
  };

  const start = async () => {
    server = http.createServer(handler);
    await new Promise<void>((resolve, reject) => {
      server?.once('error', reject);
      server?.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.address() as AddressInfo).port;
  };
  await start();

  const receiver: WebhookReceiver = {
    get port() {
      return port;
    },
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    requests,
    respond(next) {
      script = next;
    },
    on: (path) => requests.filter((r) => r.path === path),
    countByWebhookId(path) {
      const counts = new Map<string, number>();
      for (const r of requests) {
        if (path !== undefined && r.path !== path) continue;
        const id = r.webhookId ?? '(none)';
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      return counts;
    },
    maxConcurrent: (path) => maxByPath.get(path) ?? 0,
    open: (path) => (path === undefined ? [...openByPath.values()].reduce((a, b) => a + b, 0) : (openByPath.get(path) ?? 0)),
    async waitForRequests(count, opts = {}) {
      const pick = () => (opts.path === undefined ? requests : requests.filter((r) => r.path === opts.path));
      await waitFor(() => pick().length >= count, {
        timeoutMs: opts.timeoutMs ?? 30_000,
        what: `${count} webhook request(s)${opts.path ? ` on ${opts.path}` : ''} (got ${pick().length})`,
      });
      return pick();
    },
    verify: (req, secret) => verifyStandardWebhook(req.headers, req.rawBody, secret),
    async stop() {
      const s = server;
      server = undefined;
      if (!s) return;
      const closed = new Promise<void>((resolve) => s.close(() => resolve()));
      s.closeAllConnections();
      await closed;
    },
    start,
  };
  return receiver;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Standard Webhooks verification, written from the spec (not the code under test). */
export function verifyStandardWebhook(headers: IncomingHttpHeaders, rawBody: string, secret: string, toleranceSeconds = 300): boolean {
  const id = header(headers, 'webhook-id');
  const ts = header(headers, 'webhook-timestamp');
  const sigs = header(headers, 'webhook-signature');
  if (!id || !ts || !sigs || !/^\d+$/.test(ts)) return false;
  if (Math.abs(Date.now() / 1000 - Number(ts)) > toleranceSeconds) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${rawBody}`).digest();
  return sigs.split(' ').some((entry) => {
    const [version, value] = entry.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
