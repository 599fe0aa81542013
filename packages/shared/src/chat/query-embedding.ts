import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';
import type { EmbeddingProvider } from '../providers/embeddings/embeddings.ts';

export interface QueryEmbedding {
  vector: number[];
  /** Tokens billed (0 on a cache hit). */
  tokens: number;
  cached: boolean;
}

/**
 * Query embeddings cached in Redis by (model, sha256 of the text), so a question asked again (the
 * widget's suggested questions, a FAQ) costs no provider call. Values are float32 (what pgvector
 * stores anyway), and fresh vectors are rounded the same way so a hit and a miss rank
 * identically. The cache fails open: Redis being away costs a provider call, never an answer.
 * Entries are ~6 KB; the TTL bounds memory in a Redis that also holds the queues (noeviction).
 * The local embedder is not cached: computing its vector (~0.03 ms) is cheaper than the round trip
 * (and than hashing the text for the key).
 */
export function createQueryEmbedder(deps: {
  redis: Redis;
  keyPrefix: string;
  ttlSeconds: number;
  provider: EmbeddingProvider;
  log: Logger;
}): (text: string, signal?: AbortSignal) => Promise<QueryEmbedding> {
  const { redis, provider, log } = deps;
  const keyOf = (text: string) =>
    `${deps.keyPrefix}:qemb:${provider.model}:${createHash('sha256').update(text, 'utf8').digest('base64url')}`;
  let lastWarning = 0;
  const warn = (err: unknown, what: string) => {
    // One line per 30 s, not one per request, while Redis is down.
    if (Date.now() - lastWarning < 30_000) return;
    lastWarning = Date.now();
    log.warn({ err: { message: (err as Error).message } }, `query embedding cache ${what} failed; continuing without it`);
  };

  const useCache = deps.ttlSeconds > 0 && provider.kind !== 'local';
  return async (text, signal) => {
    if (!useCache) {
      const { vectors, tokens } = await provider.embed([text], signal);
      return { vector: checked(vectors[0], provider.dimensions), tokens, cached: false };
    }
    const key = keyOf(text);
    const hit = await redis.getBuffer(key).catch((err) => {
      warn(err, 'read');
      return null;
    });
    if (hit && hit.byteLength === provider.dimensions * 4) {
      const vector = new Array<number>(provider.dimensions);
      for (let i = 0; i < vector.length; i++) vector[i] = hit.readFloatLE(i * 4);
      return { vector, tokens: 0, cached: true };
    }
    const { vectors, tokens } = await provider.embed([text], signal);
    const first = checked(vectors[0], provider.dimensions);
    // Little-endian explicitly: gateways of different architectures may share the cache.
    const buf = Buffer.allocUnsafe(first.length * 4);
    for (let i = 0; i < first.length; i++) buf.writeFloatLE(first[i] as number, i * 4);
    const vector = new Array<number>(first.length);
    for (let i = 0; i < vector.length; i++) vector[i] = buf.readFloatLE(i * 4);
    await redis.set(key, buf, 'EX', deps.ttlSeconds).catch((err) => warn(err, 'write'));
    return { vector, tokens, cached: false };
  };
}

function checked(vector: number[] | undefined, dimensions: number): number[] {
  if (!vector || vector.length !== dimensions) {
    throw new Error(`embedding provider returned ${vector?.length ?? 0} dimensions, expected ${dimensions}`);
  }
  return vector;
}
