import { createRequire } from 'node:module';
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

export type LogFormat = 'auto' | 'json' | 'pretty';

/** auto: pretty for a person at a terminal, JSON lines for anything that collects the output. */
export function resolveLogFormat(format: LogFormat, isTty = process.stdout.isTTY === true): 'json' | 'pretty' {
  return format === 'auto' ? (isTty ? 'pretty' : 'json') : format;
}

export function createLogger(
  options: { level?: string; name?: string; format?: LogFormat; destination?: pino.DestinationStream } = {},
): Logger {
  const opts: LoggerOptions = {
    level: options.level ?? 'info',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: options.name ? { service: options.name } : {},
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  const format = resolveLogFormat(options.format ?? 'json', options.destination ? false : undefined);
  if (format === 'pretty') {
    // Loaded only for a person at a terminal: JSON lines (a service's usual output) never need it.
    const pretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
    // In-process (no transport worker): the same redaction runs first, and a line is written before exit.
    const stream = pretty({
      destination: options.destination ?? 1,
      colorize: options.destination ? false : process.stdout.isTTY === true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      singleLine: true,
      sync: true,
    });
    return pino(opts, stream);
  }
  return options.destination ? pino(opts, options.destination) : pino(opts);
}
