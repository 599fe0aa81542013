#!/usr/bin/env node
// `npm start` runs the service from one minified ESM bundle of bin/kbchat.ts, .build/kbchat.mjs,
// rather than from its ~2,000 source and library files: an idle process holds the source text of
// every module it loaded, and minified it is a fraction of that (docs/performance.md, 22.2).
// scripts/run.mjs builds it (in a child: esbuild's memory is not the service's) when it is missing or
// any file it was built from changed; tests, `node bin/kbchat.ts` and the bench run the sources.
//
//   node scripts/bundle.mjs           builds when stale, prints nothing when it is current
//   node scripts/bundle.mjs --check   exit 0 when current, 1 when it would build
//   KBCHAT_BUNDLE_METAFILE=<file>     also writes esbuild's metafile there (esbuild.github.io/analyze)
//
// What the bundle leaves out and imports from node_modules by absolute URL: packages that read files
// next to their own code (wasm, static assets, native binaries) or are loaded on demand anyway.
// Our sources' import.meta.url (migrations, sql/, the widget and console entries, package.json) keeps
// pointing at the source file it was written in, so every relative path still finds its file.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const ENTRY = 'bin/kbchat.ts';
export const OUT_DIR = path.join(root, '.build');
export const OUT = path.join(OUT_DIR, 'kbchat.mjs');
const MANIFEST = path.join(OUT_DIR, 'kbchat.json');

/** Loaded from node_modules at run time, never bundled. */
const EXTERNAL = [
  // WASM and data files beside their code; only the embedded database loads them.
  '@electric-sql/pglite',
  '@electric-sql/pglite-pgvector',
  '@electric-sql/pglite-socket',
  // A native binary next to its package (the widget and console bundles).
  'esbuild',
  // A native FFI binding next to its package (malloc-trim.ts).
  'koffi',
  // Browser driver, on the first rendered page only.
  'playwright-core',
  // Static files of their UIs, read from their package directories.
  '@fastify/swagger-ui',
  '@bull-board/api',
  '@bull-board/fastify',
  '@bull-board/ui',
  // File parsers loaded on the first upload of their type (pdf.js inside unpdf).
  'unpdf',
  'mammoth',
  // The parse threads' pool (crawler web/extract-pool.ts): it starts its own worker script, beside its code.
  'piscina',
  // pg's optional native binding, which it requires in a try.
  'pg-native',
];

/** Files whose change means a rebuild even though the bundle does not contain them. */
const BUILD_INPUTS = [fileURLToPath(import.meta.url), path.join(root, 'pnpm-lock.yaml')];

function fileKey(file) {
  try {
    const s = statSync(file);
    return `${s.size}:${Math.round(s.mtimeMs)}`;
  } catch {
    return 'missing';
  }
}

/** True when the bundle exists and nothing it was built from changed (sizes and mtimes of every input). */
export function bundleCurrent() {
  if (!existsSync(OUT)) return false;
  const manifest = readManifest();
  if (manifest?.root !== root) return false;
  for (const [file, key] of Object.entries(manifest.inputs)) if (fileKey(path.resolve(root, file)) !== key) return false;
  return true;
}

function readManifest() {
  try {
    return JSON.parse(readFileSync(MANIFEST, 'utf8'));
  } catch {
    return undefined;
  }
}

function isOurs(file) {
  return !file.includes(`${path.sep}node_modules${path.sep}`) && file.startsWith(root);
}

/**
 * import.meta in our sources, as it was in the source file: url, dirname and filename of that file,
 * main false (bin/kbchat.ts imports each service's main.ts, which must not start itself), resolve()
 * from that file's directory.
 */
function importMetaOf(file) {
  const url = pathToFileURL(file).href;
  return `({ url: ${JSON.stringify(url)}, dirname: ${JSON.stringify(path.dirname(file))}, filename: ${JSON.stringify(file)}, main: false, resolve: (s) => __kbchatResolve(s, ${JSON.stringify(url)}) })`;
}

const resolveHelper = `import { createRequire as __kbchatCreateRequire } from 'node:module';
import { pathToFileURL as __kbchatPathToFileURL } from 'node:url';
const __kbchatResolve = (s, from) => __kbchatPathToFileURL(__kbchatCreateRequire(from).resolve(s)).href;`;

