import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * Every setting of every kbchat service, parsed once at start.
 * No other module reads process.env: they get the parsed Config.
 * `.env.example` lists each key with its default (a test keeps the two in step).
 */

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce
    .number({ message: 'must be a number' })
    .int({ message: 'must be a whole number' })
    .min(min, { message: `must be at least ${min}` })
    .max(max, { message: `must be at most ${max}` });

const url = (protocols: string[]) =>
  z.string().refine(
    (v) => {
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    },
    { message: `must be a URL (${protocols.join(' or ')})` },
  );

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

function isAddressOrCidr(v: string): boolean {
  if (v === 'loopback' || v === 'linklocal' || v === 'uniquelocal') return true;
  const [address, bits, ...rest] = v.split('/');
  if (rest.length > 0 || !address || isIP(address) === 0) return false;
  if (bits === undefined) return true;
  const max = isIP(address) === 4 ? 32 : 128;
  return /^[0-9]{1,3}$/.test(bits) && Number(bits) <= max;
}

const configObject = z.object({
  // Process
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** auto: one readable line per event on a terminal (stdout a TTY), JSON lines otherwise (log collectors). */
  LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  /** Which services this process runs: all (default), or a comma list of gateway, crawler, embedder. */
  RUN: z
    .string()
    .default('all')
    .transform((v) => v.split(',').map((s) => s.trim()))
    .pipe(z.array(z.enum(['all', 'gateway', 'crawler', 'embedder'])).min(1))
    .transform((list): Service[] => (list.includes('all') ? ['gateway', 'crawler', 'embedder'] : [...new Set(list as Service[])])),
  SHUTDOWN_TIMEOUT_MS: int(100, 600_000).default(15_000),
  /** How often the process hands the memory glibc keeps back to the system (malloc-trim.ts); 0: never. */
  MALLOC_TRIM_INTERVAL_MS: int(0, 86_400_000).default(60_000),
  DATA_DIR: z.string().min(1).default('./data'),

  // HTTP (gateway)
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: int(0, 65_535).default(3000),
  /** Worker-only processes (RUN without gateway) serve /healthz and /readyz here when set. */
  HEALTH_PORT: optionalString.pipe(
    z
      .string()
      .regex(/^\d{1,5}$/, { message: 'must be a port number' })
      .transform(Number)
      .refine((n) => n <= 65_535, { message: 'must be at most 65535' })
      .optional(),
  ),
  /** Public base URL used in links the API returns (statusUrl); derived from the request when unset. */
  PUBLIC_URL: optionalString.pipe(url(['http:', 'https:']).optional()),
  /**
   * Whose X-Forwarded-For to believe: false (nobody), a comma list of the proxies' addresses/CIDRs
   * (or loopback, linklocal, uniquelocal), or true (every hop — then the leftmost entry, which the
   * caller may have written, becomes the client IP and per-IP lead limits can be dodged).
   * No hop count: Fastify 5 ignores one, as it cannot tell a proxy from a client that adds hops.
   */
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((raw, ctx): boolean | string[] => {
      const v = raw.trim();
      if (v === 'true' || v === '1' || v === 'yes') return true;
      if (v === 'false' || v === 'no' || v === '0' || v === '') return false;
      const list = v.split(',').map((s) => s.trim());
      if (list.every(isAddressOrCidr)) return list;
      ctx.addIssue({ code: 'custom', message: 'must be true, false or a comma list of proxy addresses/CIDRs' });
      return z.NEVER;
    }),
  BODY_LIMIT_BYTES: int(1024, 50 * 1024 * 1024).default(64 * 1024),
  /**
   * Slow and stalled clients (docs/SECURITY.md §7). A request's line, headers and body must all
   * arrive within HTTP_REQUEST_TIMEOUT_MS, the headers within HTTP_HEADERS_TIMEOUT_MS: else 408 and
   * the socket closes. Only receiving is timed: a long answer (the SSE chat stream) is not a stalled body.
   */
  HTTP_REQUEST_TIMEOUT_MS: int(100, 3_600_000).default(30_000),
  HTTP_HEADERS_TIMEOUT_MS: int(100, 3_600_000).default(10_000),
  /** An idle keep-alive connection is closed after this (above a load balancer's idle timeout, e.g. ALB's 60 s). */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: int(0, 3_600_000).default(72_000),
  /** A connection with no bytes either way for this long is closed (a client that stops reading); 0: never. Must exceed CRAWL_SYNC_WAIT_MS. */
  HTTP_CONNECTION_TIMEOUT_MS: int(0, 86_400_000).default(180_000),
  /** Requests one keep-alive connection may carry before it is closed; 0: no limit. */
  HTTP_MAX_REQUESTS_PER_SOCKET: int(0, 1_000_000).default(0),
  /** Open connections the gateway accepts; more are closed at once. 0: three quarters of the process's open-file limit. */
  HTTP_MAX_CONNECTIONS: int(0, 10_000_000).default(0),
  /** Largest file POST /api/admin/clients/:clientId/sources/files takes (413 above it); a text source's body limit is 1 MB. */
  SOURCE_FILE_MAX_BYTES: int(1024, 500 * 1024 * 1024).default(20 * 1024 * 1024),
  /**
   * Bearer key for /api/admin/* and /admin/*. Unset: only loopback callers are served. Refused at
   * start when it could never match (whitespace at either end: the header is trimmed; characters a
   * header cannot carry) or is guessable (fewer than 5 different characters, e.g. one repeated).
   */
  ADMIN_API_KEY: optionalString.pipe(
    z
      .string()
      .min(16, { message: 'must be at least 16 characters' })
      .refine((v) => v.trim() === v, { message: 'must not start or end with whitespace (the Authorization header is trimmed)' })
      .refine((v) => /^[\x20-\x7e]*$/.test(v), { message: 'must be printable ASCII (it travels in a header)' })
      .refine((v) => new Set(v).size >= 5, { message: 'must have at least 5 different characters (e.g. openssl rand -hex 32)' })
      .optional(),
  ),
  /** Wrong admin keys one address (an IPv6 /64) may send in a sliding minute; then 429 for every admin request from it, the right key included. */
  ADMIN_AUTH_FAILURES_PER_MINUTE: int(1, 1_000_000).default(20),

  // Storage
  /** Postgres with pgvector. Unset: an embedded PGlite under DATA_DIR, served over the wire protocol. */
  DATABASE_URL: optionalString.pipe(url(['postgres:', 'postgresql:']).optional()),
  DATABASE_POOL_MAX: int(1, 500).default(10),
  /**
   * The chat path's statements are prepared once per connection (db/pool.ts). false: every call is
   * parsed anew, for a pooler that cannot keep a prepared statement on a server connection
   * (PgBouncer in transaction mode before 1.21, or with max_prepared_statements = 0).
   */
  DATABASE_PREPARED_STATEMENTS: bool.default(true),
  /** Unset: redis://127.0.0.1:6379, or a private redis-server under DATA_DIR when none answers there. */
  REDIS_URL: optionalString.pipe(url(['redis:', 'rediss:']).optional()),
  /** Prefix of every Redis key kbchat writes (queues use it as a {hash tag} for Redis Cluster). */
  /**
   * Unset: `kbchat`, except on the embedded database, where it is `kbchat-` and the database's own
   * id, so two installs on one Redis never share queues (docs/pipeline.md "One database per queue").
   */
  REDIS_PREFIX: optionalString.pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9:_-]{1,64}$/, { message: 'must be 1-64 characters of A-Z a-z 0-9 : _ -' })
      .optional(),
  ),

  // Providers
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: optionalString.pipe(url(['http:', 'https:']).optional()),
  OPENAI_CHAT_MODEL: z.string().min(1).default('gpt-4o-mini'),
  OPENAI_EMBEDDING_MODEL: z.string().min(1).default('text-embedding-3-small'),
  OPENAI_TIMEOUT_MS: int(100, 600_000).default(30_000),
  OPENAI_MAX_RETRIES: int(0, 10).default(2),
  /** Sampling temperature of answers (0-2); low keeps the model close to the passages. */
  OPENAI_CHAT_TEMPERATURE: z.coerce
    .number({ message: 'must be a number' })
    .min(0, { message: 'must be at least 0' })
    .max(2, { message: 'must be at most 2' })
    .default(0.2),
  /** Upper bound on an answer's length in tokens (sent as max_completion_tokens). */
  OPENAI_CHAT_MAX_TOKENS: int(16, 100_000).default(800),
  /** auto: openai when OPENAI_API_KEY is set, else the offline provider. */
  CHAT_PROVIDER: z.enum(['auto', 'openai', 'extractive']).default('auto'),
  EMBEDDING_PROVIDER: z.enum(['auto', 'openai', 'local']).default('auto'),

  // Limits
  CHAT_RATE_LIMIT_PER_MINUTE: int(1, 1_000_000).default(60),
  /**
   * One visitor's share of it, per address (an IPv6 /64) and per sessionId, so a single visitor
   * cannot spend the client's whole minute; keep it below CHAT_RATE_LIMIT_PER_MINUTE.
   */
  CHAT_VISITOR_RATE_LIMIT_PER_MINUTE: int(1, 1_000_000).default(20),
  /** Leads one IP (an IPv6 /64) may submit per client per hour: form spam stops here. */
  LEAD_RATE_LIMIT_PER_HOUR: int(1, 1_000_000).default(20),
  /** Leads one client accepts per hour from every address together: a flood from many addresses stops here. */
  LEAD_CLIENT_LIMIT_PER_HOUR: int(1, 1_000_000).default(200),
  MAX_PAGES_DEFAULT: int(1, 1_000_000).default(50),
  MAX_PAGES_LIMIT: int(1, 1_000_000).default(1000),

  // Chat and retrieval (docs/retrieval.md)
  /** Messages of the session (both roles) used to rewrite a follow-up and sent to the model as history. */
  CHAT_HISTORY_MESSAGES: int(0, 100).default(10),
  /** Query embeddings kept in Redis this long (0 disables the cache); ~6 KB each. */
  QUERY_EMBEDDING_CACHE_TTL_SECONDS: int(0, 2_592_000).default(3600),
  /** Rows taken from each of the vector and the full-text lists before fusion. */
  RETRIEVAL_CANDIDATES: int(1, 200).default(20),
  /** Passages handed to the chat model. */
  RETRIEVAL_PASSAGES: int(1, 50).default(6),
  /** Tenants of at most this many chunks are searched by exact scan; larger ones through an HNSW index of their own once built (docs/retrieval.md). */
  RETRIEVAL_EXACT_SCAN_MAX_DOCS: int(0, 100_000_000).default(2000),
  /** hnsw.ef_search for the HNSW scan (set per transaction). */
  RETRIEVAL_HNSW_EF_SEARCH: int(10, 1000).default(100),
  /**
   * Decline a question when at least this share of its words' idf mass occurs in no page of the
   * client (docs/retrieval.md "Declining"); 1 never declines (measuring the ranking alone).
   */
  RETRIEVAL_MAX_ABSENT_SHARE: optionalString.pipe(
    z
      .string()
      .transform(Number)
      .pipe(z.number({ message: 'must be a number' }).gt(0).max(1))
      .optional(),
  ),
  /** Candidate lists: hybrid (vector + full text, the default); vector or fulltext alone are for measuring (bench/retrieval.ts). */
  RETRIEVAL_MODE: z.enum(['hybrid', 'vector', 'fulltext']).default('hybrid'),

  // Crawl and embedding pipeline (docs/pipeline.md)
  /** POST /api/admin/crawl and generate-embeddings wait this long for the result before answering 202 with a statusUrl. */
  CRAWL_SYNC_WAIT_MS: int(0, 3_600_000).default(120_000),
  /** Requests in flight to one host, across every crawler process (held in Redis). */
  CRAWL_PER_HOST_CONCURRENCY: int(1, 64).default(4),
  /** Whole-request timeout of one page fetch. */
  CRAWL_FETCH_TIMEOUT_MS: int(1_000, 300_000).default(15_000),
  /** Pages larger than this are skipped ('too-large'). */
  CRAWL_MAX_PAGE_BYTES: int(16_384, 104_857_600).default(5_242_880),
  /** Time one page's HTML gets to be parsed (on a worker thread); past it the page is skipped ('parse-timeout'). */
  CRAWL_PARSE_TIMEOUT_MS: int(100, 300_000).default(10_000),
  /** Time Chromium gets to render one page (render: auto|always). */
  CRAWL_RENDER_TIMEOUT_MS: int(1_000, 300_000).default(20_000),
  /** Chromium for render: auto|always; empty: /usr/bin/chromium, chromium-browser or google-chrome. None found: pages are indexed from static HTML. */
  CHROMIUM_PATH: optionalString,
  /** Attempts per page on retryable failures (5xx, 429, timeouts, network errors), with exponential backoff. */
  CRAWL_PAGE_ATTEMPTS: int(1, 20).default(3),
  CRAWL_RETRY_DELAY_MS: int(10, 600_000).default(2_000),
  /** Attempts of one embed job when the provider keeps failing (after the SDK's own retries), with exponential backoff. */
  EMBED_JOB_ATTEMPTS: int(1, 20).default(5),
  EMBED_RETRY_DELAY_MS: int(10, 600_000).default(2_000),
  /** Per embeddings request (the OpenAI API allows 2048 inputs and 300k tokens; some compatible servers allow fewer). */
  EMBED_BATCH_MAX_INPUTS: int(1, 2048).default(2048),
  EMBED_BATCH_MAX_TOKENS: int(8_191, 300_000).default(300_000),
  /** Job lock of crawl and embed workers: a killed worker's jobs return to the queue within about twice this. */
  WORKER_LOCK_MS: int(1_000, 600_000).default(30_000),
  /** How often the pipeline watchdog re-enqueues work a crash or a Redis outage left behind. */
  PIPELINE_WATCHDOG_MS: int(500, 3_600_000).default(15_000),
  /** How often conversations past their client's transcriptRetentionDays are deleted (an embedder process runs it). */
  RETENTION_SWEEP_MS: int(1_000, 86_400_000).default(3_600_000),
  /**
   * How often tenants past RETRIEVAL_EXACT_SCAN_MAX_DOCS get their own HNSW index built (and shrunk or
   * deleted ones lose it): an embedder process runs it, on a Postgres server (the embedded database
   * always scans exactly).
   */
  VECTOR_INDEX_SWEEP_MS: int(1_000, 86_400_000).default(30_000),

  // Workers
  CRAWL_CONCURRENCY: int(1, 256).default(8),
  EMBED_CONCURRENCY: int(1, 64).default(2),
  WEBHOOK_CONCURRENCY: int(1, 256).default(16),
  WEBHOOK_TIMEOUT_MS: int(100, 120_000).default(10_000),
  /** Delivery attempts of one lead webhook while the receiver is unreachable (a non-2xx answer is never retried). */
  WEBHOOK_MAX_ATTEMPTS: int(1, 100).default(12),
  /** First retry delay; each further retry doubles it (12 attempts at 5 s span about 2.8 hours). */
  WEBHOOK_BACKOFF_MS: int(10, 3_600_000).default(5_000),
  /** In-flight deliveries per client, so one client's slow receiver cannot take every webhook slot. */
  WEBHOOK_PER_CLIENT_CONCURRENCY: int(1, 256).default(4),
  /** How often the crawler looks for committed leads whose webhook job never reached Redis. */
  WEBHOOK_OUTBOX_SWEEP_MS: int(100, 3_600_000).default(5_000),
  /** A pending lead younger than this is left to the request that created it. */
  WEBHOOK_OUTBOX_MIN_AGE_MS: int(0, 3_600_000).default(5_000),
  /** A queued lead not seen in Redis for this long has its job looked up, and re-enqueued if it vanished. */
  WEBHOOK_OUTBOX_STALE_MS: int(1_000, 86_400_000).default(60_000),
  /** Allow requests to loopback/private addresses from user-supplied URLs (tests and local demos only). */
  OUTBOUND_ALLOW_PRIVATE_NETWORKS: bool.default(false),
});

