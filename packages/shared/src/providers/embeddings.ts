import { type Config, resolvedProviders } from '../config.ts';
import type { EmbeddingProvider } from './embedding-provider.ts';
import { embedLocal, LOCAL_EMBEDDING_DIMENSIONS, LOCAL_EMBEDDING_MODEL } from './local-embedder.ts';
import { createOpenAIEmbeddingProvider } from './openai-embeddings.ts';
import { countTokens } from './tokenizer.ts';

/**
 * Embedding providers behind one interface (DESIGN.md §5), chosen by config:
 *  - `local`: deterministic, no network, 1536 dims, lexical (local-embedder.ts); the embedded default.
 *  - `openai`: the official SDK against OPENAI_BASE_URL (any OpenAI-compatible server),
 *    text-embedding-3-small by default (openai-embeddings.ts).
 * The caller batches (planBatches in batching.ts); embed() sends exactly one request for the inputs
 * it is given. Vectors are L2-normalised, so cosine distance = 1 - dot product.
 */
export { EMBEDDING_DIMENSIONS, type EmbeddingProvider, type EmbeddingResult } from './embedding-provider.ts';

export function createLocalEmbeddingProvider(): EmbeddingProvider {
  return {
    kind: 'local',
    model: LOCAL_EMBEDDING_MODEL,
    dimensions: LOCAL_EMBEDDING_DIMENSIONS,
    costPer1kTokens: 0,
    async embed(inputs, signal) {
      signal?.throwIfAborted();
      // cl100k tokens, so usage records compare with what the openai provider would have billed.
      return { vectors: inputs.map((text) => embedLocal(text)), tokens: inputs.reduce((n, text) => n + countTokens(text), 0) };
    },
  };
}

export function createEmbeddingProvider(config: Config): EmbeddingProvider {
  return resolvedProviders(config).embedding === 'openai' ? createOpenAIEmbeddingProvider(config) : createLocalEmbeddingProvider();
}
