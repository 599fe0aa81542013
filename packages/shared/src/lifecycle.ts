import { readFileSync } from 'node:fs';
import { type Config, ConfigError, loadConfig, resolvedProviders, type Service } from './config.ts';
import { loadEnvFile } from './env-file.ts';
import { startHealthServer } from './health.ts';
import { createLogger, type Logger } from './logger.ts';
import { leanMallocForStart, scheduleMallocTrim } from './malloc-trim.ts';
import { createRuntime, type Runtime, StartupError } from './runtime.ts';

/** A started service: stop() stops taking work and lets in-flight work finish. */
export interface RunningService {
  name: Service | 'health';
  stop(): Promise<void>;
}
export type ServiceStarter = (rt: Runtime) => Promise<RunningService>;

export interface RunningProcess {
  runtime: Runtime;
  services: RunningService[];
  /** Stops services in order (gateway first: no new HTTP work), then closes the runtime. */
  shutdown(): Promise<void>;
}

const ORDER: Service[] = ['gateway', 'crawler', 'embedder'];

/** Starts the chosen services on one shared runtime. Used by bin/kbchat.ts, each service's main.ts and tests. */
export async function startProcess(
  config: Config,
  starters: Partial<Record<Service, ServiceStarter>>,
  log: Logger = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT }),
): Promise<RunningProcess> {
  const runtime = await createRuntime(config, log);
  const services: RunningService[] = [];
  try {
    for (const name of ORDER) {
      if (!config.RUN.includes(name)) continue;
      const start = starters[name];
      if (!start) throw new StartupError(`this entry point cannot run ${name}`);
      services.push(await start(runtime));
    }
    // A worker-only process answers probes on HEALTH_PORT; the gateway has its own /healthz and /readyz.
    if (config.HEALTH_PORT !== undefined && !config.RUN.includes('gateway')) {
      const health = await startHealthServer(runtime, config.HOST, config.HEALTH_PORT);
      log.info({ port: health.port }, 'health endpoints listening');
      services.push({ name: 'health', stop: () => health.close() });
    }
  } catch (err) {
    for (const s of services.reverse()) {
      await s
        .stop()
        .catch((stopErr: Error) => log.warn({ service: s.name, err: { message: stopErr.message } }, 'stop after a failed start failed'));
    }
    await runtime.close();
    throw err;
  }
  let stopping: Promise<void> | undefined;
  return {
    runtime,
    services,
    shutdown() {
      stopping ??= (async () => {
        for (const s of services) {
          try {
            await s.stop();
          } catch (err) {
            log.warn({ service: s.name, err: { message: (err as Error).message } }, 'error while stopping');
          }
        }
        await runtime.close();
      })();
      return stopping;
    },
  };
}

/**
 * The process entry: read `.env` (when there is one; the real environment wins), parse config once
 * (a bad value exits 1 naming the variable), start, and on SIGTERM/SIGINT shut down in order under a
 * hard deadline (unref'd). Jobs still running at the deadline are not lost: their locks expire and
 * BullMQ hands them to another worker. overrides beat both (a service's main.ts pins RUN).
 */
export async function runMain(starters: Partial<Record<Service, ServiceStarter>>, overrides: Record<string, string> = {}): Promise<void> {
  let config: Config;
  let envFile: string | undefined;
  try {
    envFile = loadEnvFile();
    config = loadConfig({ ...process.env, ...overrides });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`kbchat: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const log = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT });
  let running: RunningProcess;
  try {
    // What start-up allocates and frees is handed back, not kept (malloc-trim.ts).
    if (config.MALLOC_TRIM_INTERVAL_MS > 0) await leanMallocForStart();
    running = await startProcess(config, starters, log);
  } catch (err) {
    if (err instanceof StartupError) {
      log.fatal(err.message);
      process.stderr.write(`kbchat: ${err.message}\n`);
    } else {
      log.fatal({ err }, 'start failed');
    }
    process.exit(1);
  }
  log.info({ services: running.services.map((s) => s.name) }, startLine(running, envFile));
  // What start-up freed, glibc keeps: handed back shortly after, then now and then (malloc-trim.ts).
  const trimming = scheduleMallocTrim({ intervalMs: config.MALLOC_TRIM_INTERVAL_MS, log });

  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) return;
    signalled = true;
    log.info({ signal, deadlineMs: config.SHUTDOWN_TIMEOUT_MS }, 'shutting down');
    const deadline = setTimeout(() => {
      log.error('shutdown deadline passed: exiting with work still in flight (it returns to the queue)');
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    deadline.unref();
    trimming.stop();
    running.shutdown().then(
      () => {
        log.info('shutdown complete');
        process.exit(0);
      },
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/**
 * One short line a person can read: version, where, which services, which database, Redis and
 * providers (the whole configuration is logged at debug as "starting").
 */
export function startLine(running: RunningProcess, envFile?: string): string {
  const { config, databaseUrl, redisUrl } = running.runtime;
  const url = (running.services.find((s) => s.name === 'gateway') as { url?: string } | undefined)?.url;
  const providers = resolvedProviders(config);
  const database = config.DATABASE_URL ? `postgres ${hostOf(databaseUrl)}` : `embedded PGlite (${config.DATA_DIR})`;
  const redis =
    config.REDIS_URL || hostOf(redisUrl) === '127.0.0.1:6379' ? `redis ${hostOf(redisUrl)}` : `private redis (${config.DATA_DIR})`;
  const parts = [
    url ?? 'no HTTP',
    running.services.map((s) => s.name).join(', '),
    database,
    redis,
    `chat ${providers.chat}, embeddings ${providers.embedding}`,
    ...(envFile ? ['.env read'] : []),
  ];
  return `kbchat ${VERSION} started: ${parts.join(' · ')}`;
}

function hostOf(raw: string): string {
  try {
    return new URL(raw).host;
  } catch {
    return '?';
  }
}

const VERSION = (() => {
  try {
    return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? '';
  } catch {
    return '';
  }
})();
