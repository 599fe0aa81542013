import { createHash } from 'node:crypto';
import { CronExpressionParser } from 'cron-parser';
import type { Pool } from '../db/pool.ts';
import { findClientSource, type SourceRow, scheduledSources } from '../db/sources.ts';
import { type PipelineDeps, startCrawlJob } from '../jobs/start-job.ts';
import type { Logger } from '../logger.ts';
import type { Queues } from '../runtime.ts';

/**
 * Scheduled re-crawls (docs/crawling.md "Re-crawls, scope and changes"): a source's `schedule` is
 * 'off', 'daily', 'weekly' or a cron pattern (5 fields, or 6 with seconds; UTC). One BullMQ job
 * scheduler per source, id `recrawl-<sourceId>`, makes a `crawl.scheduled` job each time; the
 * crawler turns it into a crawl of the source with the options it keeps (or joins the one running).
 * The row is the truth: at start the crawler re-registers every scheduled source, so a Redis that
 * lost its schedulers gets them back, and a scheduler whose source is gone or off removes itself.
 */
export const SCHEDULE_PRESETS = ['off', 'daily', 'weekly'] as const;

export function schedulerId(sourceId: string): string {
  return `recrawl-${sourceId}`;
}

/**
 * The cron pattern of a schedule. Presets run at a minute and hour (and weekday) taken from the
 * source's id, so a deployment's daily re-crawls spread over the day instead of all at midnight.
 */
export function schedulePattern(schedule: string, sourceId: string): string | null {
  if (schedule === 'off') return null;
  const h = createHash('sha256').update(sourceId).digest();
  const minute = (h[0] as number) % 60;
  const hour = (h[1] as number) % 24;
  if (schedule === 'daily') return `${minute} ${hour} * * *`;
  if (schedule === 'weekly') return `${minute} ${hour} * * ${(h[2] as number) % 7}`;
  return schedule;
}

/** Why a schedule is not one, or undefined when it is. */
export function scheduleError(schedule: string): string | undefined {
  if ((SCHEDULE_PRESETS as readonly string[]).includes(schedule)) return undefined;
  const fields = schedule.trim().split(/\s+/);
  if (fields.length < 5 || fields.length > 6) return 'must be "off", "daily", "weekly" or a cron pattern of 5 (or 6, with seconds) fields';
  try {
    CronExpressionParser.parse(schedule, { tz: 'UTC' });
    return undefined;
  } catch (err) {
    return `is not a valid cron pattern (${(err as Error).message})`;
  }
}

/** Registers (or removes) the source's scheduler; returns when it next runs. */
export async function applySchedule(queues: Queues, source: Pick<SourceRow, 'id' | 'client_id' | 'schedule'>): Promise<Date | null> {
  const pattern = schedulePattern(source.schedule, source.id);
  if (!pattern) {
    await queues.crawl.removeScheduler(schedulerId(source.id));
    return null;
  }
  const next = await queues.crawl.upsertScheduler(schedulerId(source.id), pattern, 'crawl.scheduled', {
    clientId: source.client_id,
    sourceId: source.id,
  });
  return next === null ? null : new Date(next);
}

export async function nextRunOf(queues: Queues, source: Pick<SourceRow, 'id' | 'schedule'>): Promise<Date | null> {
  if (source.schedule === 'off') return null;
  const next = await queues.crawl.schedulerNext(schedulerId(source.id));
  return next === null ? null : new Date(next);
}

/** Every scheduled source's scheduler registered again (idempotent): run when the crawler starts. */
export async function reconcileSchedules(pool: Pool, queues: Queues, log: Logger): Promise<number> {
  const sources = await scheduledSources(pool);
  for (const s of sources) await applySchedule(queues, s);
  if (sources.length > 0) log.info({ sources: sources.length }, 're-crawl schedules registered');
  return sources.length;
}

/**
 * A scheduled re-crawl: the source's start URL with the options it keeps. A source that is gone
 * or no longer scheduled removes its scheduler and does nothing.
 */
export async function runScheduledCrawl(
  deps: PipelineDeps,
  data: { clientId: string; sourceId: string },
): Promise<{ outcome: string; jobId?: string }> {
  const source = await findClientSource(deps.pool, data.clientId, data.sourceId);
  if (!source || source.schedule === 'off') {
    await deps.queues.crawl.removeScheduler(schedulerId(data.sourceId));
    return { outcome: 'unscheduled' };
  }
  const o = source.crawl_options;
  const { job, joined } = await startCrawlJob(
    deps,
    {
      clientId: source.client_id,
      url: source.start_url,
      maxPages: o.maxPages ?? deps.config.MAX_PAGES_DEFAULT,
      render: o.render ?? 'auto',
      ...(o.include ? { include: o.include } : {}),
      ...(o.exclude ? { exclude: o.exclude } : {}),
    },
    'the source’s client is gone',
  );
  deps.log.info({ sourceId: source.id, jobId: job.id, joined }, 'scheduled re-crawl');
  return { outcome: joined ? 'joined' : 'started', jobId: job.id };
}
