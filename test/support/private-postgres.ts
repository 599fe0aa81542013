import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '@kbchat/shared/redis';

const run = promisify(execFile);

/** Debian's Postgres 15, whose share directory also holds pgvector (CREATE EXTENSION vector works). */
export const POSTGRES_BIN = '/usr/lib/postgresql/15/bin';
export const hasPostgresBinaries = existsSync(path.join(POSTGRES_BIN, 'pg_ctl')) && existsSync(path.join(POSTGRES_BIN, 'initdb'));

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust authentication, superuser). */
  url: string;
  port: number;
  /** pg_ctl stop -m fast: every connection is closed, the server is gone until start(). */
  stop(): Promise<void>;
  /** Starts the same cluster again on the same port. */
  start(): Promise<void>;
  /** Stops it (if running) and deletes its files. */
  destroy(): Promise<void>;
}

/**
 * A Postgres cluster of a test's own, in a temp directory on a free port, so a fault test can stop
 * and start it without touching the shared server. initdb refuses to run as root, so when the
 * tests run as root the cluster belongs to the system's postgres user (runuser).
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  if (!hasPostgresBinaries) throw new Error(`no Postgres binaries in ${POSTGRES_BIN}`);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kbchat-pg-'));
  const data = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const [uid, gid] = await Promise.all(['-u', '-g'].map(async (f) => Number((await run('id', [f, 'postgres'])).stdout.trim())));
    await chown(dir, uid as number, gid as number);
  }
  const pg = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(POSTGRES_BIN, tool), ...args]) : run(path.join(POSTGRES_BIN, tool), args);

  const port = await freePort();
  let running = false;
  const start = async () => {
    await pg('pg_ctl', [
      '-D',
      data,
      '-l',
      path.join(dir, 'server.log'),
      '-w',
      '-t',
      '60',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`,
      'start',
    ]);
    running = true;
  };
  const stop = async () => {
    await pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
    running = false;
  };
  try {
    await pg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C.UTF-8']);
    await start();
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop,
    start,
    async destroy() {
      if (running) await stop().catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}
