import { describe, expect, it } from 'vitest';
import { walkNearDuplicates, writeShingles } from './near-duplicates.ts';

interface Text {
  content: string;
  contentHash: string;
}

/**
 * The definition, spelled out: word 4-grams as joined strings in a Set, each text compared with
 * every kept one in slot order. The index must decide exactly as this does.
 */
function reference(texts: Text[], minContainment: number, decide: (text: number, slot: number) => boolean): void {
  const shingles = (s: string) => {
    const words = s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    if (words.length > 0 && words.length < 4) return new Set([words.join(' ')]);
    const out = new Set<string>();
    for (let i = 0; i + 4 <= words.length; i++) out.add(words.slice(i, i + 4).join(' '));
    return out;
  };
  const kept: { hash: string; shingles: Set<string> }[] = [];
  texts.forEach((t, i) => {
    const mine = shingles(t.content);
    const slot = kept.findIndex((k) => {
      if (k.hash === t.contentHash) return true;
      const [small, large] = k.shingles.size <= mine.size ? [k.shingles, mine] : [mine, k.shingles];
      if (small.size === 0) return false;
      let shared = 0;
      for (const s of small) if (large.has(s)) shared++;
      return shared / small.size >= minContainment;
    });
    if (!decide(i, slot)) return;
    const entry = { hash: t.contentHash, shingles: mine };
    if (slot < 0) kept.push(entry);
    else kept[slot] = entry;
  });
}

function decisions(walker: typeof reference, texts: Text[], replaceWhen: (text: number) => boolean): string[] {
  const out: string[] = [];
  walker(texts, 0.6, (text, slot) => {
    const take = slot < 0 || replaceWhen(text);
    out.push(`${text}:${slot}:${take}`);
    return take;
  });
  return out;
}

/** Deterministic pseudo-random texts: pages that repeat, extend, trim and shuffle each other. */
function corpus(seed: number, count: number): Text[] {
  let state = seed;
  const rand = (n: number) => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return (state >>> 8) % n;
  };
  const vocabulary = ['Boiler', 'service', 'repair', 'Émile', 'straße', 'водонагреватель', '𠀀字', 'costs', '42', 'warranty', 'the', 'a'];
  const sentence = () => Array.from({ length: 3 + rand(12) }, () => vocabulary[rand(vocabulary.length)]).join(rand(3) === 0 ? ', ' : ' ');
  const texts: Text[] = [];
  for (let i = 0; i < count; i++) {
    const base = texts[rand(Math.max(1, texts.length))];
    let content: string;
    const mode = rand(5);
    if (!base || mode === 0) content = Array.from({ length: 1 + rand(6) }, sentence).join('. ');
    else if (mode === 1) content = `${base.content} ${sentence()}`;
    else if (mode === 2) content = base.content.slice(rand(Math.max(1, base.content.length >> 1)));
    else if (mode === 3) content = base.content.toUpperCase();
    else content = `${sentence()}. ${base.content}`;
    texts.push({ content, contentHash: rand(10) === 0 && base ? base.contentHash : `h${i}` });
  }
  return texts;
}

