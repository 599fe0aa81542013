import { type Logger, type LoggerOptions, pino } from 'pino';

export type { Logger };

/** Paths whose values never reach a log line. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers["webhook-signature"]',
  '*.apiKey',
  '*.password',
  '*.secret',
  '*.webhookSecret',
  '*.webhook_secret',
  'webhookSecret',
  'webhook_secret',
  'config.ADMIN_API_KEY',
  'config.OPENAI_API_KEY',
];

export function createLogger(options: { level?: string; name?: string; destination?: pino.DestinationStream } = {}): Logger {
  const opts: LoggerOptions = {
    level: options.level ?? 'info',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: options.name ? { service: options.name } : {},
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return options.destination ? pino(opts, options.destination) : pino(opts);
}
