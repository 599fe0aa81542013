import { type Job, UnrecoverableError } from 'bullmq';

/**
 * Whether BullMQ will not retry the job after this attempt fails: the error is an
 * UnrecoverableError, or the job has no attempts left. Processors use it to settle their work on
 * the last attempt (a page counted as failed, a lead marked failed) instead of leaving it open.
 *
 * BullMQ counts an attempt in `attemptsMade` only once it has ended: inside a processor the running
 * attempt is `attemptsMade + 1`; in a 'failed' listener it is already counted — pass
 * `{ counted: true }` there.
 */
export function isFinalAttempt(job: Pick<Job, 'attemptsMade' | 'opts'>, err?: unknown, opts: { counted?: boolean } = {}): boolean {
  if (err instanceof UnrecoverableError) return true;
  const attempt = opts.counted ? job.attemptsMade : job.attemptsMade + 1;
  return attempt >= (job.opts.attempts ?? 1);
}
