import { type App, buildApp } from '@kbchat/gateway/app';
import { loadConfig } from '@kbchat/shared/config';
import { createLogger, type Logger } from '@kbchat/shared/logger';
import { createRuntime, type Runtime } from '@kbchat/shared/runtime';
import { testEnv } from '../../support/kbchat.ts';

export interface GatewayApp {
  app: App;
  rt: Runtime;
  close(): Promise<void>;
}

/**
 * The gateway's Fastify instance on the real runtime (Postgres, Redis, queues), not listening:
 * app.inject drives it at thousands of requests a second, through the same hooks, parsers and
 * handlers an HTTP request meets.
 */
export async function buildGatewayApp(env: Record<string, string | undefined> = {}, options: { log?: Logger } = {}): Promise<GatewayApp> {
  const config = loadConfig(testEnv({ RUN: 'gateway', ...env }));
  const rt = await createRuntime(config, options.log ?? createLogger({ level: config.LOG_LEVEL }));
  try {
    const app = await buildApp(rt);
    await app.ready();
    return {
      app,
      rt,
      close: async () => {
        await app.close();
        await rt.close();
      },
    };
  } catch (err) {
    await rt.close();
    throw err;
  }
}
