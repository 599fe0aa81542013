import type { Logger } from './logger.ts';

/**
 * Keeps glibc's allocator from holding on to memory the process no longer uses (docs/performance.md
 * 22.2). glibc keeps freed memory for reuse, and its thresholds adjust upwards as large blocks are
 * freed: after the embedded database's start-up the service held 40–110 MB more than it used, varying
 * from one start to the next. Fixing the thresholds low for good (MALLOC_TRIM_THRESHOLD_) gave it back
 * but made each chat request ~20 % dearer in CPU. So: low thresholds during start-up only
 * (leanMallocForStart), then the thresholds glibc would reach on its own and a trim shortly after
 * start and every MALLOC_TRIM_INTERVAL_MS (scheduleMallocTrim): malloc_trim(0), a few milliseconds.
 * Called through koffi, an FFI binding whose binary comes prebuilt per platform (nothing is compiled
 * at install); without glibc (macOS, musl) or without that binary, nothing is done.
 */
export interface TrimResult {
  /** false where malloc_trim cannot be called (not glibc, no binding). */
  trimmed: boolean;
  /** Resident set size before and after, bytes. */
  rssBefore: number;
  rssAfter: number;
  ms: number;
}

interface Libc {
  trim(): number;
  /** mallopt(3): 1 on success. */
  mallopt(param: number, value: number): number;
}

// mallopt(3)'s parameters (malloc.h).
const M_TRIM_THRESHOLD = -1;
const M_MMAP_THRESHOLD = -3;

let binding: Promise<Libc | undefined> | undefined;

function libc(): Promise<Libc | undefined> {
  binding ??= (async () => {
    if (process.platform !== 'linux') return undefined;
    try {
      const { default: koffi } = await import('koffi');
      // libc.so.6 is glibc's soname: musl's libc has neither it nor malloc_trim.
      const lib = koffi.load('libc.so.6');
      const trim = lib.func('int malloc_trim(size_t pad)');
      const mallopt = lib.func('int mallopt(int param, int value)');
      return { trim: () => trim(0) as number, mallopt: (param, value) => mallopt(param, value) as number };
    } catch {
      return undefined;
    }
  })();
  return binding;
}

/**
 * For the start-up: glibc's initial thresholds, held fixed (mallopt turns their adjustment off), so
 * what start-up allocates past 128 kB is mapped on its own and unmapped when freed, instead of raising
 * the thresholds and leaving those blocks in the heap between smaller live ones, where no trim reaches.
 * false where it cannot be set.
 */
export async function leanMallocForStart(): Promise<boolean> {
  const c = await libc();
  if (!c) return false;
  return c.mallopt(M_MMAP_THRESHOLD, 128 * 1024) === 1 && c.mallopt(M_TRIM_THRESHOLD, 128 * 1024) === 1;
}

/**
 * After start-up: the thresholds glibc's own adjustment reaches at its ceiling (32 MB mapped, 64 MB
 * trim), so serving requests maps and unmaps no buffer and trims nothing on free — mapping each
 * large buffer and trimming on every free cost ~20 % more CPU a chat request (docs/performance.md
 * 22.2); the scheduled trims hand memory back instead.
 */
async function relaxMalloc(): Promise<void> {
  const c = await libc();
  if (!c) return;
  c.mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  c.mallopt(M_TRIM_THRESHOLD, 64 * 1024 * 1024);
}

/** One trim of every malloc arena of this process. */
export async function trimMalloc(): Promise<TrimResult> {
  const c = await libc();
  const rssBefore = process.memoryUsage.rss();
  const started = performance.now();
  c?.trim();
  const ms = performance.now() - started;
  return { trimmed: c !== undefined, rssBefore, rssAfter: process.memoryUsage.rss(), ms };
}

/**
 * Trims `firstAfterMs` after start — that first run also sets the serving thresholds, ending what
 * leanMallocForStart set — then every `intervalMs` (0: never, and then nothing is set either);
 * timers unref'd, so they keep no process alive. Logged at debug.
 */
export function scheduleMallocTrim(options: { intervalMs: number; firstAfterMs?: number; log?: Logger }): { stop(): void } {
  if (options.intervalMs <= 0) return { stop() {} };
  let relaxed = false;
  const run = () => {
    const once = relaxed ? Promise.resolve() : relaxMalloc();
    relaxed = true;
    once.then(trimMalloc).then(
      (r) => {
        if (r.trimmed) {
          const mb = (b: number) => Math.round(b / 2 ** 20);
          options.log?.debug(
            { rssMbBefore: mb(r.rssBefore), rssMbAfter: mb(r.rssAfter), ms: Math.round(r.ms * 10) / 10 },
            'memory trimmed',
          );
        }
      },
      (err: Error) => options.log?.warn({ err: { message: err.message } }, 'memory trim failed'),
    );
  };
  const first = setTimeout(run, options.firstAfterMs ?? 2_000);
  first.unref();
  const every = setInterval(run, options.intervalMs);
  every.unref();
  return {
    stop() {
      clearTimeout(first);
      clearInterval(every);
    },
  };
}
