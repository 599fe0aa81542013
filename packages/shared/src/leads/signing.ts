import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the receiver recomputes
 * HMAC-SHA256 over `${webhook-id}.${webhook-timestamp}.${body}` with the client's secret and
 * compares. The id is stable per lead across retries (receivers deduplicate on it); the timestamp
 * is the attempt's, so a receiver's replay window never rejects a late retry.
 */

const SECRET_PREFIX = 'whsec_';

/** The HMAC key: the bytes base64-encoded after `whsec_` (a secret without the prefix is taken whole). */
export function signingKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** `v1,<base64 HMAC-SHA256>` of the signed content. */
export function signWebhook(input: { id: string; timestamp: number; body: string; secret: string }): string {
  const mac = createHmac('sha256', signingKey(input.secret)).update(`${input.id}.${input.timestamp}.${input.body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers of one attempt. */
export function webhookSignatureHeaders(input: { id: string; timestamp: number; body: string; secret: string }): Record<string, string> {
  return {
    'webhook-id': input.id,
    'webhook-timestamp': String(input.timestamp),
    'webhook-signature': signWebhook(input),
  };
}

export type VerifyResult = { ok: true } | { ok: false; reason: string };

/**
 * Verifies a received webhook the way a receiver should: every `v1,` entry of the signature header
 * is tried (secret rotation sends several), compared in constant time, and the timestamp must be
 * within toleranceSeconds of now.
 */
export function verifyWebhook(input: {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  secret: string;
  toleranceSeconds?: number;
  nowSeconds?: number;
}): VerifyResult {
  const header = (name: string) => {
    const v = input.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const id = header('webhook-id');
  const timestamp = header('webhook-timestamp');
  const signatures = header('webhook-signature');
  if (!id || !timestamp || !signatures) return { ok: false, reason: 'missing webhook-id, webhook-timestamp or webhook-signature' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'webhook-timestamp is not unix seconds' };
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > (input.toleranceSeconds ?? 300))
    return { ok: false, reason: 'webhook-timestamp outside the tolerance' };
  const expected = Buffer.from(
    signWebhook({ id, timestamp: Number(timestamp), body: input.body, secret: input.secret }).slice(3),
    'base64',
  );
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) continue;
    const given = Buffer.from(value, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true };
  }
  return { ok: false, reason: 'no signature matches' };
}
