import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CitationRenumberer, citationNumbers, renumberCitations, stripCitationMarks } from './citations.ts';

describe('renumberCitations', () => {
  it('numbers passages in order of first citation', () => {
    expect(renumberCitations('Use fs.watch [3]. On Linux it is limited [1][3].', 4)).toEqual({
      text: 'Use fs.watch [1]. On Linux it is limited [2][1].',
      cited: [2, 0],
    });
  });

  it('handles lists and drops numbers that name no passage', () => {
    expect(renumberCitations('A [2, 5]. B [9]. C [0].', 5)).toEqual({ text: 'A [1, 2]. B . C .', cited: [1, 4] });
  });

  it('numbers pages, not passages: two passages of one page are one source and one number', () => {
    const passages = [{ url: '/a' }, { url: '/b' }, { url: '/a' }, { url: '/c' }];
    // Passage 3 is page /a again: it shares [2] with passage 1; [7] names no passage.
    expect(renumberCitations('B first [2]. Then A [3]. A again [1]. C and A [4, 1]. None [7].', passages)).toEqual({
      text: 'B first [1]. Then A [2]. A again [2]. C and A [3, 2]. None .',
      cited: [1, 2, 0, 3],
    });
    expect(renumberCitations('Both halves of A [1][3], merged [1, 3].', passages).text).toBe('Both halves of A [1][1], merged [1].');
  });

  it('leaves other brackets alone', () => {
    expect(renumberCitations('arr[i] and [x] and [] stay', 3).text).toBe('arr[i] and [x] and [] stay');
  });
});

describe('CitationRenumberer on a stream', () => {
  it('gives the same text however the output is split into chunks', () => {
    const answer = 'Start [2]. Then [1, 3] and [2][4]. Odd [7] end [';
    const whole = renumberCitations(answer, 4);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: answer.length }), { maxLength: 12 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const r = new CitationRenumberer(4);
        let out = '';
        let prev = 0;
        for (const p of [...points, answer.length]) {
          out += r.push(answer.slice(prev, p));
          prev = p;
        }
        out += r.flush();
        expect(out).toBe(whole.text);
        expect(r.cited).toEqual(whole.cited);
      }),
    );
  });

  it('holds back only what may still become a citation', () => {
    const r = new CitationRenumberer(3);
    expect(r.push('See [')).toBe('See ');
    expect(r.push('2')).toBe('');
    expect(r.push('] now')).toBe('[1] now');
  });
});

describe('citationNumbers and stripCitationMarks', () => {
  it('reads markers in order of appearance', () => {
    expect(citationNumbers('A [2]. B [1, 3]. arr[i] [x]')).toEqual([2, 1, 3]);
  });

  it("removes a page's own footnote marks from quoted text", () => {
    expect(stripCitationMarks('Founded in 1998.[12] It grew [3, 4] fast; arr[i] stays.')).toBe(
      'Founded in 1998. It grew fast; arr[i] stays.',
    );
  });
});
