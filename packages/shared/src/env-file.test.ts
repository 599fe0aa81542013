import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadEnvFile } from './env-file.ts';

describe('loadEnvFile', () => {
  it('fills unset variables from the file; the real environment wins', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kbchat-env-'));
    const file = path.join(dir, '.env');
    writeFileSync(file, '# a comment\nPORT=4000\nLOG_LEVEL=debug\nADMIN_API_KEY="quoted value here"\nEMPTY=\n');
    const env: NodeJS.ProcessEnv = { PORT: '5000' };
    expect(loadEnvFile(file, env)).toBe(file);
    expect(env).toEqual({ PORT: '5000', LOG_LEVEL: 'debug', ADMIN_API_KEY: 'quoted value here', EMPTY: '' });
  });

  it('does nothing when the file does not exist', () => {
    const env: NodeJS.ProcessEnv = {};
    expect(loadEnvFile(path.join(os.tmpdir(), 'no-such-dir-kbchat', '.env'), env)).toBeUndefined();
    expect(env).toEqual({});
  });
});
