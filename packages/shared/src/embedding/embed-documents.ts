import { chunkEmbeddingText } from '../crawl/chunker.ts';
import {
  type ChunkInput,
  type ClaimedDocument,
  type EmbeddingWrite,
  leaseDocumentsForEmbedding,
  leasedUnwritten,
  releaseFailedDocuments,
  writeEmbeddings,
} from '../db/documents.ts';
import { type Pool, type Queryable, withTransaction } from '../db/pool.ts';
import { recordUsage } from '../db/usage.ts';
import { settleJobIfDone } from '../jobs/finish-job.ts';
import { addJobCounters, addJobNote } from '../jobs/job-store.ts';
import type { Logger } from '../logger.ts';
import { type BatchLimits, planBatches } from '../providers/embeddings/batching.ts';
import type { EmbeddingProvider } from '../providers/embeddings/embedding-provider.ts';
import { LOCAL_EMBEDDING_MODEL } from '../providers/embeddings/local-embedder.ts';
import { localEmbedPool } from './local-embed-pool.ts';

/**
 * The embed step, as one function the embedder worker and tests call: lease the documents, plan
 * batches within the API's bounds, call the provider, write each batch's vectors with usage and
 * job counters in one transaction. Progress is kept batch by batch, so a retry after a failure
 * (or a crash) pays only for what was not written yet.
 */
export interface EmbedDeps {
  pool: Pool;
  provider: EmbeddingProvider;
  log: Logger;
  limits?: BatchLimits;
  /** How long a lease holds documents against other embed jobs (a dead worker's lease expires). */
  leaseMs?: number;
  /** Documents leased per round (DEFAULT_ROUND_SIZE). */
  roundSize?: number;
}

export interface EmbedInput {
  clientId: string;
  jobId?: string | undefined;
  documentIds: string[];
}

export interface EmbedSummary {
  documents: number;
  tokens: number;
  requests: number;
}

export const DEFAULT_LEASE_MS = 10 * 60_000;
/**
 * Documents leased per round. Writing a round (HNSW insertion, ~3 ms of database CPU per row) takes
 * far longer than embedding it, locally or through the API, so the round is what EMBED_CONCURRENCY
 * jobs share a crawl's documents by: with 4096, one job held the last few thousand leases while the
 * others found nothing left, and the bench crawl's last 15 s were one backend writing. 256 inputs
 * are still one request of some 50k tokens for the API (and progress is written more often).
 */
const DEFAULT_ROUND_SIZE = 256;
/**
 * Vectors per write transaction: each one also inserts into the HNSW index, whose cost grows with
 * the slice (256 vectors take ~4 s on the embedded database, 64 ~0.4 s) — and every other query
 * waits behind a long transaction there.
 */
const WRITE_SLICE = 64;

export function embeddingInput(doc: Pick<ClaimedDocument, 'title' | 'heading' | 'content'>): string {
  return chunkEmbeddingText(doc.title, doc.heading, doc.content);
}

/**
 * A page's chunks as they are to be stored: on the local model with their vectors, computed where
 * the chunks are made — a little CPU and no request, so the store writes each row once, with its
 * vector, and no embed job runs for the page (docs/performance.md, 1a) — in a worker thread, so the
 * process's other pages and requests go on meanwhile; on any other model as they are, for the
 * embedder. Same input, truncation and token count as embedDocuments.
 */
export async function withLocalEmbeddings<C extends ChunkInput>(
  model: string,
  title: string,
  chunks: readonly C[],
): Promise<C[] | (C & { embedding: Float32Array; tokens: number })[]> {
  if (model !== LOCAL_EMBEDDING_MODEL || chunks.length === 0) return [...chunks];
  const { vectors, tokens } = await localEmbedPool.embed(title, chunks);
  return chunks.map((c, i) => ({ ...c, embedding: vectors[i] as Float32Array, tokens: tokens[i] as number }));
}

