import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// In a process of its own, so what is measured is that process's memory and nothing the test runner holds.
function inChild(code: string): Record<string, unknown> {
  const out = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', code], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1) as string);
}

const MODULE = fileURLToPath(new URL('./malloc-trim.ts', import.meta.url));
const KOFFI = import.meta.resolve('koffi');
/** The child's own malloc, free and memset (koffi), to place blocks in glibc's heap exactly. */
const LIBC = `const libc = (await import(${JSON.stringify(KOFFI)})).default.load('libc.so.6');
  const malloc = libc.func('void *malloc(size_t size)');
  const free = libc.func('void free(void *ptr)');
  const memset = libc.func('void *memset(void *s, int c, size_t n)');`;
const glibc =
  process.platform === 'linux' &&
  Boolean((process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime);

describe('trimMalloc', () => {
  it.runIf(glibc)('hands back native memory freed between live allocations, which glibc keeps until asked', () => {
    const result = inChild(`
      const { trimMalloc } = await import(${JSON.stringify(MODULE)});
      ${LIBC}
      await trimMalloc();
      // 125 MB in blocks of 32 kB (under glibc's mmap threshold: from its heap), touched; then nine in
      // ten freed: the free runs sit between live blocks, so glibc cannot shrink its heap from the top
      // and keeps them until malloc_trim.
      const blocks = Array.from({ length: 4_000 }, () => { const p = malloc(32_768); memset(p, 1, 32_768); return p; });
      blocks.forEach((p, i) => { if (i % 10 !== 0) free(p); });
      const r = await trimMalloc();
      const again = await trimMalloc();
      blocks.forEach((p, i) => { if (i % 10 === 0) free(p); });
      console.log(JSON.stringify({ ...r, again: again.rssBefore - again.rssAfter }));
    `);
    expect(result.trimmed).toBe(true);
    // Most of the ~108 MB freed comes back; a second trim finds nothing left.
    expect((result.rssBefore as number) - (result.rssAfter as number)).toBeGreaterThan(50 * 2 ** 20);
    expect(result.again as number).toBeLessThan(10 * 2 ** 20);
  });

  it.runIf(glibc)('with leanMallocForStart, freed large blocks leave the process at once; glibc on its own keeps them', () => {
    // A large block freed raises glibc's thresholds; later large blocks then come from its heap, and
    // between live blocks (here of 100 kB) they stay there when freed. Held low, each is mapped and unmapped.
    const kept = (lean: boolean) =>
      inChild(`
        const { leanMallocForStart } = await import(${JSON.stringify(MODULE)});
        ${LIBC}
        const set = ${lean} ? await leanMallocForStart() : false;
        free(malloc(4 << 20));
        const big = [];
        const small = [];
        for (let i = 0; i < 100; i++) {
          const p = malloc(1 << 20);
          memset(p, 1, 1 << 20);
          big.push(p);
          small.push(malloc(100_000));
        }
        const before = process.memoryUsage.rss();
        for (const p of big) free(p);
        console.log(JSON.stringify({ set, handedBack: before - process.memoryUsage.rss() }));
      `);
    const lean = kept(true);
    const plain = kept(false);
    expect(lean.set).toBe(true);
    expect(lean.handedBack as number).toBeGreaterThan(80 * 2 ** 20);
    expect(plain.handedBack as number).toBeLessThan(20 * 2 ** 20);
  });

  it('is a no-op that says so where malloc_trim cannot be called, and a schedule of 0 never runs', () => {
    const result = inChild(`
      const { scheduleMallocTrim, trimMalloc } = await import(${JSON.stringify(MODULE)});
      const calls = [];
      const s = scheduleMallocTrim({ intervalMs: 0, firstAfterMs: 1, log: { debug: (o) => calls.push(o), warn: (o) => calls.push(o) } });
      await new Promise((r) => setTimeout(r, 50));
      s.stop();
      const r = await trimMalloc();
      console.log(JSON.stringify({ calls: calls.length, trimmed: r.trimmed }));
    `);
    expect(result.calls).toBe(0);
    expect(result.trimmed).toBe(glibc);
  });

  it.runIf(glibc)('on a schedule: first shortly after start, then every interval, logged at debug; stop() ends it', () => {
    const result = inChild(`
      const { scheduleMallocTrim } = await import(${JSON.stringify(MODULE)});
      const calls = [];
      const s = scheduleMallocTrim({ intervalMs: 40, firstAfterMs: 5, log: { debug: (o, m) => calls.push([o, m]), warn: (o, m) => calls.push([o, m]) } });
      const keep = setInterval(() => {}, 1000);
      const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
      // Three runs, however long a trim takes on a loaded machine (a fixed 150 ms window saw two).
      for (const deadline = Date.now() + 10_000; calls.length < 3 && Date.now() < deadline; ) await sleep(5);
      s.stop();
      // A trim under way when stopped still logs: counted once it has ended, then five intervals more.
      await sleep(250);
      const atStop = calls.length;
      await sleep(200);
      clearInterval(keep);
      console.log(JSON.stringify({ atStop, after: calls.length, first: calls[0] }));
    `);
    expect(result.atStop).toBeGreaterThanOrEqual(3);
    expect(result.after).toBe(result.atStop);
    const [fields, message] = result.first as [Record<string, number>, string];
    expect(message).toBe('memory trimmed');
    expect(Object.keys(fields).sort()).toEqual(['ms', 'rssMbAfter', 'rssMbBefore']);
  });
});
