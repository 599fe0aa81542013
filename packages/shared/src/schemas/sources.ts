import { z } from 'zod';
import { httpUrl, requiredString } from './common.ts';

/** The most characters a text source takes (its JSON body is limited to 1 MB). */
export const MAX_TEXT_SOURCE_CHARS = 500_000;

/** POST /api/admin/clients/:clientId/sources/text (docs/sources.md). */
export const textSourceBody = z.object({
  title: requiredString({ max: 300 }),
  text: requiredString({ max: MAX_TEXT_SOURCE_CHARS }),
  /** A page the visitor can open for this text; answers cite it (else the gateway's /files/<sourceId>). */
  url: httpUrl().optional(),
});

/** The optional text fields of a file upload (multipart). */
export const fileSourceFields = z.object({
  title: requiredString({ max: 300 }).optional(),
  url: httpUrl().optional(),
});

/** 201 of a text or file source: its job embeds the documents (poll statusUrl). */
export const documentSourceCreated = z.object({
  success: z.boolean(),
  sourceId: z.string(),
  type: z.enum(['text', 'file']),
  title: z.string(),
  /** What answers from it cite. */
  url: z.string(),
  documentsCreated: z.number(),
  jobId: z.string(),
  statusUrl: z.string(),
  fileName: z.string().optional(),
  fileType: z.enum(['pdf', 'docx', 'html', 'markdown', 'text']).optional(),
});
