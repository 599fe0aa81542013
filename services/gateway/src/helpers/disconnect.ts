import { AppError } from '@kbchat/shared/errors';
import type { FastifyReply } from 'fastify';

/** 499 (nginx's "client closed request"): the caller left; nothing is sent and nothing is stored. */
export class ClientClosedError extends AppError {
  constructor() {
    super(499, 'Client closed request');
  }
}

/**
 * Aborted when the caller disconnects before the response is complete, so work done only for
 * them stops: a provider call (tokens nobody would read, on the client's bill) or a sync wait for
 * a job (which itself runs on). The abort reason is a ClientClosedError.
 */
export function disconnectSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new ClientClosedError());
  });
  return controller.signal;
}
