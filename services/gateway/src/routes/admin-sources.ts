import { findClient } from '@kbchat/shared/db/clients';
import { documentStats, listDocuments } from '@kbchat/shared/db/documents';
import { lastJobsBySource } from '@kbchat/shared/db/jobs';
import { listSourcesWithCounts } from '@kbchat/shared/db/sources';
import { NotFoundError } from '@kbchat/shared/errors';
import { errorBody } from '@kbchat/shared/schemas/common';
import { sourceView } from '@kbchat/shared/schemas/crawl';
import { documentsPage, documentsQuery } from '@kbchat/shared/schemas/embeddings';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GatewayDeps } from '../app.ts';

const clientParams = z.object({ clientId: z.string() });
const notFound = () => new NotFoundError('Client not found', ['no client has this clientId']);

/** What a client's knowledge base holds: its sources (with counts and last crawl) and its documents. */
export function adminSourceRoutes(deps: GatewayDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/admin/clients/:clientId/sources',
      {
        schema: {
          tags: ['admin'],
          summary: 'Sources (crawled start URLs) of a client, with page and document counts and the last crawl',
          params: clientParams,
          response: { 200: z.object({ sources: z.array(sourceView) }), 404: errorBody },
        },
      },
      async (req) => {
        const client = await findClient(deps.pool, req.params.clientId);
        if (!client) throw notFound();
        const [sources, lastJobs] = await Promise.all([
          listSourcesWithCounts(deps.pool, client.id),
          lastJobsBySource(deps.pool, client.id),
        ]);
        return {
          sources: sources.map((s) => {
            const job = lastJobs.get(s.id);
            return {
              sourceId: s.id,
              url: s.start_url,
              createdAt: s.created_at.toISOString(),
              lastCrawledAt: s.last_crawled_at?.toISOString() ?? null,
              pages: s.pages,
              documents: s.documents,
              embeddedDocuments: s.embedded_documents,
              lastJob: job
                ? {
                    jobId: job.id,
                    status: job.status,
                    createdAt: job.created_at.toISOString(),
                    finishedAt: job.finished_at?.toISOString() ?? null,
                    pagesIndexed: job.pages_indexed,
                    message: job.message,
                  }
                : null,
            };
          }),
        };
      },
    );

    app.get(
      '/api/admin/clients/:clientId/documents',
      {
        schema: {
          tags: ['admin'],
          summary: 'Document statistics of a client and a page of its documents',
          params: clientParams,
          querystring: documentsQuery,
          response: { 200: documentsPage, 400: errorBody, 404: errorBody },
        },
      },
      async (req) => {
        const client = await findClient(deps.pool, req.params.clientId);
        if (!client) throw notFound();
        const [stats, rows] = await Promise.all([documentStats(deps.pool, client.id), listDocuments(deps.pool, client.id, req.query)]);
        return {
          stats,
          documents: rows.map((d) => ({
            id: d.id,
            sourceId: d.source_id,
            url: d.url,
            title: d.title,
            heading: d.heading,
            chunkIndex: d.chunk_index,
            tokenCount: d.token_count,
            embeddingModel: d.embedding_model,
            contentPreview: d.content_preview,
          })),
          limit: req.query.limit,
          offset: req.query.offset,
        };
      },
    );
  };
}
