import path from 'node:path';
import { build, stop } from 'esbuild';
import { type Asset, asset } from './assets.ts';

/** Browsers the widget and the console support: those with Shadow DOM, adoptedStyleSheets fallbacks and fetch streams. */
const TARGET = ['chrome100', 'firefox100', 'safari15', 'edge100'];

const JS = 'application/javascript; charset=utf-8';

/**
 * Bundles one browser entry (and the modules it imports) into a single minified classic script:
 * an IIFE, so it declares no globals. In memory (write: false): nothing to build before `pnpm start`
 * or the tests, and nothing on disk to go stale.
 */
async function bundle(entry: string, banner: string): Promise<Asset> {
  const result = await build({
    entryPoints: [path.join(import.meta.dirname, entry)],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: TARGET,
    minify: true,
    write: false,
    charset: 'utf8',
    legalComments: 'none',
    banner: { js: `/*! ${banner} */` },
    logLevel: 'silent',
  });
  const out = result.outputFiles[0];
  if (!out) throw new Error(`esbuild produced nothing for ${entry}`);
  return asset(JS, out.text);
}

export interface UiBundles {
  widget: Asset;
  console: Asset;
}

let built: Promise<UiBundles> | undefined;

/** Built once per process, at the gateway's start; later callers share the same bundles. */
export function uiBundles(): Promise<UiBundles> {
  built ??= Promise.all([bundle('widget/index.ts', 'kbchat widget — docs/widget.md'), bundle('console/index.ts', 'kbchat console')]).then(
    async ([widget, consoleJs]) => {
      // esbuild's helper process would otherwise idle beside the service for its whole life.
      await stop();
      return { widget, console: consoleJs };
    },
  );
  // A failed build is not cached: the next start (or test) tries again.
  built.catch(() => {
    built = undefined;
  });
  return built;
}
