import { describe, expect, it } from 'vitest';
import { spawnNode } from '../support/kbchat.ts';

/**
 * scripts/run.mjs, behind npm start / npm test: on Node 24 with node_modules current it only runs
 * the command (the fetch of Node and pnpm on an older Node is .ci/run's last step, from a clean clone).
 */
describe('scripts/run.mjs', () => {
  it("runs a file on this Node and returns the command's exit code and output", async () => {
    const child = spawnNode('scripts/run.mjs', { PORT: 'eighty' }, ['bin/kbchat.ts']);
    expect(await child.exited).toBe(1);
    expect(child.output()).toMatch(/PORT must be a number/);
    expect(child.output()).not.toMatch(/fetching|installing/);
  });

  it("runs a node_modules/.bin command and drops the '--' pnpm passes on", async () => {
    const child = spawnNode('scripts/run.mjs', {}, ['biome', '--', '--version']);
    expect(await child.exited).toBe(0);
    expect(child.output()).toMatch(/^Version: \d+\.\d+\.\d+/m);
  });

  it('names a command it cannot find', async () => {
    const child = spawnNode('scripts/run.mjs', {}, ['no-such-tool']);
    expect(await child.exited).toBe(1);
    expect(child.output()).toMatch(/kbchat: no no-such-tool in node_modules\/\.bin/);
  });
});
