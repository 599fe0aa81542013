import { chunkEmbeddingText } from '../crawl/chunker.ts';
import { planBatches } from '../providers/embeddings/batching.ts';
import { embedLocal } from '../providers/embeddings/local-embedder.ts';

export interface ChunkText {
  heading: string | null;
  content: string;
}

export interface LocalChunkVectors {
  /** One per chunk, in order: the local model's vector of the chunk's embedding text. */
  vectors: Float32Array[];
  /** cl100k tokens of each chunk's embedding text (after the provider's truncation), in order. */
  tokens: number[];
}

/**
 * The local model's vectors of a page's chunks: the embedder's input (chunkEmbeddingText), its
 * truncation and cl100k count (planBatches), then embedLocal. Pure CPU, run in a worker thread by
 * local-embed-pool.ts; the same result as embedding the documents through the local provider.
 */
export function localChunkVectors(title: string, chunks: readonly ChunkText[]): LocalChunkVectors {
  const vectors = new Array<Float32Array>(chunks.length);
  const tokens = new Array<number>(chunks.length);
  const batches = planBatches(chunks.map((c, i) => ({ id: String(i), text: chunkEmbeddingText(title, c.heading, c.content) })));
  for (const batch of batches) {
    batch.ids.forEach((id, j) => {
      const i = Number(id);
      vectors[i] = Float32Array.from(embedLocal(batch.inputs[j] as string));
      tokens[i] = batch.inputTokens[j] as number;
    });
  }
  return { vectors, tokens };
}
