import { availableParallelism } from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { ExtractedPage, ExtractOptions } from './extract.ts';
import type { ExtractTask } from './extract-worker.ts';

/**
 * A page's parse with a deadline (docs/SECURITY.md §3). extractPage reads a page whole, on the thread
 * that runs it; a path of the parse that turns super-linear on some page (an exponential pattern, a
 * nesting that explodes) would hold the crawler's event loop — in the embedded default, the whole
 * service — until the crawl job's lock lapsed, and then again on the next attempt. Here each parse runs
 * on a worker thread (piscina), and a parse past `timeoutMs`, or past the thread's heap limit, ends that
 * thread: the page is skipped ('parse-timeout', 'parse-failed') and the crawl goes on.
 *
 * The deadline counts the parse alone: its clock starts when the thread says it has begun, not while
 * a new thread loads the parser's code or the page waits in the pool's queue behind others. Threads
 * start with the first page and end after IDLE_TIMEOUT_MS without one: an idle service holds none.
 */
export class ParseError extends Error {
  readonly reason: 'parse-timeout' | 'parse-failed';
  constructor(reason: ParseError['reason'], message: string) {
    super(message);
    this.name = 'ParseError';
    this.reason = reason;
  }
}

const IDLE_TIMEOUT_MS = 30_000;
/** A parse thread's heap: a page of at most CRAWL_MAX_PAGE_BYTES (5 MB by default) parses in a fraction of it. */
const THREAD_HEAP_MB = 512;

let pool: Piscina | undefined;

function poolOf(): Piscina {
  pool ??= new Piscina({
    filename: new URL('./extract-worker.ts', import.meta.url).href,
    minThreads: 0,
    maxThreads: Math.max(1, availableParallelism()),
    idleTimeout: IDLE_TIMEOUT_MS,
    resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
  });
  return pool;
}

/** What extractPage reads of the page, parsed on a worker thread within `timeoutMs`; throws ParseError past it. */
export async function extractPageWithin(html: string, url: string, options: ExtractOptions, timeoutMs: number): Promise<ExtractedPage> {
  // The clock starts when the thread starts the parse (a new thread first loads the parser's code).
  const abort = new AbortController();
  const { port1, port2 } = new MessageChannel();
  let deadline: NodeJS.Timeout | undefined;
  port1.once('message', () => {
    deadline = setTimeout(() => abort.abort(), timeoutMs);
    port1.close();
  });
  try {
    const task: ExtractTask = { html, url, options, started: port2 };
    return (await poolOf().run(task, { signal: abort.signal, transferList: [port2] })) as ExtractedPage;
  } catch (err) {
    if (abort.signal.aborted) throw new ParseError('parse-timeout', `parsing ${url} took longer than ${timeoutMs} ms`);
    // A thread past its heap limit ends with ERR_WORKER_OUT_OF_MEMORY.
    if ((err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY')
      throw new ParseError('parse-failed', `parsing ${url} needed more than ${THREAD_HEAP_MB} MB`);
    throw err;
  } finally {
    clearTimeout(deadline);
    port1.close();
  }
}

/** Ends the parse threads (a crawler's close). The next parse starts new ones. */
export async function closeExtractPool(): Promise<void> {
  const closing = pool;
  pool = undefined;
  await closing?.destroy();
}