export async function build() {
  const previousOutputs = readManifest()?.outputs ?? [];
  // esbuild is the gateway's dependency (it bundles the widget and console), not the root's.
  const esbuild = createRequire(path.join(root, 'services/gateway/package.json'))('esbuild');
  const plugin = {
    name: 'kbchat',
    setup(b) {
      // Externals by absolute file URL, resolved from the importing file as esbuild (and Node) would:
      // the bundle lives in .build/, from where node_modules holds none of the workspace's dependencies.
      const external = new RegExp(`^(${EXTERNAL.map((p) => p.replace(/[/.]/g, '\\$&')).join('|')})(/|$)`);
      b.onResolve({ filter: external }, async (args) => {
        if (args.pluginData === 'kbchat') return undefined;
        const resolved = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: 'kbchat' });
        if (resolved.errors.length > 0) return { path: args.path, external: true };
        return { path: pathToFileURL(resolved.path).href, external: true };
      });
      b.onLoad({ filter: /\.(ts|mts|js|mjs)$/ }, async (args) => {
        if (!isOurs(args.path)) return undefined;
        let source = readFileSync(args.path, 'utf8');
        if (!source.includes('import.meta')) return undefined;
        // import.meta.resolve('<package>'): resolved now, from the source file, with Node's import conditions.
        for (const [call, specifier] of [...source.matchAll(/\bimport\.meta\.resolve\((['"][^'"]+['"])\)/g)]) {
          const resolved = await b.resolve(JSON.parse(specifier.replaceAll("'", '"')), {
            kind: 'import-statement',
            resolveDir: path.dirname(args.path),
            pluginData: 'kbchat',
          });
          if (resolved.errors.length > 0) throw new Error(`${args.path}: cannot resolve ${specifier}`);
          source = source.replace(call, JSON.stringify(pathToFileURL(resolved.path).href));
        }
        source = source.replaceAll(/\bimport\.meta\b/g, importMetaOf(args.path));
        return { contents: source, loader: /\.m?ts$/.test(args.path) ? 'ts' : 'js', resolveDir: path.dirname(args.path) };
      });
    },
  };
  const result = await esbuild.build({
    entryPoints: [path.join(root, ENTRY)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    minify: true,
    keepNames: false,
    sourcemap: 'linked',
    sourcesContent: false,
    legalComments: 'none',
    // Dynamic imports stay lazy: each is a chunk of its own (the embedded database, file parsers…).
    splitting: true,
    outdir: OUT_DIR,
    entryNames: '[name].tmp',
    chunkNames: 'chunk-[hash]',
    outExtension: { '.js': '.mjs' },
    write: false,
    metafile: true,
    logLevel: 'warning',
    plugins: [plugin],
    // CommonJS libraries in an ESM bundle call require() for Node's built-ins.
    banner: {
      js: `import { createRequire as __kbchatRequire } from 'node:module';const require = __kbchatRequire(import.meta.url);\n${resolveHelper}`,
    },
  });
  await esbuild.stop();
  // For https://esbuild.github.io/analyze/: what each package adds to the bundle.
  if (process.env.KBCHAT_BUNDLE_METAFILE) writeFileSync(process.env.KBCHAT_BUNDLE_METAFILE, JSON.stringify(result.metafile));
  const inputs = {};
  for (const file of [...Object.keys(result.metafile.inputs).map((f) => path.resolve(root, f)), ...BUILD_INPUTS]) {
    if (file.includes(':')) continue; // esbuild's virtual modules
    inputs[path.relative(root, file)] = fileKey(file);
  }
  // The entry is written last, under a temporary name renamed into place: a start that finds
  // kbchat.mjs finds every chunk it imports. Chunks are named by their content, so a rebuild adds
  // new ones beside the old, which a service started before it may still import.
  const tmp = path.join(OUT_DIR, 'kbchat.tmp.mjs');
  const files = result.outputFiles.sort((x, y) => Number(x.path === tmp) - Number(y.path === tmp));
  for (const file of files) {
    const final = file.path.replace('kbchat.tmp.', 'kbchat.');
    let text = file.text;
    if (file.path.endsWith('.mjs')) {
      // V8 keeps a script's source as one string, two bytes a character if any character is past
      // U+00FF: a handful of non-ASCII characters that esbuild leaves in regular expression literals
      // doubled the 4.5 MB entry. \uXXXX means the same in a string, a regex and an identifier (not in
      // a tagged template's raw text, which the bundle's non-ASCII characters are not in); a character
      // escaped as itself (\») loses that backslash, which would otherwise escape the new one.
      text = text.replace(/(\\*)([\u0080-\uffff])/g, (_, slashes, c) => {
        const kept = slashes.length % 2 === 1 ? slashes.slice(1) : slashes;
        return `${kept}\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
      });
      text = text.replace(/\/\/# sourceMappingURL=.*$/m, `//# sourceMappingURL=${path.basename(final)}.map`);
    }
    if (file.path === tmp) {
      writeFileSync(tmp, text);
      renameSync(tmp, OUT);
    } else writeFileSync(final, text);
  }
  const outputs = files.map((f) => path.basename(f.path).replace('kbchat.tmp.', 'kbchat.'));
  // Chunks of the build before this one stay (a service started from it may still import one);
  // older ones go.
  const keep = new Set([...outputs, ...previousOutputs]);
  for (const name of readdirSync(OUT_DIR))
    if (name.startsWith('chunk-') && !keep.has(name)) rmSync(path.join(OUT_DIR, name), { force: true });
  const manifest = {
    root,
    outputs,
    inputs,
  };
  writeFileSync(MANIFEST, `${JSON.stringify(manifest)}\n`);
  return manifest;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) process.exit(bundleCurrent() ? 0 : 1);
  if (!bundleCurrent()) {
    mkdirSync(OUT_DIR, { recursive: true });
    const t0 = Date.now();
    const manifest = await build();
    process.stderr.write(
      `kbchat: bundled ${ENTRY} into ${path.relative(root, OUT)} (${Object.keys(manifest.inputs).length} files, ${Date.now() - t0} ms)\n`,
    );
  }
}
