import type { TestProject } from 'vitest/node';
import { type InfraMode, startTestInfra, type TestInfra } from '../support/infra.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string;
    runId: string;
    infraMode: InfraMode;
  }
}

/**
 * The integration and end-to-end projects (vitest.config.ts) both name this file, and vitest runs
 * each project's global setup, in its own module instance, in the one main process: the run's
 * infrastructure is kept on globalThis so a run of both tiers starts it once and stops it after the last.
 */
const shared = globalThis as typeof globalThis & { kbchatTestInfra?: { infra: Promise<TestInfra>; users: number } };

export default async function setup(project: TestProject) {
  if (!shared.kbchatTestInfra) {
    const infra = startTestInfra();
    shared.kbchatTestInfra = { infra, users: 0 };
    infra.then(
      (i) => process.stderr.write(`[kbchat tests] infrastructure: ${i.mode} Postgres, Redis ${new URL(i.redisUrl).host}, run ${i.runId}\n`),
      () => {},
    );
  }
  const entry = shared.kbchatTestInfra;
  entry.users++;
  const infra = await entry.infra;
  project.provide('databaseUrl', infra.databaseUrl);
  project.provide('redisUrl', infra.redisUrl);
  project.provide('runId', infra.runId);
  project.provide('infraMode', infra.mode);
  return async () => {
    if (--entry.users > 0) return;
    shared.kbchatTestInfra = undefined;
    await infra.stop();
  };
}
