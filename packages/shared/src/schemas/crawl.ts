import { z } from 'zod';
import { MAX_SCOPE_PATTERN_LENGTH, MAX_SCOPE_PATTERNS } from '../crawl/scope.ts';
import { httpUrl, requiredString } from './common.ts';

/** include / exclude URL patterns (crawl/scope.ts): "/docs/**", "https://site/blog/*". */
export const scopePatterns = z
  .array(
    z
      .string({ error: 'must be an array of URL patterns' })
      .min(1, { error: 'a pattern must not be empty' })
      .max(MAX_SCOPE_PATTERN_LENGTH, { error: `a pattern must be at most ${MAX_SCOPE_PATTERN_LENGTH} characters` })
      .regex(/^(\/|\*|https?:\/\/)\S*$/, { error: 'a pattern starts with "/", "*" or http(s):// and has no spaces' }),
    { error: 'must be an array of URL patterns' },
  )
  .max(MAX_SCOPE_PATTERNS, { error: `at most ${MAX_SCOPE_PATTERNS} patterns` });

/**
 * POST /api/admin/crawl (spec §4.2). Built per config: the maxPages bound is MAX_PAGES_LIMIT.
 * A missing clientId is a 400; a malformed or unknown one is a 404 (DESIGN.md §4), so the schema
 * only asks for a string.
 */
export function crawlRequestBody(maxPagesLimit: number) {
  return z.object({
    clientId: requiredString({ max: 200 }),
    url: httpUrl(),
    maxPages: z
      .number({ error: 'must be a positive integer' })
      .int({ error: 'must be a positive integer' })
      .min(1, { error: 'must be a positive integer' })
      .max(maxPagesLimit, { error: `must be at most ${maxPagesLimit} (the server's MAX_PAGES_LIMIT)` })
      .optional(),
    render: z.enum(['auto', 'never', 'always'], { error: 'must be auto, never or always' }).optional(),
    wait: z.boolean({ error: 'must be true or false' }).optional(),
    include: scopePatterns.optional(),
    exclude: scopePatterns.optional(),
  });
}

/** The spec's 200 body, exactly. */
export const crawlResult = z.object({
  success: z.boolean(),
  sourceId: z.string(),
  pagesIndexed: z.number(),
  documentsCreated: z.number(),
  message: z.string(),
});

/** 202: the job runs on; poll statusUrl (GET /api/admin/jobs/:jobId). */
export const jobAccepted = z.object({
  success: z.boolean(),
  jobId: z.string(),
  sourceId: z.string().nullable(),
  status: z.enum(['queued', 'active', 'completed', 'failed']),
  statusUrl: z.string(),
  message: z.string(),
});

export const sourceView = z.object({
  sourceId: z.string(),
  /** website (crawled), text or file (docs/sources.md). */
  type: z.enum(['website', 'text', 'file', 'answer']),
  /** A text's or file's title; null for a website. */
  title: z.string().nullable(),
  /** A website's start URL; for a text or file, what its answers cite. */
  url: z.string(),
  /** 'off', 'daily', 'weekly' or a cron pattern (UTC); nextRunAt null when off (or the queue is unreachable). */
  schedule: z.string(),
  nextRunAt: z.string().nullable(),
  /** What re-crawls of this source reuse: the last crawl's maxPages, render and scope. */
  crawlOptions: z.object({
    maxPages: z.number().optional(),
    render: z.string().optional(),
    include: z.array(z.string()),
    exclude: z.array(z.string()),
  }),
  createdAt: z.string(),
  lastCrawledAt: z.string().nullable(),
  pages: z.number(),
  documents: z.number(),
  embeddedDocuments: z.number(),
  lastJob: z
    .object({
      jobId: z.string(),
      status: z.string(),
      createdAt: z.string(),
      finishedAt: z.string().nullable(),
      pagesIndexed: z.number(),
      message: z.string().nullable(),
    })
    .nullable(),
});

/** PATCH …/sources/:sourceId */
export const sourcePatchBody = z
  .object({
    schedule: z.string({ error: 'must be "off", "daily", "weekly" or a cron pattern' }).min(1).max(100),
  })
  .strict();

/** GET …/sources/:sourceId/changes */
export const changesQuery = z.object({
  limit: z.coerce
    .number({ error: 'must be an integer from 1 to 100' })
    .int({ error: 'must be an integer from 1 to 100' })
    .min(1, { error: 'must be an integer from 1 to 100' })
    .max(100, { error: 'must be an integer from 1 to 100' })
    .default(10),
});

export const crawlChangesView = z.object({
  sourceId: z.string(),
  crawls: z.array(
    z.object({
      jobId: z.string(),
      status: z.string(),
      startedAt: z.string().nullable(),
      finishedAt: z.string().nullable(),
      counts: z.object({ added: z.number(), changed: z.number(), removed: z.number() }),
      added: z.array(z.string()),
      changed: z.array(z.string()),
      removed: z.array(z.string()),
    }),
  ),
});
