import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { freePort } from '@kbchat/shared/redis';
import { describe, expect, it } from 'vitest';
import { api, spawnNode, tempDir, testEnv, waitFor, waitForHttp } from '../support/kbchat.ts';

/** `pnpm start` as a newcomer runs it: no DATABASE_URL, so the embedded Postgres under DATA_DIR. */
function embeddedEnv(dataDir: string, port: number): Record<string, string> {
  const { REDIS_URL, REDIS_PREFIX } = testEnv();
  return { DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info', REDIS_URL: REDIS_URL as string, REDIS_PREFIX: REDIS_PREFIX as string };
}

describe('embedded start', () => {
  it('starts on a fresh DATA_DIR, and a client created before a restart is there after it', async () => {
    const dataDir = await tempDir('kbchat-data-');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;

    const first = spawnNode('bin/kbchat.ts', embeddedEnv(dataDir, port));
    try {
      await waitForHttp(`${base}/healthz`);
      expect(first.output()).toMatch(/embedded Postgres \(PGlite \+ pgvector\) started/);
      expect(first.output()).toMatch(/no OPENAI_API_KEY/);
      // Piped output is JSON lines; the start line is one short sentence, not the whole configuration.
      await waitFor(() => first.output().includes('kbchat 0.1.0 started'), { what: 'the start line' });
      const lines = first.output().trim().split('\n');
      for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
      const started = lines.map((l) => JSON.parse(l) as { msg: string }).find((l) => l.msg.startsWith('kbchat 0.1.0 started'));
      expect(started?.msg).toBe(
        `kbchat 0.1.0 started: ${base} · gateway, crawler, embedder · embedded PGlite (${dataDir}) · redis ${new URL(testEnv().REDIS_URL as string).host} · chat extractive, embeddings local`,
      );
      expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(600);
      const created = await api<{ clientId: string }>(base, 'POST', '/api/admin/clients', { name: 'Persistent Co' });
      expect(created.status).toBe(201);

      first.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      expect(first.output()).toMatch(/shutdown complete/);

      const second = spawnNode('bin/kbchat.ts', embeddedEnv(dataDir, port));
      try {
        await waitForHttp(`${base}/healthz`);
        const got = await api<{ name: string }>(base, 'GET', `/api/admin/clients/${created.body.clientId}`);
        expect(got.status).toBe(200);
        expect(got.body.name).toBe('Persistent Co');
        expect((await api(base, 'GET', '/readyz')).status).toBe(200);
      } finally {
        second.kill('SIGTERM');
        expect(await second.exited).toBe(0);
      }
    } finally {
      first.kill('SIGKILL');
    }
  });

  it('refuses a second process on the same DATA_DIR with a clear message', async () => {
    const dataDir = await tempDir('kbchat-data-');
    const [p1, p2] = [await freePort(), await freePort()];
    const first = spawnNode('bin/kbchat.ts', embeddedEnv(dataDir, p1));
    try {
      await waitForHttp(`http://127.0.0.1:${p1}/healthz`);
      const second = spawnNode('bin/kbchat.ts', embeddedEnv(dataDir, p2));
      expect(await second.exited).toBe(1);
      expect(second.output()).toMatch(/in use by process \d+.*DATABASE_URL/s);
    } finally {
      first.kill('SIGTERM');
      await first.exited;
    }
  });

  it('reads .env from the working directory, and a real environment variable beats it', async () => {
    const dir = await tempDir('kbchat-env-');
    await writeFile(path.join(dir, '.env'), 'PORT=eighty\nMAX_PAGES_LIMIT=-3\n');
    const fromFile = spawnNode('bin/kbchat.ts', {}, [], dir);
    expect(await fromFile.exited).toBe(1);
    expect(fromFile.output()).toMatch(/PORT must be a number \(got "eighty"\)/);

    const overridden = spawnNode('bin/kbchat.ts', { PORT: '3000' }, [], dir);
    expect(await overridden.exited).toBe(1);
    expect(overridden.output()).not.toMatch(/PORT/);
    expect(overridden.output()).toMatch(/MAX_PAGES_LIMIT must be at least 1/);
  });

  it('exits 1 with one message naming a bad variable', async () => {
    const child = spawnNode('bin/kbchat.ts', { PORT: 'eighty', MAX_PAGES_LIMIT: '-3' });
    expect(await child.exited).toBe(1);
    expect(child.output()).toMatch(/PORT must be a number/);
    expect(child.output()).toMatch(/MAX_PAGES_LIMIT must be at least 1/);
  });

  it('exits 1 naming ADMIN_API_KEY when it has whitespace at an end or is one repeated character', async () => {
    for (const [key, reason] of [
      [' kbchat-admin-key-0123456789 ', /ADMIN_API_KEY must not start or end with whitespace/],
      ['k'.repeat(32), /ADMIN_API_KEY must have at least 5 different characters/],
    ] as const) {
      const child = spawnNode('bin/kbchat.ts', { ADMIN_API_KEY: key });
      expect(await child.exited).toBe(1);
      expect(child.output()).toMatch(reason);
      expect(child.output()).not.toContain(key.trim());
    }
  });
});
