import { documentStats, listDocuments } from '@kbchat/shared/db/documents';
import { listCrawlChanges } from '@kbchat/shared/db/pages';
import { findClientSource, listSourcesWithCounts, type SourceRow, setSourceSchedule } from '@kbchat/shared/db/sources';
import { BadRequestError, NotFoundError } from '@kbchat/shared/errors';
import { lastJobsBySource } from '@kbchat/shared/jobs/job-store';
import { applySchedule, nextRunOf, scheduleError } from '@kbchat/shared/pipeline/schedules';
import { errorBody } from '@kbchat/shared/schemas/common';
import { changesQuery, crawlChangesView, sourcePatchBody, sourceView } from '@kbchat/shared/schemas/crawl';
import { documentsPage, documentsQuery } from '@kbchat/shared/schemas/embeddings';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GatewayDeps } from '../deps.ts';
import { requireClient } from '../helpers/require-client.ts';

const clientParams = z.object({ clientId: z.string() });
const sourceParams = z.object({ clientId: z.string(), sourceId: z.string() });
const sourceScheduleView = sourceView.pick({ sourceId: true, url: true, schedule: true, nextRunAt: true, crawlOptions: true });

function scheduleView(s: SourceRow, next: Date | null) {
  return {
    schedule: s.schedule,
    nextRunAt: next?.toISOString() ?? null,
    crawlOptions: { ...s.crawl_options, include: s.crawl_options.include ?? [], exclude: s.crawl_options.exclude ?? [] },
  };
}

/** What a client's knowledge base holds: its sources (with counts and last crawl) and its documents. */
export function adminSourceRoutes(deps: GatewayDeps): FastifyPluginAsyncZod {
  /** The queue unreachable: the listing still answers, without the next run. */
  const nextRunOrNull = (s: SourceRow) => nextRunOf(deps.queues, s).catch(() => null);
  const requireSource = async (clientId: string, sourceId: string): Promise<SourceRow> => {
    const client = await requireClient(deps.pool, clientId);
    const source = await findClientSource(deps.pool, client.id, sourceId);
    if (!source) throw new NotFoundError('Source not found', ['this client has no source with this sourceId']);
    return source;
  };
  return async (app) => {
    app.get(
      '/api/admin/clients/:clientId/sources',
      {
        schema: {
          tags: ['admin'],
          summary: 'Sources of a client (websites, texts, files), with page and document counts and the last crawl or embedding job',
          params: clientParams,
          response: { 200: z.object({ sources: z.array(sourceView) }), 404: errorBody },
        },
      },
      async (req) => {
        const client = await requireClient(deps.pool, req.params.clientId);
        const [sources, lastJobs] = await Promise.all([
          listSourcesWithCounts(deps.pool, client.id),
          lastJobsBySource(deps.pool, client.id),
        ]);
        const nextRuns = await Promise.all(sources.map((s) => nextRunOrNull(s)));
        return {
          sources: sources.map((s, i) => {
            const job = lastJobs.get(s.id);
            return {
              sourceId: s.id,
              type: s.type,
              title: s.title,
              url: s.start_url,
              ...scheduleView(s, nextRuns[i] ?? null),
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

    app.patch(
      '/api/admin/clients/:clientId/sources/:sourceId',
      {
        schema: {
          tags: ['admin'],
          summary: 'Set a source’s re-crawl schedule: "off", "daily", "weekly" or a cron pattern (UTC)',
          params: sourceParams,
          body: sourcePatchBody,
          response: { 200: sourceScheduleView, 400: errorBody, 404: errorBody },
        },
      },
      async (req) => {
        const invalid = scheduleError(req.body.schedule);
        if (invalid) throw new BadRequestError('Invalid request', [`schedule ${invalid}`]);
        const source = await requireSource(req.params.clientId, req.params.sourceId);
        if (source.type !== 'website') throw new BadRequestError('Invalid request', [`schedule: a ${source.type} source is not crawled`]);
        // The queue first: a schedule the queue did not take is not saved (the request can be repeated).
        const next = await applySchedule(deps.queues, { ...source, schedule: req.body.schedule });
        const saved = (await setSourceSchedule(deps.pool, source.id, req.body.schedule)) ?? source;
        return { sourceId: saved.id, url: saved.start_url, ...scheduleView(saved, next) };
      },
    );

    app.get(
      '/api/admin/clients/:clientId/sources/:sourceId/changes',
      {
        schema: {
          tags: ['admin'],
          summary: 'What each of the source’s last crawls added, changed and removed, newest first',
          params: sourceParams,
          querystring: changesQuery,
          response: { 200: crawlChangesView, 400: errorBody, 404: errorBody },
        },
      },
      async (req) => {
        const source = await requireSource(req.params.clientId, req.params.sourceId);
        const crawls = await listCrawlChanges(deps.pool, source.id, req.query.limit);
        return {
          sourceId: source.id,
          crawls: crawls.map((c) => ({
            ...c,
            startedAt: c.startedAt?.toISOString() ?? null,
            finishedAt: c.finishedAt?.toISOString() ?? null,
          })),
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
        const client = await requireClient(deps.pool, req.params.clientId);
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
