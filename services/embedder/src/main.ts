import { type RunningService, runMain } from '@kbchat/shared/lifecycle';
import type { Runtime } from '@kbchat/shared/runtime';
import { buildEmbedder } from './app.ts';

export async function startEmbedder(rt: Runtime): Promise<RunningService> {
  const embedder = buildEmbedder(rt);
  rt.log.info({ concurrency: rt.config.EMBED_CONCURRENCY }, 'embedder workers started');
  return { name: 'embedder', stop: () => embedder.close() };
}

if (import.meta.main) await runMain({ embedder: startEmbedder }, { RUN: 'embedder' });
