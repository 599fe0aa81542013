import { z } from 'zod';
import { httpUrl, isoInstant, requiredString } from './common.ts';

/** At most this many other wordings of one curated answer's question. */
export const MAX_ALTERNATE_QUESTIONS = 20;

const question = () => requiredString({ max: 500 });
/** Other ways visitors ask for the answer (a knowledge gap's wording): matched like the question. */
const alternateQuestions = () =>
  z
    .array(question(), { error: 'must be an array of strings' })
    .max(MAX_ALTERNATE_QUESTIONS, { error: `at most ${MAX_ALTERNATE_QUESTIONS} alternate questions` });

/** POST /api/admin/clients/:clientId/answers (docs/operators.md "Curated answers"). */
export const curatedAnswerBody = z.object({
  question: question(),
  alternateQuestions: alternateQuestions().optional(),
  answer: requiredString({ max: 4000 }),
  /** A page the visitor can open; answers from it cite it (none when absent). */
  url: httpUrl().nullish(),
});

export const curatedAnswerPatch = z
  .object({
    question: question().optional(),
    /** Replaces the list. */
    alternateQuestions: alternateQuestions().optional(),
    answer: requiredString({ max: 4000 }).optional(),
    url: httpUrl().nullish(),
  })
  .strict()
  .refine((p) => Object.keys(p).length > 0, { error: 'send at least one of question, alternateQuestions, answer, url' });

/** POST …/answers/:answerId/questions: one more way of asking, added to the list (a knowledge gap's). */
export const alternateQuestionBody = z.object({ question: question() }).strict();

export const curatedAnswerView = z.object({
  answerId: z.string(),
  question: z.string(),
  alternateQuestions: z.array(z.string()),
  answer: z.string(),
  url: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const curatedAnswerList = z.object({ items: z.array(curatedAnswerView) });

/** GET …/knowledge-gaps: from defaults to 30 days before to, to to now. */
export const knowledgeGapsQuery = z
  .object({ from: isoInstant.optional(), to: isoInstant.optional() })
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
      closestAnswerId: z.string().nullable(),
    }),
  ),
});
