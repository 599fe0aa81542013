import { z } from 'zod';
import { isoInstant, paginationQuery, requiredString } from './common.ts';

const booleanParam = z.enum(['true', 'false'], { error: 'must be true or false' }).transform((v) => v === 'true');

/** GET /api/admin/clients/:clientId/conversations (docs/operators.md). */
export const conversationsQuery = paginationQuery
  .extend({
    from: isoInstant.optional(),
    to: isoInstant.optional(),
    q: z.string().trim().min(1, { error: 'must not be empty' }).max(200, { error: 'must be at most 200 characters' }).optional(),
    lead: booleanParam.optional(),
    feedback: z.enum(['up', 'down'], { error: 'must be up or down' }).optional(),
  })
  .refine((q) => !q.from || !q.to || q.from < q.to, { error: 'from must be before to', path: ['from'] });

export const conversationSummary = z.object({
  sessionId: z.string(),
  startedAt: z.string(),
  lastMessageAt: z.string(),
  messageCount: z.number(),
  firstQuestion: z.string().nullable(),
  pageUrl: z.string().nullable(),
  leadCaptured: z.boolean(),
  declinedCount: z.number(),
  feedback: z.object({ up: z.number(), down: z.number() }),
});
export const conversationList = z.object({ items: z.array(conversationSummary), total: z.number() });

export const transcriptMessage = z.object({
  messageId: z.string(),
  role: z.enum(['user', 'assistant']),
  content: z.string(),
  sources: z.array(z.object({ title: z.string(), url: z.string() })),
  leadCaptureIntent: z.boolean(),
  declined: z.boolean(),
  feedback: z.enum(['up', 'down']).nullable(),
  feedbackComment: z.string().nullable(),
  createdAt: z.string(),
});
export const conversationView = z.object({ sessionId: z.string(), messages: z.array(transcriptMessage) });

/** POST /api/feedback: public like /api/chat. */
export const feedbackBody = z.object({
  clientId: requiredString({ max: 200 }),
  sessionId: requiredString({ max: 128 }),
  messageId: requiredString({ max: 64 }),
  rating: z.enum(['up', 'down'], { error: 'must be up or down' }),
  comment: z.string({ error: 'must be a string' }).trim().max(2000, { error: 'must be at most 2000 characters' }).optional(),
});

/** GET /api/admin/clients/:clientId/stats. from defaults to 30 days before to; to to now. At most 400 buckets. */
export const statsQuery = z
  .object({
    from: isoInstant.optional(),
    to: isoInstant.optional(),
    interval: z.enum(['day', 'week'], { error: 'must be day or week' }).default('day'),
  })
  .transform((q) => {
    const to = q.to ?? new Date();
    return { ...q, to, from: q.from ?? new Date(to.getTime() - 30 * 86_400_000) };
  })
  .refine((q) => q.from < q.to, { error: 'from must be before to', path: ['from'] })
  .refine((q) => (q.to.getTime() - q.from.getTime()) / ((q.interval === 'day' ? 1 : 7) * 86_400_000) <= 400, {
    error: 'at most 400 intervals: widen the interval or narrow from / to',
    path: ['from'],
  });

const statsFields = {
  conversations: z.number(),
  messages: z.number(),
  answered: z.number(),
  declined: z.number(),
  leads: z.number(),
  feedbackUp: z.number(),
  feedbackDown: z.number(),
  tokens: z.number(),
  costUsd: z.number(),
};
export const statsView = z.object({
  series: z.array(z.object({ start: z.string(), ...statsFields })),
  totals: z.object(statsFields),
});
