import type { TestProject } from 'vitest/node';
import { type InfraMode, startTestInfra } from '../support/infra.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string;
    runId: string;
    infraMode: InfraMode;
  }
}

export default async function setup(project: TestProject) {
  const infra = await startTestInfra();
  process.stderr.write(
    `[kbchat tests] infrastructure: ${infra.mode} Postgres, Redis ${new URL(infra.redisUrl).host}, run ${infra.runId}\n`,
  );
  project.provide('databaseUrl', infra.databaseUrl);
  project.provide('redisUrl', infra.redisUrl);
  project.provide('runId', infra.runId);
  project.provide('infraMode', infra.mode);
  return () => infra.stop();
}
