import { setImmediate } from 'node:timers/promises';
import { type Config, resolvedProviders } from '../../config.ts';
import { countTokens } from '../text/tokenizer.ts';
import type { EmbeddingProvider } from './embedding-provider.ts';
import { embedLocal, LOCAL_EMBEDDING_DIMENSIONS, LOCAL_EMBEDDING_MODEL } from './local-embedder.ts';
import { createOpenAIEmbeddingProvider } from './openai-embeddings.ts';

/**
 * Embedding providers behind one interface (DESIGN.md §5), chosen by config:
 *  - `local`: deterministic, no network, 1536 dims, lexical (local-embedder.ts); the embedded default.
 *  - `openai`: the official SDK against OPENAI_BASE_URL (any OpenAI-compatible server),
 *    text-embedding-3-small by default (openai-embeddings.ts).
 * The caller batches (planBatches in batching.ts); embed() sends exactly one request for the inputs
 * it is given. Vectors are L2-normalised, so cosine distance = 1 - dot product.
 */
export { EMBEDDING_DIMENSIONS, type EmbeddingProvider, type EmbeddingResult } from './embedding-provider.ts';

const LOCAL_YIELD_EVERY = 64;

export function createLocalEmbeddingProvider(): EmbeddingProvider {
  return {
    kind: 'local',
    model: LOCAL_EMBEDDING_MODEL,
    dimensions: LOCAL_EMBEDDING_DIMENSIONS,
    costPer1kTokens: 0,
    async embed(inputs, signal, inputTokens) {
      const vectors: number[][] = [];
      let tokens = 0;
      for (let i = 0; i < inputs.length; i++) {
        // A 2048-input batch is ~0.5 s of CPU: give the event loop (HTTP, job locks) a turn now and then.
        if (i % LOCAL_YIELD_EVERY === 0) {
          if (i > 0) await setImmediate();
          signal?.throwIfAborted();
        }
        const text = inputs[i]!;
        vectors.push(embedLocal(text));
        // cl100k tokens, so usage records compare with what the openai provider would have billed.
        tokens += inputTokens?.[i] ?? countTokens(text);
      }
      signal?.throwIfAborted();
      return { vectors, tokens };
    },
  };
}

export function createEmbeddingProvider(config: Config): EmbeddingProvider {
  return resolvedProviders(config).embedding === 'openai' ? createOpenAIEmbeddingProvider(config) : createLocalEmbeddingProvider();
}
