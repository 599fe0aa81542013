import { createHash } from 'node:crypto';

/**
 * Deterministic BullMQ job ids of the crawl queue (BullMQ forbids ':' in custom ids). Whoever
 * enqueues a step — the gateway, a page, a retry, the watchdog — uses the same id, so the step
 * exists once however often it is enqueued.
 */
export function startJobId(jobId: string): string {
  return `start-${jobId}`;
}

export function pageJobId(jobId: string, url: string): string {
  return `page-${jobId}-${createHash('sha1').update(url).digest('hex')}`;
}

export function finishJobId(jobId: string): string {
  return `finish-${jobId}`;
}
