import { z } from 'zod';
import { requiredString } from './common.ts';

/** Spec §8 leaves message and context size open; DESIGN.md §5 sets them. */
export const MAX_MESSAGE_CHARS = 4_000;
export const MAX_CONTEXT_BYTES = 8 * 1024;
/** Nesting allowed inside context: page metadata is flat; 6,000 levels once overflowed the stack (a 500). */
export const MAX_CONTEXT_DEPTH = 32;
export const SESSION_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

const sessionId = z
  .string({ error: 'must be a string' })
  .regex(SESSION_ID_PATTERN, { error: 'must be 1-128 characters of A-Z a-z 0-9 . _ : -' });

/** True when objects/arrays in value nest deeper than max levels (value itself is level 1). Iterative. */
export function nestingExceeds(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [node, depth] = item;
    if (node === null || typeof node !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** True when a key or string anywhere in value holds U+0000, which a Postgres jsonb cannot store. Iterative. */
function holdsNul(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'string') {
      if (node.includes('\u0000')) return true;
    } else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        if (key.includes('\u0000')) return true;
        stack.push(child);
      }
    }
  }
  return false;
}

/**
 * context carries pageUrl and whatever metadata the embedding page sends. Unknown keys are kept
 * (the caller's metadata) but the whole object is bounded, so a session row cannot be inflated.
 */
const context = z
  .object(
    {
      pageUrl: z.string({ error: 'must be a string' }).max(2048, { error: 'must be at most 2048 characters' }).optional(),
    },
    { error: 'must be an object' },
  )
  .catchall(z.unknown())
  .superRefine((value, ctx) => {
    // Depth first, without recursion: JSON.stringify below recurses and would overflow the stack.
    if (nestingExceeds(value, MAX_CONTEXT_DEPTH)) {
      ctx.addIssue({ code: 'custom', message: `must not nest objects or arrays more than ${MAX_CONTEXT_DEPTH} levels deep` });
      return;
    }
    // The session row keeps context as jsonb: a NUL reaching the INSERT was a 500.
    if (holdsNul(value)) {
      ctx.addIssue({ code: 'custom', message: 'must not contain NUL characters' });
      return;
    }
    const bytes = Buffer.byteLength(JSON.stringify(value), 'utf8');
    if (bytes > MAX_CONTEXT_BYTES) {
      ctx.addIssue({ code: 'custom', message: `must be at most ${MAX_CONTEXT_BYTES} bytes when serialized (got ${bytes})` });
    }
  });

/** Body of POST /api/chat and POST /api/chat/stream (spec §4.1). */
export const chatBody = z.object({
  // A malformed clientId is the spec's 404, not a 400: only presence and type are checked here.
  clientId: requiredString({ max: 200 }),
  message: requiredString({ max: MAX_MESSAGE_CHARS }),
  sessionId: sessionId.nullish().transform((v) => v ?? undefined),
  context: context.nullish().transform((v) => v ?? undefined),
});
export type ChatBody = z.output<typeof chatBody>;

export const chatSource = z.object({ title: z.string(), url: z.string() });
export type ChatSource = z.output<typeof chatSource>;

export const chatResponse = z.object({
  answer: z.string(),
  sources: z.array(chatSource),
  sessionId: z.string(),
  leadCaptureIntent: z.boolean(),
  /** Additive (docs/operators.md): the answer's id, which POST /api/feedback names. */
  messageId: z.string(),
});
export type ChatResponse = z.output<typeof chatResponse>;
