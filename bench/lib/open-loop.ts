// An open-loop load generator: requests go out at fixed scheduled times (a constant arrival rate),
// whether or not earlier ones have been answered, and each one's latency is measured from its
// SCHEDULED send time to the end of its response — so a server that stalls is charged for the
// requests that queue behind the stall (no coordinated omission, unlike a closed loop of N
// connections). Times are process.hrtime (CLOCK_MONOTONIC, shared by every process on the machine),
// in ms, so another process's timestamps (the fake model server's) compare with these directly.
import http from 'node:http';
import { percentile, round } from './env.ts';

export const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

export interface OpenLoopOptions {
  /** POST target, e.g. http://127.0.0.1:1234/api/chat. */
  url: string;
  /** Requests per second. */
  rate: number;
  seconds: number;
  /** The JSON body of request i (0-based within this run). */
  body: (i: number) => string;
  /** How long to wait for requests still out once the last one is sent. */
  drainMs?: number;
}

export interface Sent {
  /** Scheduled send time (ms, hrtime clock). */
  scheduled: number;
  /** When the generator actually wrote it (its own lateness). */
  sent: number;
  /** End of the response body; undefined if it never came. */
  end?: number;
  status?: number;
  error?: string;
}

export interface OpenLoopResult {
  rate: number;
  seconds: number;
  requests: Sent[];
  /** Highest number of requests out at once. */
  peakInFlight: number;
}

/** Latency percentiles (ms) and failures of a load level: the closed-loop chat part reports them too. */
export interface LevelFigures {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Network errors (and, open loop, requests not answered within the drain time). */
  errors: number;
  non2xx: number;
}

export interface LatencySummary extends LevelFigures {
  requests: number;
  /** Responses completed per second over the run (first scheduled send → last response). */
  achievedRps: number;
  /** The generator's own lateness (sent − scheduled), p99 and max: large values mean it, not the server, fell behind. */
  sendLagP99: number;
  sendLagMax: number;
  peakInFlight: number;
  /** The first error's message, if any. */
  firstError?: string;
}

export async function openLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const target = new URL(options.url);
  // Keep-alive with room for every request that could be out at once: the generator never waits
  // for a socket (a queue for sockets would be a closed loop again).
  const agent = new http.Agent({ keepAlive: true, maxSockets: 2048, maxFreeSockets: 2048 });
  const total = Math.round(options.rate * options.seconds);
  const interval = 1000 / options.rate;
  const requests: Sent[] = new Array(total);
  let inFlight = 0;
  let peakInFlight = 0;
  let done = 0;
  let allDone: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    allDone = resolve;
  });

  const send = (i: number, scheduled: number) => {
    const record: Sent = { scheduled, sent: nowMs() };
    requests[i] = record;
    const payload = options.body(i);
    inFlight++;
    if (inFlight > peakInFlight) peakInFlight = inFlight;
    let settled = false;
    const settle = (error?: string) => {
      if (settled) return;
      settled = true;
      if (error) record.error = error;
      else record.end = nowMs();
      inFlight--;
      done++;
      if (done === total) allDone();
    };
    const req = http.request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        record.status = res.statusCode;
        res.on('data', () => {});
        res.on('end', () => settle());
        res.on('error', (err) => settle(err.message));
      },
    );
    req.on('error', (err) => settle(err.message));
    req.end(payload);
  };

  const start = nowMs() + 5;
  let next = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = nowMs();
      // Everything due by now goes out, each with its own scheduled time (catching up after a late timer).
      while (next < total && start + next * interval <= now) {
        send(next, start + next * interval);
        next++;
      }
      if (next >= total) return resolve();
      setTimeout(tick, Math.max(0, start + next * interval - nowMs()));
    };
    setTimeout(tick, Math.max(0, start - nowMs()));
  });
  const timer = setTimeout(allDone, options.drainMs ?? 30_000);
  await finished;
  clearTimeout(timer);
  agent.destroy();
  for (const r of requests) if (r.end === undefined && r.error === undefined) r.error = 'no response within the drain time';
  return { rate: options.rate, seconds: options.seconds, requests, peakInFlight };
}

/** p50…max of `end − scheduled` (or of `at(i) − scheduled` when given), errors and non-2xx. */
export function summarize(run: OpenLoopResult, at?: (i: number, r: Sent) => number | undefined): LatencySummary {
  const latencies: number[] = [];
  let errors = 0;
  let non2xx = 0;
  let lastEnd = 0;
  for (const [i, r] of run.requests.entries()) {
    if (r.error !== undefined) {
      errors++;
      continue;
    }
    if (r.status === undefined || r.status < 200 || r.status >= 300) non2xx++;
    if (r.end !== undefined && r.end > lastEnd) lastEnd = r.end;
    const t = at ? at(i, r) : r.end;
    if (t !== undefined) latencies.push(t - r.scheduled);
  }
  latencies.sort((a, b) => a - b);
  const lags = run.requests.map((r) => r.sent - r.scheduled).sort((a, b) => a - b);
  const first = run.requests[0]?.scheduled ?? 0;
  const completed = run.requests.length - errors;
  return {
    requests: run.requests.length,
    achievedRps: round(completed / ((lastEnd - first) / 1000), 1),
    p50: round(percentile(latencies, 50)),
    p90: round(percentile(latencies, 90)),
    p99: round(percentile(latencies, 99)),
    max: round(latencies.at(-1) ?? Number.NaN),
    errors,
    non2xx,
    sendLagP99: round(percentile(lags, 99)),
    sendLagMax: round(lags.at(-1) ?? Number.NaN),
    peakInFlight: run.peakInFlight,
    ...(errors > 0 ? { firstError: run.requests.find((r) => r.error !== undefined)?.error } : {}),
  };
}
