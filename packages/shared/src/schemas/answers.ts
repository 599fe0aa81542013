import { z } from 'zod';
import { httpUrl, requiredString } from './common.ts';

/** POST /api/admin/clients/:clientId/answers (docs/operators.md "Curated answers"). */
export const curatedAnswerBody = z.object({
  question: requiredString({ max: 500 }),
  answer: requiredString({ max: 4000 }),
  /** A page the visitor can open; answers from it cite it (none when absent). */
  url: httpUrl().nullish(),
});

export const curatedAnswerPatch = z
  .object({
    question: requiredString({ max: 500 }).optional(),
    answer: requiredString({ max: 4000 }).optional(),
    url: httpUrl().nullish(),
  })
  .strict()
  .refine((p) => Object.keys(p).length > 0, { error: 'send at least one of question, answer, url' });

export const curatedAnswerView = z.object({
  answerId: z.string(),
  question: z.string(),
  answer: z.string(),
  url: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const curatedAnswerList = z.object({ items: z.array(curatedAnswerView) });

const instant = z
  .string({ error: 'must be an ISO 8601 date' })
  .max(40)
  .refine((v) => /^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v)), { error: 'must be an ISO 8601 date' })
  .transform((v) => new Date(v));

/** GET …/knowledge-gaps: from defaults to 30 days before to, to to now. */
export const knowledgeGapsQuery = z
  .object({ from: instant.optional(), to: instant.optional() })
  .transform((q) => {
    const to = q.to ?? new Date();
    return { to, from: q.from ?? new Date(to.getTime() - 30 * 86_400_000) };
  })
  .refine((q) => q.from < q.to, { error: 'from must be before to', path: ['from'] });

export const knowledgeGapList = z.object({
  items: z.array(
    z.object({
      gapId: z.string(),
      question: z.string(),
      count: z.number(),
      lastAskedAt: z.string(),
      reason: z.enum(['declined', 'thumbs-down']),
      sessionIds: z.array(z.string()),
    }),
  ),
});
