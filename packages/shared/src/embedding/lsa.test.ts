import { describe, expect, it } from 'vitest';
import { buildLsa, LSA_MIN_CHUNKS, parseTsvector } from './lsa.ts';

// A small site: pages about query plans (where "explain" keeps company with "plan" and "query"),
// about reclaiming disk space (vacuum), and about backups (dump). No chunk says both "plan" and
// "vacuum".
function site(n: number) {
  const topics = [
    ['explain', 'plan', 'query', 'cost', 'node', 'scan'],
    ['vacuum', 'space', 'disk', 'dead', 'tuple', 'reclaim'],
    ['dump', 'backup', 'restore', 'file', 'archive', 'copy'],
  ];
  return Array.from({ length: n }, (_, i) => {
    const words = topics[i % 3] as string[];
    // Each chunk holds four of its topic's six words, so pairs meet in some chunks and not others.
    const lexemes = words.filter((_, j) => (Math.floor(i / 3) + j) % 3 !== 0).concat(`filler${i % 17}`);
    return { lexemes, counts: lexemes.map(() => 1 + (i % 2)) };
  });
}

const cosine = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let d = 0;
  let x = 0;
  let y = 0;
  for (let i = 0; i < a.length; i++) {
    d += (a[i] as number) * (b[i] as number);
    x += (a[i] as number) ** 2;
    y += (b[i] as number) ** 2;
  }
  return d / Math.sqrt(x * y);
};

describe('buildLsa', () => {
  it('puts words that keep company near each other, and apart from other topics', () => {
    const model = buildLsa(site(150), { dimensions: 3 });
    if (!model) throw new Error('no model');
    const v = (w: string) => model.terms.get(w)?.vector as Float32Array;
    expect(cosine(v('explain'), v('plan'))).toBeGreaterThan(0.5);
    expect(Math.abs(cosine(v('explain'), v('vacuum')))).toBeLessThan(0.3);
    // A question with "plan" alone lands on the chunks of the query-plan topic, "explain" or not.
    const scores = model.chunks.map((c) => cosine(c, v('plan')));
    const best = scores.indexOf(Math.max(...scores));
    expect(best % 3).toBe(0);
    const explainWithoutPlan = site(150).findIndex((c, i) => i % 3 === 0 && !c.lexemes.includes('plan'));
    expect(scores[explainWithoutPlan]).toBeGreaterThan(0.5);
  });

  it('is deterministic, and learns nothing from too few chunks', () => {
    const a = buildLsa(site(120), { dimensions: 6 });
    const b = buildLsa(site(120), { dimensions: 6 });
    expect(Array.from(a?.chunks[7] ?? [])).toEqual(Array.from(b?.chunks[7] ?? []));
    expect(buildLsa(site(LSA_MIN_CHUNKS - 1))).toBeUndefined();
  });

  it('learns the same relations whatever the chunks’ order, and nearly the same with a chunk more', () => {
    // Text without a few clear topics (random words): the range finder's result depends on where it
    // starts, and each chunk's start is its own.
    let state = 7;
    const next = () => {
      state = (state * 48271) % 2147483647;
      return state;
    };
    const chunks = Array.from({ length: 300 }, () => {
      const lexemes = [...new Set(Array.from({ length: 8 }, () => `w${next() % 400}`))];
      return { lexemes, counts: lexemes.map(() => 1 + (next() % 3)) };
    });
    const relations = (model: ReturnType<typeof buildLsa>, ids: number[]) =>
      ids.flatMap((a) => ids.map((b) => cosine(model?.chunks[a] as Float32Array, model?.chunks[b] as Float32Array)));
    const ids = [0, 5, 17, 42, 99, 150, 200, 299];
    const base = relations(buildLsa(chunks, { dimensions: 20 }), ids);
    // Reversed: chunk i is at 299 - i.
    const reversed = relations(
      buildLsa([...chunks].reverse(), { dimensions: 20 }),
      ids.map((i) => 299 - i),
    );
    for (let i = 0; i < base.length; i++) expect(reversed[i] as number).toBeCloseTo(base[i] as number, 4);
    // One chunk more at the start (a page added): the relations move by little, not by a new random start.
    const added = relations(
      buildLsa([{ lexemes: ['w1', 'w2', 'w3'], counts: [1, 1, 1] }, ...chunks], { dimensions: 20 }),
      ids.map((i) => i + 1),
    );
    const moved = Math.max(...base.map((x, i) => Math.abs(x - (added[i] as number))));
    expect(moved).toBeLessThan(0.05);
  });

  it('reads lexemes and their occurrence counts from a tsvector as Postgres prints it', () => {
    // SELECT $$'it''s':1,3 'back\\slash' 'x':2A,5,9C$$::tsvector::text, and a stripped one.
    expect(parseTsvector("'back\\\\slash' 'it''s':1,3 'x':2A,5,9C")).toEqual({ lexemes: ['back\\slash', "it's", 'x'], counts: [1, 2, 3] });
    expect(parseTsvector("'hello' 'world'")).toEqual({ lexemes: ['hello', 'world'], counts: [1, 1] });
    expect(parseTsvector('')).toEqual({ lexemes: [], counts: [] });
  });
});
