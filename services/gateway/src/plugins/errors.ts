import type { Socket } from 'node:net';
import { AppError, isUnavailableError } from '@kbchat/shared/errors';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The spec gives some endpoints (the crawl) a string `details`; the rest get an array. */
    errorDetails?: 'string' | 'array';
  }
}

interface ValidationItem {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: { keys?: unknown } & Record<string, unknown>;
}

/** A key the error may name back to the caller: a field name's characters, not arbitrary input. */
const NAMEABLE_KEY = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * "body has unknown keys: "colour"": field-name-like keys are named, the rest only counted — an
 * error body never reflects arbitrary request text (markup, SQL, control characters) back.
 */
function unknownKeys(subject: string, keys: string[]): string {
  const named = keys.filter((k) => NAMEABLE_KEY.test(k));
  const others = keys.length - named.length;
  const list = named.map((k) => `"${k}"`);
  if (others > 0) list.push(`${others} more that ${others === 1 ? 'is not a field name' : 'are not field names'}`);
  return `${subject} has unknown keys: ${list.join(', ')}`;
}

/** "name is required", "email must be a valid email address", "body must be a JSON object". */
export function formatValidationIssue(item: ValidationItem, context: string | undefined): string {
  const field = (item.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.');
  const subject = field || (context === 'body' || context === undefined ? 'body' : context);
  const keys = item.params?.keys;
  if (item.keyword === 'unrecognized_keys' && Array.isArray(keys)) return unknownKeys(subject, keys.map(String));
  const message = item.message ?? 'is invalid';
  if (!field && /expected object/i.test(message)) return `${subject} must be a JSON object`;
  if (/^(is |must |should )/.test(message)) return `${subject} ${message}`;
  return `${subject}: ${message}`;
}

function shapeDetails(req: FastifyRequest, details: string[] | string): string[] | string {
  if (req.routeOptions?.config?.errorDetails === 'string') return Array.isArray(details) ? details.join('; ') : details;
  return Array.isArray(details) ? details : [details];
}

const SERVER_ERROR_TEXT: Record<number, string> = {
  500: 'Internal server error',
  502: 'Bad gateway',
  503: 'Service unavailable',
  504: 'Gateway timeout',
};

export const FASTIFY_CLIENT_ERRORS: Record<string, { status: number; error: string; details: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, error: 'Invalid JSON', details: 'the request body is not valid JSON' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, error: 'Invalid request', details: 'the request body is empty; send a JSON object' },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, error: 'Payload too large', details: 'the request body exceeds the size limit' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, error: 'Unsupported media type', details: 'send Content-Type: application/json' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, error: 'Invalid request', details: 'Content-Length does not match the body' },
};

/**
 * One error handler: every error leaves as JSON `{ error, details }`. 4xx are logged as warn,
 * 5xx as error; a 5xx body never carries internals (no stack, no SQL, no provider message).
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    if (hasZodFastifySchemaValidationErrors(err)) {
      const details = err.validation.map((v) => formatValidationIssue(v, err.validationContext));
      req.log.warn({ details }, 'request rejected');
      return reply.status(400).send({ error: 'Invalid request', details: shapeDetails(req, details) });
    }
    if (err instanceof AppError) {
      if (err.statusCode >= 500) req.log.error({ err }, err.message);
      else req.log.warn({ status: err.statusCode, error: err.message }, 'request rejected');
      const details = err.details === undefined ? [] : (err.details as string[] | string);
      // A 5xx message is for the log (it may name hosts, models, SQL); the body gets the status text.
      const error = err.statusCode >= 500 ? (SERVER_ERROR_TEXT[err.statusCode] ?? 'Internal server error') : err.message;
      return reply
        .status(err.statusCode)
        .headers(err.headers)
        .send({ error, details: shapeDetails(req, details) });
    }
    const known = err.code ? FASTIFY_CLIENT_ERRORS[err.code] : undefined;
    if (known) {
      req.log.warn({ code: err.code }, 'request rejected');
      return reply.status(known.status).send({ error: known.error, details: shapeDetails(req, known.details) });
    }
    if (err instanceof SyntaxError || (err.statusCode === 400 && /JSON|prototype/i.test(err.message))) {
      req.log.warn({ code: err.code }, 'request rejected');
      return reply.status(400).send({ error: 'Invalid JSON', details: shapeDetails(req, 'the request body is not valid JSON') });
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      req.log.warn({ status: err.statusCode, code: err.code }, 'request rejected');
      return reply.status(err.statusCode).send({ error: err.message || 'Bad request', details: shapeDetails(req, []) });
    }
    if (isUnavailableError(err)) {
      req.log.error({ err: { message: err.message, code: err.code } }, 'dependency unavailable');
      return reply
        .status(503)
        .header('retry-after', '5')
        .send({ error: 'Service unavailable', details: shapeDetails(req, ['a backing service is not reachable; retry shortly']) });
    }
    req.log.error({ err }, 'unhandled error');
    return reply.status(500).send({ error: 'Internal server error', details: shapeDetails(req, []) });
  });

  app.setNotFoundHandler((req, reply) => {
    reply.status(404).send({ error: 'Not found', details: [`no route for ${req.method} ${req.url.split('?')[0]}`] });
  });
}

/**
 * Fastify's `frameworkErrors`: the router's own rejections — a path that does not decode (%ZZ,
 * overlong UTF-8) or a path parameter longer than maxParamLength — in the same `{ error, details }`
 * shape instead of Fastify's `{ error, code, message, statusCode }`.
 */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  req.log.warn({ code: err.code }, 'request rejected');
  if (err.code === 'FST_ERR_BAD_URL') {
    reply.status(400).send({ error: 'Invalid request', details: ['the URL path is not valid percent-encoded UTF-8'] });
  } else if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    reply.status(414).send({ error: 'URI too long', details: ['a path segment is too long'] });
  } else {
    reply.status(500).send({ error: 'Internal server error', details: [] });
  }
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser rejects before any route runs (a
 * malformed request line or chunk, headers over the size limit, a request that timed out), as
 * `{ error, details }` JSON like every other error. The connection is closed, as Node does.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, text, error, details] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'Request timeout', 'the request was not received in time']
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'Request headers too large', 'the request line and headers exceed the size limit']
        : [400, 'Bad Request', 'Invalid request', 'the request is not valid HTTP'];
  const body = JSON.stringify({ error, details: [details] });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${text}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
