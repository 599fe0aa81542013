import type { ChatService, PreparedChat } from '@kbchat/shared/chat/chat-service';
import { AppError } from '@kbchat/shared/errors';
import type { ChatResponse } from '@kbchat/shared/schemas/chat';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { publicChatError, streamErrorBody } from './chat-answer.ts';

/**
 * Writes a prepared chat answer as Server-Sent Events (docs/retrieval.md, "Streaming"):
 *   event: token  data: {"text": "..."}                                      (zero or more)
 *   event: done   data: {"answer","sources","sessionId","leadCaptureIntent"} (exactly once, last)
 *   event: error  data: {"error","details"}                                  (instead of done, then the stream ends)
 * Everything that can fail with a status has failed before this is called; from here on the
 * status is 200 and a failure is an `event: error`.
 */
export async function sendAnswerStream(
  service: ChatService,
  prepared: PreparedChat,
  req: FastifyRequest,
  reply: FastifyReply,
  signal: AbortSignal,
  /** Called with the final answer once its `done` event is written. */
  onDone?: (response: ChatResponse) => void,
): Promise<void> {
  // From here on the response is ours: Fastify's onSend hooks will not run, so the headers
  // set so far (CORS, RateLimit-*) are copied over by hand.
  reply.hijack();
  const raw = reply.raw;
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) raw.setHeader(name, value);
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    // nginx and similar proxies would otherwise buffer the whole answer.
    'x-accel-buffering': 'no',
    'x-request-id': req.id,
  });
  raw.flushHeaders();
  const send = (event: string, data: unknown) => {
    if (!raw.destroyed) raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  try {
    for await (const event of service.stream(prepared)) {
      if (signal.aborted) break;
      if (event.type === 'token') send('token', { text: event.text });
      else {
        send('done', event.response);
        onDone?.(event.response);
      }
    }
  } catch (err) {
    if (signal.aborted) req.log.info('chat stream: client disconnected');
    else {
      if (err instanceof AppError && err.statusCode >= 500) publicChatError(err, req.log);
      else req.log.error({ err }, 'chat stream failed after it started');
      send('error', streamErrorBody(err));
    }
  } finally {
    raw.end();
  }
}