export const DEFAULT_REDIS_PREFIX = 'kbchat';

export const configSchema = configObject
  .superRefine((c, ctx) => {
    for (const key of ['CHAT_PROVIDER', 'EMBEDDING_PROVIDER'] as const) {
      if (c[key] === 'openai' && c.OPENAI_API_KEY === undefined) {
        ctx.addIssue({ code: 'custom', path: [key], message: 'is openai but OPENAI_API_KEY is not set' });
      }
    }
    if (c.HTTP_HEADERS_TIMEOUT_MS > c.HTTP_REQUEST_TIMEOUT_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['HTTP_HEADERS_TIMEOUT_MS'],
        message: `must not exceed HTTP_REQUEST_TIMEOUT_MS (${c.HTTP_REQUEST_TIMEOUT_MS})`,
      });
    }
    if (c.HTTP_CONNECTION_TIMEOUT_MS !== 0 && c.HTTP_CONNECTION_TIMEOUT_MS <= c.CRAWL_SYNC_WAIT_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['HTTP_CONNECTION_TIMEOUT_MS'],
        message: `must be 0 or exceed CRAWL_SYNC_WAIT_MS (${c.CRAWL_SYNC_WAIT_MS}): a synchronous crawl sends nothing while it waits`,
      });
    }
    if (c.MAX_PAGES_DEFAULT > c.MAX_PAGES_LIMIT) {
      ctx.addIssue({ code: 'custom', path: ['MAX_PAGES_DEFAULT'], message: `must not exceed MAX_PAGES_LIMIT (${c.MAX_PAGES_LIMIT})` });
    }
  })
  // REDIS_PREFIX_SET tells the runtime whether it may derive the prefix (embedded database).
  .transform((c) => ({ ...c, REDIS_PREFIX: c.REDIS_PREFIX ?? DEFAULT_REDIS_PREFIX, REDIS_PREFIX_SET: c.REDIS_PREFIX !== undefined }));

