import { createHash } from 'node:crypto';
import type { Config } from '../config.ts';

/**
 * Embedding providers behind one interface (DESIGN.md §5), chosen by config.
 * CONTRACT (owner: the "providers" work package):
 *  - `local`: deterministic, no network, 1536 dims, lexical; the embedded default.
 *  - `openai`: the official SDK, OPENAI_BASE_URL honoured (any OpenAI-compatible server),
 *    text-embedding-3-small by default. The caller batches (see planBatches in the providers
 *    package); embed() sends exactly one request for the inputs it is given.
 * Vectors are L2-normalised, so cosine distance = 1 - dot product.
 *
 * STUB: a hashing embedder so other work can run end to end; replaced by the providers package.
 */
export const EMBEDDING_DIMENSIONS = 1536;

export interface EmbeddingResult {
  vectors: number[][];
  /** Tokens billed for the request (the provider's usage figure; counted locally for `local`). */
  tokens: number;
}

export interface EmbeddingProvider {
  readonly kind: 'local' | 'openai';
  /** Stored per document as embedding_model. */
  readonly model: string;
  readonly dimensions: number;
  /** USD per 1,000 tokens (0 for local). */
  readonly costPer1kTokens: number;
  embed(inputs: string[], signal?: AbortSignal): Promise<EmbeddingResult>;
}

export function createEmbeddingProvider(_config: Config): EmbeddingProvider {
  return {
    kind: 'local',
    model: 'local-hash-v0',
    dimensions: EMBEDDING_DIMENSIONS,
    costPer1kTokens: 0,
    async embed(inputs) {
      return { vectors: inputs.map(hashEmbed), tokens: inputs.reduce((n, s) => n + Math.ceil(s.length / 4), 0) };
    },
  };
}

function hashEmbed(text: string): number[] {
  const v = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const h = createHash('sha1').update(word).digest();
    v[h.readUInt32LE(0) % EMBEDDING_DIMENSIONS]! += h[4]! & 1 ? 1 : -1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}