export async function embedDocuments(deps: EmbedDeps, input: EmbedInput, owner: string, signal?: AbortSignal): Promise<EmbedSummary> {
  const { pool, provider } = deps;
  const summary: EmbedSummary = { documents: 0, tokens: 0, requests: 0 };
  for (;;) {
    signal?.throwIfAborted();
    const docs = await leaseDocumentsForEmbedding(pool, {
      clientId: input.clientId,
      ids: input.documentIds,
      jobId: input.jobId ?? null,
      owner,
      leaseMs: deps.leaseMs ?? DEFAULT_LEASE_MS,
      model: provider.model,
      limit: deps.roundSize ?? DEFAULT_ROUND_SIZE,
    });
    if (docs.length === 0) {
      // Nothing more to lease. Documents this job still holds unwritten (their rows were locked when
      // the lease skipped them) would wait out the lease: retry instead, which takes them back.
      const left = await leasedUnwritten(pool, input.clientId, owner, provider.model);
      if (left > 0) throw new Error(`${left} leased documents are not written yet; retrying`);
      break;
    }
    const batches = planBatches(
      docs.map((d) => ({ id: d.id, text: embeddingInput(d) })),
      deps.limits,
    );
    for (const batch of batches) {
      const result = await provider.embed(batch.inputs, signal, batch.inputTokens);
      summary.requests += 1;
      if (result.vectors.length !== batch.inputs.length) {
        throw new Error(`embedding provider returned ${result.vectors.length} vectors for ${batch.inputs.length} inputs`);
      }
      const rows: EmbeddingWrite[] = batch.ids.map((id, i) => ({
        id,
        vector: result.vectors[i] as number[],
        // planBatches' count: tokenizing each input again cost as much as embedding it locally.
        tokens: batch.inputTokens[i] as number,
      }));
      // One transaction per slice: short row locks, and on the embedded database (one connection)
      // other queries are not kept waiting behind thousands of vector writes. Usage goes with the first.
      let written = 0;
      for (let i = 0; i < rows.length; i += WRITE_SLICE) {
        written += await withTransaction(pool, async (tx) => {
          const perJob = await writeEmbeddings(tx, {
            clientId: input.clientId,
            owner,
            model: provider.model,
            rows: rows.slice(i, i + WRITE_SLICE),
          });
          if (i === 0) {
            await recordUsage(tx, {
              clientId: input.clientId,
              kind: 'embedding',
              model: provider.model,
              requests: 1,
              promptTokens: result.tokens,
              costUsd: (result.tokens / 1000) * provider.costPer1kTokens,
            });
          }
          await countAndSettle(tx, perJob, 'embeddings_done');
          return [...perJob.values()].reduce((n, v) => n + v.documents, 0);
        });
      }
      summary.documents += written;
      summary.tokens += result.tokens;
    }
  }
  return summary;
}

/**
 * The embed step gave up (provider kept failing): the documents stay stored without embeddings,
 * leave their job's list (counted as failed), and the job is told why.
 */
export async function giveUpEmbedding(
  deps: Pick<EmbedDeps, 'pool' | 'log'>,
  input: EmbedInput,
  owner: string,
  err: unknown,
): Promise<number> {
  const reason = describeProviderError(err);
  return withTransaction(deps.pool, async (tx) => {
    const perJob = await releaseFailedDocuments(tx, {
      clientId: input.clientId,
      owner,
      ids: input.documentIds,
      jobId: input.jobId ?? null,
    });
    let n = 0;
    for (const [job, v] of perJob) {
      n += v.documents;
      if (job) await addJobNote(tx, job, `Embedding failed: ${reason}.`);
    }
    await countAndSettle(tx, perJob, 'embeddings_failed');
    deps.log.warn({ clientId: input.clientId, jobId: input.jobId, documents: n, reason }, 'embedding given up');
    return n;
  });
}

async function countAndSettle(
  tx: Queryable,
  perJob: Map<string | null, { documents: number; tokens: number }>,
  column: 'embeddings_done' | 'embeddings_failed',
): Promise<void> {
  // Sorted: two transactions always lock job rows in the same order (no deadlock between them).
  const jobs = [...perJob.entries()].filter((e): e is [string, { documents: number; tokens: number }] => e[0] !== null).sort();
  for (const [job, v] of jobs) {
    await addJobCounters(tx, job, { [column]: v.documents, embedding_tokens: column === 'embeddings_done' ? v.tokens : 0 });
    await settleJobIfDone(tx, job);
  }
}

/** A provider error in words fit for a job message: status and the provider's message, never a key or header. */
export function describeProviderError(err: unknown): string {
  const e = err as { upstreamStatus?: number; status?: number; message?: string; name?: string } | null;
  const code = e?.upstreamStatus ?? e?.status;
  const status = typeof code === 'number' ? `HTTP ${code}` : (e?.name ?? 'error');
  const message = (e?.message ?? String(err))
    .replace(/sk-[A-Za-z0-9_-]{8,}/g, 'sk-***')
    .replace(/Bearer\s+\S+/gi, 'Bearer ***')
    .replace(/\s+/g, ' ')
    .slice(0, 200);
  return `${status}: ${message}`.replace(/\.$/, '');
}

/** False for failures a retry cannot fix (the provider rejected the request: bad key, bad input). */
export function isRetryableEmbeddingError(err: unknown): boolean {
  return (err as { retryable?: boolean } | null)?.retryable !== false;
}
