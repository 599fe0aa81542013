import { createHash, randomUUID } from 'node:crypto';
import { chunkSections, type PageSection } from '../crawl/chunker.ts';
import { findClient } from '../db/clients.ts';
import { replacePageDocuments } from '../db/documents.ts';
import { refreshLsa } from '../db/lsa.ts';
import { upsertIndexedPage } from '../db/pages.ts';
import { type Queryable, withTransaction } from '../db/pool.ts';
import { refreshTermStats } from '../db/retrieval.ts';
import { deleteClientSource, insertDocumentSource, type SourceRow } from '../db/sources.ts';
import { recordUsage } from '../db/usage.ts';
import { withLocalEmbeddings } from '../embedding/embed-documents.ts';
import { enqueueEmbedding } from '../embedding/enqueue.ts';
import { BadRequestError, ClientNotFoundError, ConflictError } from '../errors.ts';
import type { FileKind } from '../ingest/parse-file.ts';
import { settleJobIfDone } from '../jobs/finish-job.ts';
import type { JobRow } from '../jobs/job-data.ts';
import { activateJob, addJobCounters, insertJob } from '../jobs/job-store.ts';
import type { PipelineDeps } from '../jobs/start-job.ts';
import { schedulerId } from './schedules.ts';

/**
 * A text or a file as a source (docs/sources.md): one page of the client's knowledge base, chunked
 * like a crawled page and embedded by a generate-embeddings job of its own (its documents only), so
 * the operator follows it like any job — on the local model stored with its vectors, the job done at once. What its documents cite is the url given with it, else the
 * gateway's /files/<sourceId>, which serves the original.
 */
export interface DocumentSourceInput {
  clientId: string;
  /** 'answer': a curated answer's hidden source (chat/curated-answers.ts), not listed with the others. */
  type: 'text' | 'file' | 'answer';
  title: string;
  /** A public page the visitor can open for it; when absent the source cites /files/<sourceId>. */
  url: string | null;
  /** Base of the gateway's public URLs (PUBLIC_URL or the request's origin), without a trailing slash. */
  publicBase: string;
  sections: PageSection[];
  /** The original, kept with the source. */
  file: { name: string; kind: FileKind; bytes: Uint8Array };
  model: string;
  /** The source row's own url when it is not what the documents cite (a curated answer's marker). */
  sourceUrl?: string;
  /** Runs in the storing transaction once the source exists (a curated answer's own row). */
  withSource?: (tx: Queryable, source: SourceRow) => Promise<void>;
}

export interface DocumentSourceResult {
  source: SourceRow;
  job: JobRow;
  documentsCreated: number;
}

export function sourceFileUrl(publicBase: string, sourceId: string): string {
  return `${publicBase}/files/${sourceId}`;
}

export async function ingestDocumentSource(deps: PipelineDeps, input: DocumentSourceInput): Promise<DocumentSourceResult> {
  const client = await findClient(deps.pool, input.clientId);
  if (!client) throw new ClientNotFoundError();
  const made = chunkSections(input.sections);
  if (made.length === 0) throw new BadRequestError('Invalid request', ['the text has no readable words']);
  // The local model's vectors are computed here and stored with the chunks, as a crawl does: the
  // source's job then has nothing left to wait for. An API model's go through the embedder.
  const chunks = await withLocalEmbeddings(input.model, input.title, made);
  const sourceId = randomUUID();
  const fileUrl = sourceFileUrl(input.publicBase, sourceId);
  const citedUrl = input.url ?? fileUrl;

  const { source, job, created, pendingIds } = await withTransaction(deps.pool, async (tx) => {
    const source = await insertDocumentSource(tx, {
      id: sourceId,
      clientId: client.id,
      type: input.type,
      title: input.title,
      url: input.sourceUrl ?? citedUrl,
      file: input.file,
    });
    if (!source) throw new ConflictError('Source exists', [`this client already has a source with the url ${citedUrl}`]);
    await input.withSource?.(tx, source);
    const job = await insertJob(tx, {
      clientId: client.id,
      sourceId,
      kind: 'generate-embeddings',
      options: { queue: deps.config.REDIS_PREFIX, model: input.model },
      phase: 'embedding',
    });
    await activateJob(tx, job.id, 'embedding');
    // The page is the source's own (its /files address is unique); its documents cite citedUrl.
    const pageId = await upsertIndexedPage(tx, {
      clientId: client.id,
      sourceId,
      jobId: job.id,
      url: fileUrl,
      title: input.title,
      contentHash: createHash('sha256')
        .update(JSON.stringify(chunks.map((c) => [c.heading, c.hash])))
        .digest('hex'),
      etag: null,
      lastModified: null,
      httpStatus: 200,
      links: [],
      sitemapLastmod: null,
    });
    const docs = await replacePageDocuments(tx, {
      clientId: client.id,
      sourceId,
      pageId,
      jobId: job.id,
      url: citedUrl,
      title: input.title,
      chunks,
      model: input.model,
    });
    await addJobCounters(tx, job.id, {
      pages_indexed: 1,
      documents_created: docs.created,
      embeddings_done: docs.embedded,
      embedding_tokens: docs.embeddingTokens,
    });
    if (docs.embedded > 0)
      await recordUsage(tx, { clientId: client.id, kind: 'embedding', model: input.model, promptTokens: docs.embeddingTokens, costUsd: 0 });
    if (docs.pendingIds.length === 0) await settleJobIfDone(tx, job.id);
    await refreshTermStats(tx, client.id);
    return { source, job, created: docs.created, pendingIds: docs.pendingIds };
  });

  if (pendingIds.length > 0) {
    try {
      await enqueueEmbedding(deps.queues, {
        clientId: client.id,
        jobId: job.id,
        documentIds: pendingIds,
        key: `src-${job.id}`,
      });
    } catch (err) {
      deps.log.warn({ jobId: job.id, err: { message: (err as Error).message } }, 'embed jobs not enqueued; the watchdog will enqueue them');
    }
  }
  await rebuildRelatedWords(deps, client.id);
  return { source, job, documentsCreated: created };
}

/**
 * Removes a source with its pages, documents, file, crawls and schedule: nothing of it is cited
 * again. The client's word statistics and related words follow.
 */
export async function deleteSource(deps: PipelineDeps, clientId: string, sourceId: string): Promise<boolean> {
  const deleted = await withTransaction(deps.pool, async (tx) => {
    const row = await deleteClientSource(tx, clientId, sourceId);
    if (row) await refreshTermStats(tx, clientId);
    return row;
  });
  if (!deleted) return false;
  if (deleted.schedule !== 'off') {
    await deps.queues.crawl
      .removeScheduler(schedulerId(deleted.id))
      .catch((err: Error) =>
        deps.log.warn({ sourceId, err: { message: err.message } }, 'schedule not removed; it removes itself when it fires'),
      );
  }
  await rebuildRelatedWords(deps, clientId);
  return true;
}

/** A failure keeps the previous related words (the other lists still answer) and is logged. */
async function rebuildRelatedWords(deps: PipelineDeps, clientId: string): Promise<void> {
  try {
    await refreshLsa(deps.pool, clientId);
  } catch (err) {
    deps.log.error({ clientId, err: { message: (err as Error).message } }, 'latent semantic vectors not rebuilt');
  }
}
