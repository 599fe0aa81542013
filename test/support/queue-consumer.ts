// A separate process that consumes the test queue through the real contract (registerWorker),
// recording each handled payload in a Redis list. Started by queue-contract.test.ts.
import { createLogger } from '@kbchat/shared/logger';
import { registerWorker } from '@kbchat/shared/queue/contract';
import { createWorkerRedis } from '@kbchat/shared/redis';
import { probeQueue } from './probe-queue.ts';

const redisUrl = process.env.REDIS_URL as string;
const prefix = process.env.REDIS_PREFIX as string;
const connection = createWorkerRedis(redisUrl);
const results = createWorkerRedis(redisUrl);

const worker = registerWorker(
  probeQueue,
  {
    'probe.echo': async (data) => {
      await results.rpush(`${prefix}:handled`, JSON.stringify({ pid: process.pid, data }));
      return { ok: true, doubled: data.n * 2 };
    },
  },
  { connection, redisPrefix: prefix, concurrency: 2, log: createLogger({ level: 'silent' }) },
);
await worker.waitUntilReady();
process.stdout.write('consumer ready\n');

process.on('SIGTERM', async () => {
  await worker.close();
  connection.disconnect();
  results.disconnect();
  process.exit(0);
});
