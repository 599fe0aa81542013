import type { RunningService } from '@kbchat/shared/lifecycle';
import { runMain } from '@kbchat/shared/lifecycle';
import type { Runtime } from '@kbchat/shared/runtime';
import { buildApp } from './app.ts';

/** Starts the HTTP API on HOST:PORT. stop() closes the server: no new requests, in-flight ones finish. */
export async function startGateway(rt: Runtime): Promise<RunningService & { url: string; port: number }> {
  const app = await buildApp(rt);
  await app.listen({ host: rt.config.HOST, port: rt.config.PORT });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : rt.config.PORT;
  const host = rt.config.HOST.includes(':') ? `[${rt.config.HOST}]` : rt.config.HOST;
  const url = `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${port}`;
  rt.log.info({ url }, 'gateway listening');
  return {
    name: 'gateway',
    url,
    port,
    stop: () => app.close(),
  };
}

if (import.meta.main) await runMain({ gateway: startGateway }, { RUN: 'gateway' });
