import { loadConfig } from '@kbchat/shared/config';
import { createLogger } from '@kbchat/shared/logger';
import { QueueProducer } from '@kbchat/shared/queue/contract';
import { allQueues } from '@kbchat/shared/queue/queues';
import { createRedis, createWorkerRedis } from '@kbchat/shared/redis';
import { Queue, QueueEvents } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChildService, spawnNode, testEnv, waitFor } from '../support/kbchat.ts';
import { probeQueue } from '../support/probe-queue.ts';

describe('queue contract across two processes', () => {
  const env = testEnv();
  const prefix = env.REDIS_PREFIX as string;
  const redis = createWorkerRedis(env.REDIS_URL as string);
  const producerConn = createRedis(env.REDIS_URL as string);
  let consumer: ChildService;
  let producer: QueueProducer<typeof probeQueue>;
  let events: QueueEvents;

  beforeAll(async () => {
    consumer = spawnNode('test/support/queue-consumer.ts', { REDIS_URL: env.REDIS_URL as string, REDIS_PREFIX: prefix });
    await waitFor(() => consumer.output().includes('consumer ready'), { timeoutMs: 30_000, what: 'consumer process' });
    producer = new QueueProducer(probeQueue, producerConn, loadConfig(env), createLogger({ level: 'silent' }));
    events = new QueueEvents('probe', { connection: createWorkerRedis(env.REDIS_URL as string), prefix: `{${prefix}}` });
    await events.waitUntilReady();
  });

  afterAll(async () => {
    consumer?.kill('SIGTERM');
    await consumer?.exited;
    await events?.close();
    await producer?.close();
    producerConn.disconnect();
    redis.disconnect();
  });

  it('a job enqueued here is consumed by the other process with its validated payload', async () => {
    const job = await producer.add('probe.echo', { n: 21, label: 'hello' });
    const result = await job.waitUntilFinished(events, 20_000);
    expect(result).toEqual({ ok: true, doubled: 42 });
    const handled = (await redis.lrange(`${prefix}:handled`, 0, -1)).map((s) => JSON.parse(s));
    expect(handled).toHaveLength(1);
    expect(handled[0].data).toEqual({ n: 21, label: 'hello' });
    expect(handled[0].pid).toBe(consumer.child.pid);
    expect(handled[0].pid).not.toBe(process.pid);
  });

  it('the producer refuses a bad payload before it reaches Redis', async () => {
    const before = await producer.queue.getJobCounts();
    await expect(producer.add('probe.echo', { n: 'x', label: '' } as never)).rejects.toThrow();
    await expect(producer.add('probe.nope' as never, { n: 1, label: 'a' } as never)).rejects.toThrow(/no job named/);
    expect(await producer.queue.getJobCounts()).toEqual(before);
  });

  it('the consumer rejects a bad payload outright: failed, never retried, handler never run', async () => {
    // A producer that bypasses the contract (an old deploy, a hand-written job).
    const raw = new Queue('probe', { connection: producerConn, prefix: `{${prefix}}` });
    const handledBefore = await redis.llen(`${prefix}:handled`);
    const job = await raw.add('probe.echo', { n: 'not a number' }, { attempts: 3 });
    await expect(job.waitUntilFinished(events, 20_000)).rejects.toThrow(/invalid payload/);
    const failed = await raw.getJob(job.id as string);
    expect(failed?.attemptsMade).toBe(1);
    expect(await failed?.getState()).toBe('failed');
    expect(await redis.llen(`${prefix}:handled`)).toBe(handledBefore);
    await raw.close();
  });

  it('every real queue bounds what Redis keeps', () => {
    // As a deployment builds them: from its config (defaults here).
    for (const q of allQueues.map((definition) => definition.jobOptions(loadConfig(env)))) {
      expect(q.defaultJobOptions.removeOnComplete).toMatchObject({ count: expect.any(Number) });
      expect(q.defaultJobOptions.removeOnFail).toMatchObject({ count: expect.any(Number) });
      expect(q.defaultJobOptions.attempts).toBeGreaterThan(1);
    }
  });
});
