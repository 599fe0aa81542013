import { describe, expect, it } from 'vitest';
import type { RetrievalCandidate } from '../db/retrieval.ts';
import { dropNearDuplicates, PAGE_BOOST, type RankedPassage, RRF_K, rankCandidates, relevanceFilter, sourcesOf } from './retrieval.ts';

let n = 0;
function candidate(over: Partial<RetrievalCandidate>): RetrievalCandidate {
  n++;
  return {
    id: `00000000-0000-0000-0000-${String(n).padStart(12, '0')}`,
    pageId: `page-${n}`,
    url: `https://site.example/p${n}`,
    title: `Page ${n}`,
    heading: null,
    content: `distinct content number ${n} about topic ${n} with words ${n * 7} and ${n * 13}`,
    contentHash: `hash-${n}`,
    vectorRank: null,
    ftsRank: null,
    similarity: null,
    matchedTerms: 0,
    pageChunks: 1,
    ...over,
  };
}

const settings = { passages: 6, minSimilarity: 0.3, minTermCoverage: 0.75 };

describe('relevance floor', () => {
  const ids = (list: RetrievalCandidate[]) => list.map((c) => c.id);
  it('answers nothing when no chunk is similar enough and none holds enough of the question’s words', () => {
    const weak = [candidate({ similarity: 0.29, matchedTerms: 2 }), candidate({ similarity: 0.1, matchedTerms: 1 })];
    expect(relevanceFilter(weak, 4, settings)).toEqual([]);
    expect(relevanceFilter([candidate({ similarity: null, matchedTerms: 0 })], 0, settings)).toEqual([]);
  });

  it('keeps, of an answerable question, the chunks near the best similarity and those covering the question', () => {
    const best = candidate({ similarity: 0.6 });
    const near = candidate({ similarity: 0.31 });
    const tail = candidate({ similarity: 0.29 });
    const covering = candidate({ similarity: 0.05, matchedTerms: 3 });
    expect(ids(relevanceFilter([best, near, tail, covering], 4, settings))).toEqual(ids([best, near, covering]));
  });

  it('works on coverage alone when the question could not be embedded', () => {
    const covering = candidate({ similarity: null, matchedTerms: 1 });
    const partial = candidate({ similarity: null, matchedTerms: 1 });
    expect(ids(relevanceFilter([covering], 1, settings))).toEqual(ids([covering]));
    expect(relevanceFilter([partial], 2, settings)).toEqual([]);
  });
});

describe('rankCandidates', () => {
  it('fuses by reciprocal rank: in both lists beats first in one', () => {
    const both = candidate({ vectorRank: 3, ftsRank: 3, similarity: 0.5 });
    const vectorOnly = candidate({ vectorRank: 1, similarity: 0.6 });
    const ftsOnly = candidate({ ftsRank: 1, matchedTerms: 4 });
    const ranked = rankCandidates([vectorOnly, ftsOnly, both], 4, settings);
    expect(ranked.map((p) => p.id)).toEqual([both.id, vectorOnly.id, ftsOnly.id]);
    expect(ranked[0]?.score).toBeCloseTo(2 / (RRF_K + 3));
  });

  it('boosts chunks of the visitor’s page (URL compared normalised) without letting irrelevant ones in', () => {
    const top = candidate({ vectorRank: 1, ftsRank: 1, similarity: 0.6, url: 'https://site.example/a' });
    const second = candidate({ vectorRank: 2, ftsRank: 2, similarity: 0.55, url: 'https://site.example/b' });
    const irrelevant = candidate({ vectorRank: 3, similarity: 0.05, url: 'https://site.example/c' });
    expect(rankCandidates([top, second], 4, settings)[0]?.id).toBe(top.id);
    const boosted = rankCandidates([top, second, irrelevant], 4, settings, 'https://site.example/b#pricing');
    expect(boosted.map((p) => p.id)).toEqual([second.id, top.id]);
    expect(boosted[0]?.boosted).toBe(true);
    expect(boosted[0]?.score).toBeCloseTo(2 / (RRF_K + 2) + PAGE_BOOST);
    expect(rankCandidates([irrelevant], 4, settings, 'https://site.example/c')).toEqual([]);
  });

  it('hands the model at most `passages` chunks, at most two per page before other pages get a turn', () => {
    const pageA = Array.from({ length: 4 }, (_, i) =>
      candidate({ pageId: 'A', url: 'https://site.example/A', vectorRank: i + 1, similarity: 0.9 }),
    );
    const pageB = candidate({ pageId: 'B', url: 'https://site.example/B', vectorRank: 10, similarity: 0.5 });
    const ranked = rankCandidates([...pageA, pageB], 4, { ...settings, passages: 3 });
    expect(ranked.map((p) => p.id)).toEqual([pageA[0]?.id, pageA[1]?.id, pageB.id]);
  });
});

describe('dropNearDuplicates', () => {
  const text =
    'Every installation carries a five year warranty on labour and the manufacturer warranty on parts. To make a claim send a photo.';
  it('keeps the more specific page when two chunks repeat the same text, in the better rank', () => {
    const allInOne = candidate({ url: 'https://site.example/all', pageChunks: 60, content: `Intro line. ${text}` }) as RankedPassage;
    const specific = candidate({ url: 'https://site.example/warranty', pageChunks: 2, content: text }) as RankedPassage;
    const other = candidate({}) as RankedPassage;
    const out = dropNearDuplicates([
      { ...allInOne, score: 0.3, boosted: false },
      { ...other, score: 0.2, boosted: false },
      { ...specific, score: 0.1, boosted: false },
    ]);
    expect(out.map((p) => p.url)).toEqual(['https://site.example/warranty', other.url]);
    expect(out[0]?.score).toBe(0.3);
  });
});

describe('sourcesOf', () => {
  it('lists distinct pages in order, falling back to the URL for an untitled page', () => {
    expect(
      sourcesOf([
        { url: 'https://s.example/a', title: 'A' },
        { url: 'https://s.example/b', title: '' },
        { url: 'https://s.example/a', title: 'A' },
      ]),
    ).toEqual([
      { title: 'A', url: 'https://s.example/a' },
      { title: 'https://s.example/b', url: 'https://s.example/b' },
    ]);
  });
});
