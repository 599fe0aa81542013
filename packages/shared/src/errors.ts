/**
 * Errors that carry their HTTP status. The gateway's one error handler turns them into
 * `{ error, details }` bodies; anything else becomes a 500 with no internals.
 */
export class AppError extends Error {
  readonly statusCode: number;
  readonly details: unknown;
  readonly headers: Record<string, string>;
  constructor(statusCode: number, message: string, details?: unknown, headers: Record<string, string> = {}) {
    super(message);
    this.name = new.target.name;
    this.statusCode = statusCode;
    this.details = details;
    this.headers = headers;
  }
}

export class BadRequestError extends AppError {
  constructor(message: string, details: string | string[] = []) {
    super(400, message, details);
  }
}
export class UnauthorizedError extends AppError {
  constructor(message = 'Unauthorized', details: string | string[] = 'Send Authorization: Bearer <ADMIN_API_KEY>') {
    super(401, message, details, { 'www-authenticate': 'Bearer' });
  }
}
export class ForbiddenError extends AppError {
  constructor(message = 'Forbidden', details: string | string[] = []) {
    super(403, message, details);
  }
}
export class NotFoundError extends AppError {
  constructor(message = 'Not found', details: string | string[] = []) {
    super(404, message, details);
  }
}
/** The one "client not found": a public or admin request naming a clientId that no client has. */
export class ClientNotFoundError extends NotFoundError {
  constructor(details: string | string[] = ['no client has this clientId']) {
    super('Client not found', details);
  }
}
export class ConflictError extends AppError {
  constructor(message: string, details: string | string[] = []) {
    super(409, message, details);
  }
}
export class PayloadTooLargeError extends AppError {
  constructor(message = 'Payload too large', details: string | string[] = []) {
    super(413, message, details);
  }
}
export class UnsupportedMediaTypeError extends AppError {
  constructor(details: string | string[] = []) {
    super(415, 'Unsupported media type', details);
  }
}
export class TooManyRequestsError extends AppError {
  constructor(retryAfterSeconds: number, details: string | string[] = []) {
    super(429, 'Too many requests', details, { 'retry-after': String(retryAfterSeconds) });
  }
}

/** True for errors that mean "the database or Redis is not reachable right now". */
export function isUnavailableError(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  if (!e) return false;
  const codes = [
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'EPIPE',
    'ENOTFOUND',
    '57P01',
    '57P02',
    '57P03',
    '08000',
    '08003',
    '08006',
    '53300',
  ];
  if (e.code && codes.includes(e.code)) return true;
  const msg = e.message ?? '';
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Stream isn't writeable|Connection is closed|max retries per request|ECONNREFUSED/i.test(
    msg,
  );
}
