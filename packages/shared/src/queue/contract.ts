import { DelayedError, type Job, type JobsOptions, Queue, UnrecoverableError, Worker, type WorkerOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { z } from 'zod';
import type { Config } from '../config.ts';
import { derivedRedisPrefix, installTag } from '../install.ts';
import type { Logger } from '../logger.ts';
import { logRedisErrors } from '../redis.ts';
import { isFinalAttempt } from './attempts.ts';

/**
 * The one queue contract: a queue's name, its job names with their zod payloads and its default
 * job options, shared by the producer (`QueueProducer.add`) and the consumer (`registerWorker`)
 * so the two sides cannot drift. New payload fields must arrive as `.optional()` so jobs already
 * in Redis survive a rolling deploy.
 */
export interface QueueDefinition<Jobs extends Record<string, z.ZodType>> {
  name: string;
  jobs: Jobs;
  /**
   * Attempts, backoff and retention of the queue's jobs, built from config once when the producer
   * is made: the one place a retry policy is decided, so enqueue sites pass only a job id or a delay.
   */
  jobOptions: (config: QueueConfig) => QueueJobOptions<Jobs>;
}

/** The config a queue's retry policy is built from. */
export type QueueConfig = Pick<
  Config,
  | 'CRAWL_PAGE_ATTEMPTS'
  | 'CRAWL_RETRY_DELAY_MS'
  | 'EMBED_JOB_ATTEMPTS'
  | 'EMBED_RETRY_DELAY_MS'
  | 'WEBHOOK_MAX_ATTEMPTS'
  | 'WEBHOOK_BACKOFF_MS'
>;

export interface QueueJobOptions<Jobs extends Record<string, z.ZodType>> {
  /** Every job of the queue (and its job schedulers). */
  defaultJobOptions: JobsOptions;
  /** Where one job name needs another policy than the queue's. */
  byJobName?: { [N in keyof Jobs]?: JobsOptions };
}

export function defineQueue<const Jobs extends Record<string, z.ZodType>>(def: QueueDefinition<Jobs>): QueueDefinition<Jobs> {
  return def;
}

type AnyQueue = QueueDefinition<Record<string, z.ZodType>>;
export type JobName<Q extends AnyQueue> = keyof Q['jobs'] & string;
export type JobInput<Q extends AnyQueue, N extends JobName<Q>> = z.input<Q['jobs'][N]>;
export type JobData<Q extends AnyQueue, N extends JobName<Q>> = z.output<Q['jobs'][N]>;

/** Bounded retention: Redis must not grow forever. */
export const RETENTION = {
  removeOnComplete: { age: 24 * 3600, count: 1000 },
  removeOnFail: { age: 7 * 24 * 3600, count: 5000 },
} as const satisfies JobsOptions;

/**
 * BullMQ prefix: a {hash tag}, so every key of a queue lands in one Redis Cluster slot. With the
 * database's id (kbchat_install.id) the queues are that database's own, even where two deployments
 * share a Redis and a REDIS_PREFIX: a job means something only to the database that enqueued it
 * (docs/pipeline.md "One database per queue"). An embedded install's derived prefix has the id already.
 */
export function queuePrefix(redisPrefix: string, installId?: string): string {
  if (installId === undefined) return `{${redisPrefix}}`;
  return `{${redisPrefix.endsWith(installTag(installId)) ? redisPrefix : derivedRedisPrefix(redisPrefix, installId)}}`;
}

/**
 * The payload field naming the database a job belongs to (kbchat_install.id), added by the producer
 * beside the job's own fields. A worker of another database on the same queues hands such a job back
 * instead of running it (registerWorker); jobs without it (enqueued before it existed) run anywhere.
 */
export const JOB_OWNER_FIELD = 'install';

/** How long a worker leaves another database's job before it is handed out again: short, longer as the job ages. */
function foreignJobDelayMs(job: Job): number {
  const base = Math.min(30_000, Math.max(200, (Date.now() - job.timestamp) / 20));
  return Math.round(base + Math.random() * base);
}

export class QueueProducer<Q extends AnyQueue> {
  readonly queue: Queue;
  readonly definition: Q;
  readonly options: QueueJobOptions<Q['jobs']>;
  private readonly owner: string | undefined;

  constructor(definition: Q, connection: Redis, config: QueueConfig & Pick<Config, 'REDIS_PREFIX'>, log: Logger, owner?: string) {
    this.definition = definition;
    this.options = definition.jobOptions(config);
    this.owner = owner;
    this.queue = new Queue(definition.name, {
      connection,
      prefix: queuePrefix(config.REDIS_PREFIX, owner),
      defaultJobOptions: this.options.defaultJobOptions,
      // Producers sit on request paths: fail fast when Redis is away, the caller has a fallback.
      skipWaitingForReady: true,
    });
    this.queue.on('error', logRedisErrors(log, { queue: definition.name }));
  }

  /**
   * Validates the payload before it reaches Redis: a bad payload is never enqueued. `opts` names
   * the job (a deterministic jobId) or delays it; attempts and backoff come from the definition.
   */
  async add<N extends JobName<Q>>(name: N, data: JobInput<Q, N>, opts: JobsOptions = {}): Promise<Job> {
    const payload = this.parse(name, data);
    return this.queue.add(name, payload, this.optionsOf(name, opts));
  }

  async addBulk<N extends JobName<Q>>(jobs: { name: N; data: JobInput<Q, N>; opts?: JobsOptions }[]): Promise<Job[]> {
    return this.queue.addBulk(jobs.map((j) => ({ name: j.name, data: this.parse(j.name, j.data), opts: this.optionsOf(j.name, j.opts) })));
  }

  private optionsOf(name: JobName<Q>, opts: JobsOptions = {}): JobsOptions {
    return { ...this.options.byJobName?.[name], ...opts };
  }

  private parse<N extends JobName<Q>>(name: N, data: unknown): JobData<Q, N> {
    const schema = this.definition.jobs[name];
    if (!schema) throw new Error(`Queue ${this.definition.name} has no job named ${name}`);
    const parsed = schema.parse(data) as JobData<Q, N>;
    return this.owner === undefined ? parsed : ({ ...(parsed as object), [JOB_OWNER_FIELD]: this.owner } as JobData<Q, N>);
  }

  /**
   * One BullMQ job scheduler under `id` (created or replaced): a job `name` on `pattern` (cron,
   * UTC). Kept in Redis, so it survives restarts; BullMQ makes one job per iteration however many
   * workers run. Returns when the next job is due (ms since the epoch).
   */
  async upsertScheduler<N extends JobName<Q>>(id: string, pattern: string, name: N, data: JobInput<Q, N>): Promise<number | null> {
    const job = await this.queue.upsertJobScheduler(id, { pattern, tz: 'UTC' }, { name, data: this.parse(name, data) });
    return nextOf(job);
  }

  async removeScheduler(id: string): Promise<void> {
    await this.queue.removeJobScheduler(id);
  }

  /** When the scheduler's next job is due (ms since the epoch); null when there is no such scheduler. */
  async schedulerNext(id: string): Promise<number | null> {
    const s = await this.queue.getJobScheduler(id);
    return typeof s?.next === 'number' ? s.next : null;
  }

  /** Paused (bull-board's pause, or queue.pause()): kept in Redis, so it survives restarts; workers take no job until resumed. */
  paused(): Promise<boolean> {
    return this.queue.isPaused();
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}

function nextOf(job: Job | undefined): number | null {
  if (!job) return null;
  return job.timestamp + (job.opts.delay ?? 0);
}

export type JobHandlers<Q extends AnyQueue> = {
  [N in JobName<Q>]: (data: JobData<Q, N>, job: Job) => Promise<unknown>;
};

/**
 * Registers a worker for every job name of a queue. A handler missing for any job name fails
 * at boot; a payload that does not match its schema fails the job at once, before any work
 * (UnrecoverableError: no retry, nothing half-done).
 */
export function registerWorker<Q extends AnyQueue>(
  definition: Q,
  handlers: JobHandlers<Q>,
  options: {
    connection: Redis;
    redisPrefix: string;
    concurrency: number;
    log: Logger;
    /** This process's database (kbchat_install.id): jobs stamped with another one are handed back. */
    owner?: string;
    worker?: Partial<WorkerOptions>;
  },
): Worker {
  const missing = Object.keys(definition.jobs).filter((n) => typeof (handlers as Record<string, unknown>)[n] !== 'function');
  if (missing.length > 0) throw new Error(`Queue ${definition.name}: no handler for job(s) ${missing.join(', ')}`);
  const log = options.log.child({ queue: definition.name });

  const worker = new Worker(
    definition.name,
    async (job: Job, token?: string) => {
      const owner = (job.data as Record<string, unknown> | null | undefined)?.[JOB_OWNER_FIELD];
      if (options.owner !== undefined && typeof owner === 'string' && owner !== options.owner) {
        // Another database's job on shared queues: running it here would find nothing and lose it.
        await job.moveToDelayed(Date.now() + foreignJobDelayMs(job), token);
        throw new DelayedError();
      }
      const schema = definition.jobs[job.name];
      const handler = (handlers as Record<string, ((data: unknown, job: Job) => Promise<unknown>) | undefined>)[job.name];
      if (!schema || !handler) throw new UnrecoverableError(`unknown job name ${job.name}`);
      const parsed = schema.safeParse(job.data);
      if (!parsed.success) {
        log.error({ jobId: job.id, jobName: job.name, issues: parsed.error.issues.slice(0, 5) }, 'job payload rejected');
        throw new UnrecoverableError(
          `invalid payload for ${job.name}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
        );
      }
      return handler(parsed.data, job);
    },
    {
      connection: options.connection,
      prefix: queuePrefix(options.redisPrefix, options.owner),
      concurrency: options.concurrency,
      autorun: true,
      ...options.worker,
    },
  );
  worker.on('failed', (job, err) => {
    if (!job) return;
    const final = isFinalAttempt(job, err, { counted: true });
    log[final ? 'error' : 'warn'](
      { jobId: job.id, jobName: job.name, attempt: job.attemptsMade, err: { message: err.message } },
      final ? 'job failed' : 'job failed, will retry',
    );
  });
  worker.on('error', (err) => log.warn({ err: { message: err.message } }, 'worker error'));
  return worker;
}
