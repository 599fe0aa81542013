import { createRequire } from 'node:module';
import type OpenAI from 'openai';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';

/**
 * One place that builds the official SDK client from Config and turns its failures into errors an
 * operator can act on. The SDK retries 408/409/429/5xx and connection errors itself, with
 * exponential backoff that honours Retry-After (up to 60 s), OPENAI_MAX_RETRIES times.
 */
export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * The SDK, loaded the first time an openai provider is used: it holds ~40 MB that the offline
 * defaults never need (docs/performance.md, idle memory). require() keeps creation synchronous, and
 * the client and the error classes below come from the same module, so instanceof holds.
 */
let sdk: typeof import('openai') | undefined;
function openaiSdk(): typeof import('openai') {
  sdk ??= createRequire(import.meta.url)('openai') as typeof import('openai');
  return sdk;
}

export function createOpenAIClient(config: Config): OpenAI {
  if (config.OPENAI_API_KEY === undefined) throw new Error('OPENAI_API_KEY is required for the openai providers');
  return new (openaiSdk().default)({
    apiKey: config.OPENAI_API_KEY,
    // Explicit values, so the SDK does not read OPENAI_BASE_URL / OPENAI_ORG_ID / OPENAI_LOG behind
    // Config's back.
    baseURL: config.OPENAI_BASE_URL ?? DEFAULT_OPENAI_BASE_URL,
    organization: null,
    project: null,
    timeout: config.OPENAI_TIMEOUT_MS,
    maxRetries: config.OPENAI_MAX_RETRIES,
    logLevel: 'off',
  });
}

export type ProviderOperation = 'embeddings' | 'chat' | 'rewrite';

/**
 * A model provider call that failed after the SDK's retries. `retryable` says whether trying later
 * may help (rate limit, 5xx, network, timeout) or the request/config is wrong (bad key, 4xx).
 * HTTP status: 503 when retryable, else 502 — the upstream, not the caller, failed.
 */
export class ProviderError extends AppError {
  readonly provider: string;
  readonly operation: ProviderOperation;
  readonly upstreamStatus: number | undefined;
  readonly retryable: boolean;
  // No `cause`: the SDK error can carry upstream text that echoes part of the key into logs.
  constructor(opts: { provider: string; operation: ProviderOperation; message: string; upstreamStatus?: number; retryable: boolean }) {
    super(
      opts.retryable ? 503 : 502,
      opts.message,
      opts.retryable ? 'The model provider is unavailable; try again later' : 'The model provider rejected the request',
    );
    this.provider = opts.provider;
    this.operation = opts.operation;
    this.upstreamStatus = opts.upstreamStatus;
    this.retryable = opts.retryable;
  }
}

/** Upstream messages can echo a (partly masked) key: never let one through. */
export function redactSecrets(text: string, secret?: string): string {
  let out = secret ? text.split(secret).join('[redacted]') : text;
  out = out.replace(/\b(sk|rk|pk|sess)-[A-Za-z0-9_*.-]{4,}/g, '[redacted]');
  return out;
}

const HINTS: Record<number, string> = {
  400: 'the request was rejected as invalid',
  401: 'the API key was rejected — check OPENAI_API_KEY',
  403: 'the API key may not use this model or endpoint',
  404: 'the model or endpoint was not found — check the model name and OPENAI_BASE_URL',
  429: 'rate limit or quota exceeded',
};

export function toProviderError(err: unknown, operation: ProviderOperation, model: string, secret?: string): unknown {
  if (err instanceof ProviderError) return err;
  const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } = openaiSdk();
  if (err instanceof APIUserAbortError) return err;
  const what = `OpenAI ${operation} request (model ${model})`;
  if (err instanceof APIConnectionTimeoutError) {
    return new ProviderError({ provider: 'openai', operation, retryable: true, message: `${what} timed out` });
  }
  if (err instanceof APIConnectionError) {
    const reason = redactSecrets(String((err.cause as Error | undefined)?.message ?? err.message), secret);
    return new ProviderError({ provider: 'openai', operation, retryable: true, message: `${what} could not connect: ${reason}` });
  }
  if (err instanceof APIError) {
    const status = err.status as number | undefined;
    const hint = status === undefined ? undefined : (HINTS[status] ?? (status >= 500 ? 'the provider failed' : undefined));
    const upstream = redactSecrets(err.message, secret);
    const retryable = status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;
    return new ProviderError({
      provider: 'openai',
      operation,
      upstreamStatus: status,
      retryable,
      message: `${what} failed with ${status ?? 'no status'}${hint ? `: ${hint}` : ''} (${upstream})`,
    });
  }
  return err;
}
