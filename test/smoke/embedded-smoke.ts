// `pnpm smoke`: the README's quick start, as a newcomer runs it. `pnpm start` with no DATABASE_URL
// on a fresh DATA_DIR must answer /healthz, create a client, stop cleanly on SIGTERM and find the
// client again after a restart — run from its bundle (.build/kbchat.mjs), built first if stale.
// Prints start time and idle memory (the figures for the README).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@kbchat/shared/redis';

const root = fileURLToPath(new URL('../..', import.meta.url));
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'kbchat-smoke-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const env: Record<string, string> = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  DATA_DIR: dataDir,
  PORT: String(port),
  LOG_LEVEL: 'warn',
};
if (process.env.REDIS_URL) env.REDIS_URL = process.env.REDIS_URL;

let running: number | undefined;

function fail(msg: string): never {
  process.stderr.write(`smoke: FAIL ${msg}\n`);
  // Never leave a service behind holding the port, the data directory or CI's output pipe.
  if (running) for (const p of [...descendants(running), { pid: running }]) killQuietly(p.pid);
  process.exit(1);
}

function killQuietly(pid: number) {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

async function start() {
  const t0 = performance.now();
  const child = spawn('pnpm', ['start'], { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
  running = child.pid;
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  for (;;) {
    const res = await fetch(`${base}/healthz`).catch(() => undefined);
    if (res?.status === 200) break;
    if (performance.now() - t0 > 90_000) fail('no /healthz 200 within 90 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, exited, startMs: Math.round(performance.now() - t0) };
}

/** The pids of every process below root (pnpm runs the service through a shell). */
function descendants(root: number): { pid: number; args: string }[] {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid=,args=']).toString().trim().split('\n');
  const procs = rows.map((r) => {
    const [pid, ppid, ...args] = r.trim().split(/\s+/);
    return { pid: Number(pid), ppid: Number(ppid), args: args.join(' ') };
  });
  const out: { pid: number; args: string }[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const parent = queue.shift();
    for (const p of procs.filter((q) => q.ppid === parent)) {
      out.push(p);
      queue.push(p.pid);
    }
  }
  return out;
}

/** RSS of everything `pnpm start` runs, pnpm itself included, and of each process. */
async function rssMb(pid: number): Promise<{ total: number; each: string }> {
  let total = 0;
  const each: string[] = [];
  for (const p of [{ pid, args: 'pnpm start' }, ...descendants(pid)]) {
    const status = await readFile(`/proc/${p.pid}/status`, 'utf8').catch(() => '');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    total += kb;
    if (kb > 4096)
      each.push(
        `${p.args.split(' ').find((a) => a.endsWith('.ts') || a.endsWith('.mjs')) ?? p.args.split(' ')[0]} ${Math.round(kb / 1024)}`,
      );
  }
  return { total: Math.round(total / 1024), each: each.join(', ') };
}

async function stop(run: Awaited<ReturnType<typeof start>>) {
  // SIGTERM to the service itself, as a process manager would; pnpm exits with its code. The service
  // runs in scripts/run.mjs's process when the running Node fits, else in a child it spawns.
  const service = descendants(run.child.pid as number)
    .filter((p) => /^node .*bin\/kbchat\.ts/.test(p.args))
    .at(-1);
  if (!service) fail('no node process running bin/kbchat.ts under pnpm start');
  // npm start runs the service from its bundle (scripts/bundle.mjs), which the tests never load.
  if (!service.args.includes('--bundled') || !existsSync(path.join(root, '.build', 'kbchat.mjs')))
    fail(`pnpm start did not run the bundle: ${service.args}`);
  process.kill(service.pid, 'SIGTERM');
  const code = await run.exited;
  if (code !== 0) fail(`pnpm start exited ${code} after SIGTERM`);
}

const first = await start();
const created = await fetch(`${base}/api/admin/clients`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'Smoke Test Co' }),
});
if (created.status !== 201) fail(`POST /api/admin/clients answered ${created.status}`);
const { clientId } = (await created.json()) as { clientId: string };
await new Promise((r) => setTimeout(r, 3_000));
const idleRss = await rssMb(first.child.pid as number);
await stop(first);

const second = await start();
const got = await fetch(`${base}/api/admin/clients/${clientId}`);
if (got.status !== 200) fail(`client created before the restart answered ${got.status} after it`);
await stop(second);
await rm(dataDir, { recursive: true, force: true });

process.stdout.write(
  `smoke: ok — /healthz 200 after ${first.startMs} ms on an empty DATA_DIR (${second.startMs} ms on restart); idle RSS ${idleRss.total} MB (${idleRss.each}); client survived the restart\n`,
);
