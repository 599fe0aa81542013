import { z } from 'zod';
import { httpUrl, requiredString } from './common.ts';

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
  url: z.string(),
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