/** Every variable the service reads. */
export const configKeys = Object.keys(configObject.shape) as (keyof typeof configObject.shape)[];

export type Service = 'gateway' | 'crawler' | 'embedder';
export type Config = z.output<typeof configSchema>;
export type ConfigInput = Partial<Record<(typeof configKeys)[number], string>>;

export class ConfigError extends Error {
  readonly issues: string[];
  constructor(issues: string[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

/** Parses the environment once. Throws ConfigError naming each bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const known = Object.fromEntries(configKeys.map((k) => [k, env[k]]));
  const parsed = configSchema.safeParse(known);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const key = String(issue.path[0] ?? '(config)');
        const value = env[key];
        const shown = value === undefined ? 'unset' : isSecretKey(key) ? '<redacted>' : JSON.stringify(value);
        return `${key} ${issue.message} (got ${shown})`;
      }),
    );
  }
  return parsed.data;
}

const SECRET_KEYS = new Set(['ADMIN_API_KEY', 'OPENAI_API_KEY', 'DATABASE_URL', 'REDIS_URL']);
function isSecretKey(key: string): boolean {
  return SECRET_KEYS.has(key) || /(KEY|SECRET|PASSWORD|TOKEN)$/.test(key);
}

/** Config as safe to log: secrets replaced, credentials stripped from URLs. */
export function describeConfig(config: Config): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    if (value === undefined) continue;
    if (key === 'DATABASE_URL' || key === 'REDIS_URL') out[key] = redactUrl(String(value));
    else if (isSecretKey(key)) out[key] = '<set>';
    else out[key] = value;
  }
  return out;
}

export function redactUrl(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '<unparseable>';
  }
}

/**
 * How often Node looks for requests past HTTP_REQUEST_TIMEOUT_MS / HTTP_HEADERS_TIMEOUT_MS: its
 * default, 30 s, made a 60 s header timeout fire at ~88 s. A tenth of the header timeout, 100 ms–5 s.
 */
export function httpCheckIntervalMs(config: Pick<Config, 'HTTP_HEADERS_TIMEOUT_MS'>): number {
  return Math.min(5_000, Math.max(100, Math.floor(config.HTTP_HEADERS_TIMEOUT_MS / 10)));
}

/** The providers actually used, after resolving `auto`. */
export function resolvedProviders(config: Config): { chat: 'openai' | 'extractive'; embedding: 'openai' | 'local' } {
  const hasKey = config.OPENAI_API_KEY !== undefined;
  return {
    chat: config.CHAT_PROVIDER === 'auto' ? (hasKey ? 'openai' : 'extractive') : config.CHAT_PROVIDER,
    embedding: config.EMBEDDING_PROVIDER === 'auto' ? (hasKey ? 'openai' : 'local') : config.EMBEDDING_PROVIDER,
  };
}
