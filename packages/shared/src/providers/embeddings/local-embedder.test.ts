import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { embedLocal, LOCAL_EMBEDDING_DIMENSIONS, LOCAL_EMBEDDING_MODEL, termRarity } from './local-embedder.ts';

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (a: number[]) => Math.sqrt(dot(a, a));

describe('embedLocal', () => {
  it('is versioned, 1536-dimensional, unit length and deterministic', () => {
    expect(LOCAL_EMBEDDING_MODEL).toMatch(/^local-lexical-v\d+$/);
    const v = embedLocal('Readline lets a script ask the user a question.');
    expect(v).toHaveLength(LOCAL_EMBEDDING_DIMENSIONS);
    expect(norm(v)).toBeCloseTo(1, 9);
    expect(embedLocal('Readline lets a script ask the user a question.')).toEqual(v);
  });

  it('gives every text, even one without words, a finite unit vector', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        const v = embedLocal(text);
        expect(v.every(Number.isFinite)).toBe(true);
        expect(norm(v)).toBeCloseTo(1, 6);
      }),
      { numRuns: 300 },
    );
  });

  it('ranks a passage sharing the question’s words above unrelated ones', () => {
    const q = embedLocal('how do I read a file line by line');
    const right = embedLocal('Use readline with fs.createReadStream to read a file one line at a time.');
    const wrong = [
      'The cluster module lets you fork worker processes that share server ports.',
      'Buffers hold raw binary data outside the V8 heap.',
      'DNS lookups resolve host names to IP addresses.',
    ].map((t) => embedLocal(t));
    for (const w of wrong) expect(dot(q, right)).toBeGreaterThan(dot(q, w));
  });

  it('matches inflections through the stemmer', () => {
    const q = embedLocal('listeners');
    expect(dot(q, embedLocal('Adding a listener'))).toBeGreaterThan(dot(q, embedLocal('Adding a timer')) + 0.2);
  });

  it('is robust to typos through character n-grams', () => {
    const doc = embedLocal('Decode a base64 string with Buffer.from(text, "base64").toString()');
    const other = embedLocal('Spawn a child process and read its standard output');
    const typo = embedLocal('decode base64 strng');
    expect(dot(typo, doc)).toBeGreaterThan(dot(typo, other));
    for (const [typo, word] of [
      ['strng', 'string'],
      ['memry', 'memory'],
      ['numbr', 'number'],
    ] as const) {
      const near = dot(embedLocal(typo), embedLocal(word));
      expect(near).toBeGreaterThan(0.05);
      for (const unrelated of ['buffer', 'cluster', 'stream', 'process'])
        expect(near).toBeGreaterThan(dot(embedLocal(typo), embedLocal(unrelated)));
    }
  });

  it('retrieves unsegmented Japanese through character bigrams', () => {
    const q = embedLocal('返品は何日以内にできますか');
    const right = embedLocal('商品はお届けから30日以内であれば返品できます。');
    for (const other of ['営業時間は月曜日から金曜日の9時から17時までです。', '送料は5000円以上のご注文で無料です。']) {
      expect(dot(q, right)).toBeGreaterThan(dot(q, embedLocal(other)) + 0.2);
    }
  });

  it('folds accents, so the same word with and without them matches', () => {
    expect(dot(embedLocal('orçamento para três usuários'), embedLocal('orcamento para tres usuarios'))).toBeCloseTo(1, 9);
  });

  it('down-weights stop words: content words decide the similarity', () => {
    const q = embedLocal('what is the maximum buffer size');
    const sameStopWords = embedLocal('what is the name of the game');
    const sameContent = embedLocal('maximum buffer size');
    expect(dot(q, sameContent)).toBeGreaterThan(dot(q, sameStopWords) + 0.5);
  });

  it('uses word order through bigrams', () => {
    // Same words, different order: only the bigram "worker threads" tells them apart.
    const q = embedLocal('worker threads');
    expect(dot(q, embedLocal('worker threads run CPU work'))).toBeGreaterThan(dot(q, embedLocal('threads run CPU work for a worker')));
  });

  it('rates common words as less informative than rare ones', () => {
    expect(termRarity('the')).toBeLessThan(termRarity('file'));
    expect(termRarity('file')).toBeLessThan(termRarity('readline'));
    expect(termRarity('kubernetes')).toBe(1);
  });
});
