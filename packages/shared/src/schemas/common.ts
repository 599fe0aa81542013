import { z } from 'zod';

/**
 * Building blocks for request schemas whose messages read as "<field> <message>" once the
 * gateway prefixes the field path: "name is required", "email must be a valid email address".
 */

// Postgres text cannot hold U+0000: a NUL that reached an INSERT was a 500, so it is a 400 here.
const NUL_MESSAGE = 'must not contain NUL characters';
const hasNoNul = (v: string) => !v.includes('\u0000');

export function requiredString(opts: { max?: number; min?: number; trim?: boolean } = {}) {
  const max = opts.max ?? 10_000;
  let s = z.string({ error: (iss) => (iss.input === undefined || iss.input === null ? 'is required' : 'must be a string') });
  if (opts.trim !== false) s = s.trim();
  return s
    .min(opts.min ?? 1, { error: opts.min && opts.min > 1 ? `must be at least ${opts.min} characters` : 'is required' })
    .max(max, { error: `must be at most ${max} characters` })
    .refine(hasNoNul, { error: NUL_MESSAGE });
}

export function optionalString(opts: { max?: number } = {}) {
  const max = opts.max ?? 10_000;
  return z
    .string({ error: 'must be a string' })
    .trim()
    .max(max, { error: `must be at most ${max} characters` })
    .refine(hasNoNul, { error: NUL_MESSAGE })
    .nullish()
    .transform((v) => (v === undefined || v === null || v === '' ? undefined : v));
}

export function httpUrl(opts: { max?: number } = {}) {
  const max = opts.max ?? 2048;
  return z
    .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string') })
    .trim()
    .max(max, { error: `must be at most ${max} characters` })
    .refine(isHttpUrl, { error: 'must be a valid HTTP or HTTPS URL' });
}

export function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
  } catch {
    return false;
  }
}

/** `{ error, details }` — the one error body of every endpoint. */
export const errorBody = z.object({
  error: z.string(),
  details: z.union([z.string(), z.array(z.string())]),
});

export const paginationQuery = z.object({
  limit: z.coerce.number({ error: 'must be a number' }).int().min(1).max(500).default(50),
  offset: z.coerce.number({ error: 'must be a number' }).int().min(0).max(1_000_000).default(0),
});

/** An ISO 8601 date or date-time in a query string (the operator's from / to), as a Date. */
export const isoInstant = z
  .string({ error: 'must be an ISO 8601 date' })
  .max(40)
  .refine((v) => /^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v)), { error: 'must be an ISO 8601 date' })
  .transform((v) => new Date(v));
