import { describe, expect, it } from 'vitest';
import { analyze, isStopWord, keyStems } from './text-analysis.ts';

describe('analyze', () => {
  it('lower-cases, folds accents and keeps Unicode letters and digits', () => {
    expect(analyze('Memória, São Paulo: base64 & UTF-8 — データ').map((t) => t.surface)).toEqual([
      'memoria',
      'sao',
      'paulo',
      'base64',
      'utf',
      '8',
      'デー',
      'ータ',
    ]);
  });

  it('stems English words and marks stop words', () => {
    const terms = analyze('How do I read the listeners?');
    expect(terms.map((t) => t.stem)).toEqual(['how', 'do', 'i', 'read', 'the', 'listen']);
    expect(terms.filter((t) => t.stop).map((t) => t.surface)).toEqual(['how', 'do', 'i', 'the']);
  });

  it('reads a word of two hyphened pieces as the word without its hyphen, then its pieces as parts', () => {
    expect(analyze('Free Wi-Fi').map((t) => [t.surface, t.part])).toEqual([
      ['free', false],
      ['wifi', false],
      ['wi', true],
      ['fi', true],
    ]);
    // An option's name or a date: its pieces, each a word.
    expect(analyze('--max-old-space-size 2021-04-06').map((t) => t.surface)).toEqual(['max', 'old', 'space', 'size', '2021', '04', '06']);
  });

  it('marks contractions typed without the apostrophe, and "pls", as stop words', () => {
    const terms = analyze('whats the port, dont know it pls');
    expect(terms.filter((t) => !t.stop).map((t) => t.surface)).toEqual(['port', 'know']);
  });

  it('marks prepositions of place as stop words: "near" is no thing a site must name', () => {
    const terms = analyze('is the school near the train station');
    expect(terms.filter((t) => !t.stop).map((t) => t.surface)).toEqual(['school', 'train', 'station']);
  });

  it('splits camelCase identifiers into parts after the whole word', () => {
    const terms = analyze('assert.deepStrictEqual HTTPServer');
    expect(terms.map((t) => `${t.surface}${t.part ? '*' : ''}`)).toEqual([
      'assert',
      'deepstrictequal',
      'deep*',
      'strict*',
      'equal*',
      'httpserver',
      'http*',
      'server*',
    ]);
  });

  it('indexes Chinese, Japanese and Thai runs as character bigrams, and keeps marks in their words', () => {
    expect(analyze('東京都のAPIを使う データ').map((t) => t.surface)).toEqual([
      '東京',
      '京都',
      '都の',
      'api',
      'を使',
      '使う',
      'デー',
      'ータ',
    ]);
    expect(analyze('हिन्दी भाषा').map((t) => t.surface)).toEqual(['हिन्दी', 'भाषा']);
  });

  it('knows function words of the five widget languages', () => {
    for (const w of ['the', 'como', 'pour', 'und', 'voce']) expect(isStopWord(w)).toBe(true);
    for (const w of ['server', 'precio', 'devis', 'angebot']) expect(isStopWord(w)).toBe(false);
  });

  it('keyStems drops stop words and identifier parts', () => {
    expect([...keyStems('How do I watch a folder recursively?')]).toEqual(['watch', 'folder', 'recurs']);
  });
});
