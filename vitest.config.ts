import { defineConfig } from 'vitest/config';

// Three tiers (README, "Testing"): `pnpm test:unit`, `pnpm test:integration`, `pnpm test:e2e`;
// `pnpm test` runs all three.
/** Tests that start kbchat's own processes (or a browser, or break its connections) and talk HTTP. */
const E2E = [
  'test/browser/**/*.test.ts',
  'test/faults/**/*.test.ts',
  'test/foundation/embedded-start.test.ts',
  'test/foundation/run-script.test.ts',
  'test/foundation/worker-health.test.ts',
  'test/ui/cli.test.ts',
];
/** Real Postgres and Redis for the run (test/support/infra.ts), provided to the tests. */
const INFRA = ['test/setup/global-setup.ts'];

export default defineConfig({
  test: {
    exclude: ['**/node_modules/**'],
    pool: 'forks',
    // Two cores: more workers only contend for CPU with the services the tests start.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    // expect.poll waits on the services' work (a re-embed, a queue hop): 1 s, its default, fails on a loaded CI machine.
    expect: { poll: { timeout: 15_000 } },
    reporters: ['default'],
    projects: [
      // Next to the code, no Postgres, Redis or network: seconds.
      { extends: true, test: { name: 'unit', include: ['packages/*/src/**/*.test.ts', 'services/*/src/**/*.test.ts'] } },
      // Against real Postgres and Redis, services started in the test's process.
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts'], exclude: E2E, globalSetup: INFRA } },
      { extends: true, test: { name: 'e2e', include: E2E, globalSetup: INFRA } },
    ],
  },
});
