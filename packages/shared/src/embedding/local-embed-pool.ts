import { Worker } from 'node:worker_threads';
import type { ChunkText, LocalChunkVectors } from './local-chunk-vectors.ts';

/** A worker that has had nothing to do for this long exits: an idle service holds no second V8 heap. */
const IDLE_EXIT_MS = 15_000;

type Reply = { id: number; vectors: Float32Array[]; tokens: number[] } | { id: number; error: string };

/**
 * One worker thread that embeds pages' chunks with the local model (local-embed-worker.ts), started
 * on the first page and stopped when idle. Requests are answered in order; a worker that dies takes
 * its pending requests with it (they reject, the page job retries) and the next request starts another.
 */
class LocalEmbedPool {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { resolve: (v: LocalChunkVectors) => void; reject: (e: Error) => void }>();
  private nextId = 0;
  private idleTimer: NodeJS.Timeout | undefined;

  embed(title: string, chunks: readonly ChunkText[]): Promise<LocalChunkVectors> {
    const worker = this.start();
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const id = this.nextId++;
    // Kept alive while it owes an answer (a script awaiting one must not exit under it), not after.
    worker.ref();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, title, chunks: chunks.map((c) => ({ heading: c.heading, content: c.content })) });
    });
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./local-embed-worker.ts', import.meta.url));
    worker.on('message', (reply: Reply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if ('error' in reply) waiting.reject(new Error(`local embedding failed: ${reply.error}`));
      else waiting.resolve({ vectors: reply.vectors, tokens: reply.tokens });
      if (this.pending.size === 0) {
        // Idle: never what keeps the process alive, so shutdown does not wait for it.
        worker.unref();
        this.scheduleExit(worker);
      }
    });
    const fail = (err: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiting of this.pending.values()) waiting.reject(err);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the local embedding worker exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private scheduleExit(worker: Worker): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.worker !== worker || this.pending.size > 0) return;
      this.worker = undefined;
      void worker.terminate();
    }, IDLE_EXIT_MS);
    this.idleTimer.unref();
  }
}

export const localEmbedPool = new LocalEmbedPool();