describe('walkNearDuplicates', () => {
  it('decides as the pairwise definition does, over texts that repeat, extend and trim each other', () => {
    let compared = 0;
    let duplicates = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const texts = corpus(seed, 2 + (seed % 40));
      const replaceWhen = (text: number) => (text * 7 + seed) % 3 === 0;
      const expected = decisions(reference, texts, replaceWhen);
      expect(decisions(walkNearDuplicates, texts, replaceWhen)).toEqual(expected);
      compared += expected.length;
      duplicates += expected.filter((d) => !d.includes(':-1:')).length;
    }
    // The corpus exercises both outcomes, and replacements.
    expect(compared).toBeGreaterThan(3000);
    expect(duplicates).toBeGreaterThan(compared / 5);
    expect(duplicates).toBeLessThan(compared);
  });

  it('compares a later text with the text that took a slot, not with the one it replaced', () => {
    const a = 'one two three four five six seven eight';
    const b = 'one two three four five six seven eight nine ten eleven twelve';
    const c = 'nine ten eleven twelve';
    const seen: [number, number][] = [];
    walkNearDuplicates(
      [
        { content: b, contentHash: 'b' },
        { content: a, contentHash: 'a' },
        { content: c, contentHash: 'c' },
        { content: a, contentHash: 'a2' },
      ],
      0.6,
      (text, slot) => {
        seen.push([text, slot]);
        return slot < 0 || text === 1;
      },
    );
    // a repeats b (5 of its 5 shingles); a takes b's slot; c then repeats nothing kept (it repeated
    // b, which is gone), and the second a repeats the first.
    expect(seen).toEqual([
      [0, -1],
      [1, 0],
      [2, -1],
      [3, 0],
    ]);
  });

  it('counts a shingle repeated within a text once, and matches equal hashes whatever the text', () => {
    const seen: number[] = [];
    walkNearDuplicates(
      [
        { content: 'a b c d e f g h i j', contentHash: 'x' },
        // Shares one of the first text's 7 shingles ("a b c d"), five times over: 1/7, not 5/7.
        { content: 'a b c d a b c d a b c d a b c d a b c d q r s t u v w x y z', contentHash: 'y' },
        { content: 'nothing alike at all here', contentHash: 'x' },
        { content: '', contentHash: 'z' },
        { content: '', contentHash: 'w' },
      ],
      0.6,
      (_text, slot) => {
        seen.push(slot);
        return slot < 0;
      },
    );
    // The two empty texts share nothing (no shingles): both kept.
    expect(seen).toEqual([-1, -1, 0, -1, -1]);
  });

  it('reuses its buffers across walks of any size, and a walk started inside another gets its own', () => {
    const long = corpus(7, 60);
    const short = corpus(8, 3);
    const big = [{ content: 'word '.repeat(50_000), contentHash: 'big' }, ...long];
    for (const texts of [long, short, big, short, long]) {
      expect(decisions(walkNearDuplicates, texts, () => false)).toEqual(decisions(reference, texts, () => false));
    }
    const inner: string[] = [];
    const outer = decisions(
      (texts, min, decide) =>
        walkNearDuplicates(texts, min, (text, slot) => {
          if (text === 1) inner.push(...decisions(walkNearDuplicates, short, () => true));
          return decide(text, slot);
        }),
      long,
      () => true,
    );
    expect(outer).toEqual(decisions(reference, long, () => true));
    expect(inner).toEqual(decisions(reference, short, () => true));
  });

  it('keeps deciding right when the walk numbers wrap (one process, billions of requests)', () => {
    // Numbering restarts after two walks instead of after 2^31 - 1: every other walk follows a wrap.
    const wrapping: typeof walkNearDuplicates = (texts, min, decide) => walkNearDuplicates(texts, min, decide, { lastWalk: 2 });
    for (let seed = 300; seed < 306; seed++) {
      const texts = corpus(seed, 30);
      expect(decisions(wrapping, texts, () => false)).toEqual(decisions(reference, texts, () => false));
    }
  });
});

describe('writeShingles', () => {
  it('splits words on anything but letters and digits of any script, case-insensitively', () => {
    const out = new Int32Array(64);
    const a = writeShingles('Die Straße, 42 водонагревателя — 𠀀字 ok!', out);
    const first = [...out.subarray(0, a)];
    const b = writeShingles('die STRASSE 42 Водонагревателя 𠀀字 OK', out);
    expect(a).toBe(3);
    expect(b).toBe(3);
    // "Straße" upper-cases to "STRASSE", a different word: only the shingle without it is the same.
    const second = [...out.subarray(0, b)];
    expect(second[0]).not.toBe(first[0]);
    expect(second[1]).not.toBe(first[1]);
    expect(second[2]).toBe(first[2]);
    const c = writeShingles('die straße 42 водонагревателя 𠀀字 ok', out, 10);
    expect(c).toBe(3);
    expect([...out.subarray(10, 13)]).toEqual(first);
    expect(writeShingles('  ... ', out)).toBe(0);
    expect(writeShingles('one two', out)).toBe(1);
  });
});
