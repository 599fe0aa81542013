// The local model's vectors of pages' chunks off the main thread (local-embed-pool.ts): a crawl's
// main thread spent a third of its time here, and every other page job of the process waited.
import { parentPort } from 'node:worker_threads';
import { type ChunkText, localChunkVectors } from './local-chunk-vectors.ts';

parentPort?.on('message', (message: { id: number; title: string; chunks: ChunkText[] }) => {
  try {
    const { vectors, tokens } = localChunkVectors(message.title, message.chunks);
    parentPort?.postMessage(
      { id: message.id, vectors, tokens },
      vectors.map((v) => v.buffer as ArrayBuffer),
    );
  } catch (err) {
    parentPort?.postMessage({ id: message.id, error: (err as Error).message ?? String(err) });
  }
});
