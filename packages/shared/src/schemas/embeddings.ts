import { z } from 'zod';
import { requiredString } from './common.ts';

/** POST /api/admin/generate-embeddings (spec §4.3). */
export const generateEmbeddingsBody = z.object({
  clientId: requiredString({ max: 200 }),
  wait: z.boolean({ error: 'must be true or false' }).optional(),
});

/** The spec's 200 body, exactly. */
export const generateEmbeddingsResult = z.object({
  success: z.boolean(),
  processed: z.number(),
  skipped: z.number(),
  message: z.string(),
});

export const documentsQuery = z.object({
  limit: z.coerce
    .number({ error: 'must be a number' })
    .int({ error: 'must be a whole number' })
    .min(1, { error: 'must be at least 1' })
    .max(500, { error: 'must be at most 500' })
    .default(50),
  offset: z.coerce
    .number({ error: 'must be a number' })
    .int({ error: 'must be a whole number' })
    .min(0, { error: 'must be at least 0' })
    .max(10_000_000, { error: 'must be at most 10000000' })
    .default(0),
});

export const documentView = z.object({
  id: z.string(),
  sourceId: z.string().nullable(),
  url: z.string(),
  title: z.string(),
  heading: z.string().nullable(),
  chunkIndex: z.number(),
  tokenCount: z.number().nullable(),
  embeddingModel: z.string().nullable(),
  contentPreview: z.string(),
});

export const documentsPage = z.object({
  stats: z.object({ total: z.number(), embedded: z.number(), byModel: z.record(z.string(), z.number()) }),
  documents: z.array(documentView),
  limit: z.number(),
  offset: z.number(),
});
