import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/**
 * PGlite's own default is Postgres's 128 MB of shared buffers, all of it resident in the WASM heap
 * once touched. The data files live on the machine's disk, whose page cache serves re-reads, so a
 * smaller pool costs little time and saves its size in every idle process. Measured on the
 * PostgreSQL docs crawl (embedded time / native time, idle RSS of pnpm start): 16 MB 2.28× / ~338 MB,
 * 24 MB 2.05× / ~350 MB, 32 MB 1.85× / ~362 MB (docs/performance.md).
 */
const MEMORY_SETTINGS = ['-c', 'shared_buffers=24MB', '-c', 'temp_buffers=4MB'];

export interface EmbeddedPostgres {
  /** Connection string for `pg`: the same code path as a real server. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * PGlite (Postgres compiled to WASM) with pgvector, served on loopback over the Postgres wire
 * protocol. One backend behind a multiplexer: transactions are serialised, and session state
 * (`SET`) is shared by every connection, so code uses `SET LOCAL` inside transactions only.
 *
 * `dataDir` undefined keeps everything in memory (tests); otherwise data survives restarts.
 * A lock file stops a second process from opening the same directory.
 */
export async function startEmbeddedPostgres(options: { dataDir?: string; port?: number } = {}): Promise<EmbeddedPostgres> {
  let releaseLock = async () => {};
  if (options.dataDir) {
    await mkdir(options.dataDir, { recursive: true });
    releaseLock = await acquireDirLock(path.join(path.dirname(options.dataDir), `${path.basename(options.dataDir)}.lock`));
  }
  try {
    const openDb = () =>
      PGlite.create({
        ...(options.dataDir ? { dataDir: options.dataDir } : {}),
        extensions: { vector, btree_gin, unaccent },
        startParams: [...PGlite.defaultStartParams, ...MEMORY_SETTINGS],
      });
    // Creating a cluster unpacks a template into the WASM heap, which never shrinks: done by a
    // short-lived child process, it leaves this one ~150 MB lighter for its whole life.
    if (options.dataDir !== undefined && !existsSync(path.join(options.dataDir, 'PG_VERSION'))) await createCluster(options.dataDir);
    const db = await openDb();
    await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
    const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: options.port ?? 0, maxConnections: 256 });
    await server.start();
    const port = Number(server.getServerConn().split(':').pop());
    return {
      url: `postgres://postgres@127.0.0.1:${port}/postgres?sslmode=disable`,
      port,
      async stop() {
        await server.stop();
        await db.close();
        await releaseLock();
      },
    };
  } catch (err) {
    await releaseLock();
    throw err;
  }
}

/** Creates the cluster in dataDir from a child process (the caller holds the directory's lock). */
async function createCluster(dataDir: string): Promise<void> {
  const script = `const { PGlite } = await import(${JSON.stringify(import.meta.resolve('@electric-sql/pglite'))});
const db = await PGlite.create({ dataDir: process.argv[1] });
await db.close();`;
  await new Promise<void>((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', script, dataDir], { timeout: 120_000 }, (err, _stdout, stderr) =>
      err ? reject(new Error(`Could not create the embedded database in ${dataDir}: ${stderr.trim() || err.message}`)) : resolve(),
    );
  });
}

/** An exclusive lock file holding our pid; a stale one (its process gone) is taken over. */
async function acquireDirLock(lockPath: string): Promise<() => Promise<void>> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(lockPath, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return async () => {
        await rm(lockPath, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = Number((await readFile(lockPath, 'utf8').catch(() => '')).trim());
      if (pid && pid !== process.pid && isAlive(pid)) {
        throw new Error(
          `The embedded database in ${path.dirname(lockPath)} is in use by process ${pid}. ` +
            'Run one kbchat process on the embedded defaults, or set DATABASE_URL to share a Postgres server.',
        );
      }
      await rm(lockPath, { force: true });
    }
  }
  throw new Error(`Could not lock ${lockPath}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
