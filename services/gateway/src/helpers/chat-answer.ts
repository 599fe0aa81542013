import type { ChatRequest } from '@kbchat/shared/chat/chat-service';
import { AppError, isUnavailableError } from '@kbchat/shared/errors';
import type { chatBody } from '@kbchat/shared/schemas/chat';
import type { FastifyBaseLogger } from 'fastify';
import type { z } from 'zod';

/** What /api/chat and /api/chat/stream share: the service request, and what a caller may see of a failure. */

type ChatBody = z.output<typeof chatBody>;

/** The service's request from a validated body: the same for /api/chat and /api/chat/stream. */
export function chatRequest(client: ChatRequest['client'], body: ChatBody, signal: AbortSignal): ChatRequest {
  return {
    client,
    message: body.message,
    ...(body.sessionId ? { sessionId: body.sessionId } : {}),
    ...(body.context?.pageUrl ? { pageUrl: body.context.pageUrl } : {}),
    signal,
  };
}

const ANSWER_FAILED = 'the answer could not be generated; please try again later';

/**
 * What a caller may see of a failure. An AppError of 5xx raised below us (a model provider that
 * failed, whose message names hosts and models) becomes the spec's plain 500; the original is
 * logged. Client errors and unavailable backing services keep their meaning.
 */
export function publicChatError(err: unknown, log: FastifyBaseLogger): unknown {
  if (err instanceof AppError && err.statusCode >= 500) {
    log.error({ err: { name: err.name, message: err.message, status: err.statusCode } }, 'chat answer failed');
    return new AppError(500, 'Internal server error', [ANSWER_FAILED]);
  }
  return err;
}

/** The `{error, details}` of an `event: error`, with no internals (same rules as the JSON error handler). */
export function streamErrorBody(err: unknown): { error: string; details: string[] } {
  if (err instanceof AppError && err.statusCode < 500) {
    return { error: err.message, details: Array.isArray(err.details) ? err.details.map(String) : err.details ? [String(err.details)] : [] };
  }
  if (isUnavailableError(err)) return { error: 'Service unavailable', details: ['a backing service is not reachable; retry shortly'] };
  return { error: 'Internal server error', details: [ANSWER_FAILED] };
}
