// The dev loop's database and clients (bench/dev-crawl-corpora.ts writes them, the tuning and
// measuring tools read them), so ranking experiments need no re-crawl.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const FILE = '/tmp/kbeval.json';

export interface DevLoop {
  databaseUrl: string;
  corpora: Record<string, { clientId: string; siteUrl: string }>;
}

/** The crawled corpora; throws when bench/dev-crawl-corpora.ts has not run. */
export function readDevLoop(): DevLoop {
  if (!existsSync(FILE)) throw new Error(`${FILE} is missing: run node bench/dev-crawl-corpora.ts first`);
  return JSON.parse(readFileSync(FILE, 'utf8')) as DevLoop;
}

/** The corpora crawled before, or none. */
export function previousCorpora(): DevLoop['corpora'] {
  return existsSync(FILE) ? readDevLoop().corpora : {};
}

export function writeDevLoop(loop: DevLoop): void {
  writeFileSync(FILE, JSON.stringify(loop, null, 2));
}
