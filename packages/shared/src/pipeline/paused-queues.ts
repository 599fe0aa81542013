import type { Queues } from '../runtime.ts';

export type QueueName = keyof Queues;

/**
 * Which of the named queues are paused (docs/pipeline.md "Paused queues"). A pause is kept in
 * Redis and outlives restarts, so work sent to a paused queue waits until an operator resumes it:
 * /readyz reports it, and the synchronous admin endpoints answer 202 at once instead of waiting.
 */
export async function pausedQueues(queues: Queues, names: readonly QueueName[] = ['crawl', 'embed', 'webhook']): Promise<QueueName[]> {
  const flags = await Promise.all(names.map((name) => queues[name].paused()));
  return names.filter((_, i) => flags[i]);
}

/** "the crawl queue is paused", "the crawl and embed queues are paused". */
export function describePaused(names: readonly QueueName[]): string {
  const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? '');
  return `the ${list} ${names.length > 1 ? 'queues are' : 'queue is'} paused`;
}
