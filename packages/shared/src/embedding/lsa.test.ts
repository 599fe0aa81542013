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

  it('reads lexemes and their occurrence counts from a tsvector as Postgres prints it', () => {
    // SELECT $$'it''s':1,3 'back\\slash' 'x':2A,5,9C$$::tsvector::text, and a stripped one.
    expect(parseTsvector("'back\\\\slash' 'it''s':1,3 'x':2A,5,9C")).toEqual({ lexemes: ['back\\slash', "it's", 'x'], counts: [1, 2, 3] });
    expect(parseTsvector("'hello' 'world'")).toEqual({ lexemes: ['hello', 'world'], counts: [1, 1] });
    expect(parseTsvector('')).toEqual({ lexemes: [], counts: [] });
  });
});
