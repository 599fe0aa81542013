import { z } from 'zod';
import { defineQueue, RETENTION } from './contract.ts';

/**
 * Every queue kbchat uses. Payloads carry ids, not rows: a processor re-reads the database,
 * and treats "the row is gone" (a client deleted meanwhile) as done. Retry policies come from
 * config here and nowhere else (docs/pipeline.md, docs/webhooks.md list the variables).
 */

const uuid = z.uuid();

/** Crawl work: starting a crawl, fetching one page, and finishing a crawl. Consumed by the crawler. */
export const crawlQueue = defineQueue({
  name: 'crawl',
  jobs: {
    /** Reads robots.txt and sitemaps, seeds the frontier with the start URL. */
    'crawl.start': z.object({ jobId: uuid, clientId: uuid }),
    /** Fetches, extracts, chunks and stores one URL claimed in crawl_urls. */
    'crawl.page': z.object({ jobId: uuid, clientId: uuid, url: z.string().url().max(4096), depth: z.number().int().min(0) }),
    /** Completes a crawl whose frontier is empty: removes vanished pages, writes the result. */
    'crawl.finish': z.object({ jobId: uuid, clientId: uuid }),
    /** A source's scheduled re-crawl (one job scheduler per source: pipeline/schedules.ts). */
    'crawl.scheduled': z.object({ clientId: uuid, sourceId: uuid }),
  },
  jobOptions: (config) => ({
    // Bookkeeping jobs (start, finish, scheduled) fail only when Postgres or Redis is away: a few quick retries.
    defaultJobOptions: { attempts: 4, backoff: { type: 'exponential', delay: 1_000 }, ...RETENTION },
    byJobName: {
      // A page retries on 5xx, 429, timeouts and network errors, then is counted as failed.
      'crawl.page': { attempts: config.CRAWL_PAGE_ATTEMPTS, backoff: { type: 'exponential', delay: config.CRAWL_RETRY_DELAY_MS } },
    },
  }),
});

/** Embedding work, consumed by the embedder. */
export const embedQueue = defineQueue({
  name: 'embed',
  jobs: {
    /** Embeds the given documents (one page's chunks, or a slice of a generate-embeddings run). */
    'embed.documents': z.object({
      clientId: uuid,
      jobId: uuid.optional(),
      documentIds: z.array(uuid).min(1).max(5000),
    }),
  },
  jobOptions: (config) => ({
    // After the provider SDK's own retries; the last attempt gives the documents up (stored unembedded).
    defaultJobOptions: {
      attempts: config.EMBED_JOB_ATTEMPTS,
      backoff: { type: 'exponential', delay: config.EMBED_RETRY_DELAY_MS },
      ...RETENTION,
    },
  }),
});

/** Lead webhooks, consumed by the crawler (all egress to user-supplied URLs leaves from there). */
export const webhookQueue = defineQueue({
  name: 'webhook',
  jobs: {
    'webhook.lead': z.object({ leadId: uuid, clientId: uuid }),
  },
  jobOptions: (config) => ({
    defaultJobOptions: {
      attempts: config.WEBHOOK_MAX_ATTEMPTS,
      // Jitter spreads the retries of many leads to one receiver that comes back at once.
      backoff: { type: 'exponential', delay: config.WEBHOOK_BACKOFF_MS, jitter: 0.2 },
      ...RETENTION,
    },
  }),
});

export const allQueues = [crawlQueue, embedQueue, webhookQueue] as const;
