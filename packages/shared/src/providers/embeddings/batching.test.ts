import { describe, expect, it } from 'vitest';
import { countTokens } from '../text/tokenizer.ts';
import { EMBEDDING_BATCH_LIMITS, planBatches } from './batching.ts';

const items = (n: number, text: (i: number) => string) => Array.from({ length: n }, (_, i) => ({ id: `d${i}`, text: text(i) }));

// "word " is one cl100k token, so n repetitions are n tokens (give or take the last space).
const tokensOf = (n: number) => 'word '.repeat(n).trim();

describe('planBatches', () => {
  it('returns no batch for no input', () => {
    expect(planBatches([])).toEqual([]);
  });

  it('keeps 2048 inputs in one batch and starts a second for the 2049th', () => {
    const exactly = planBatches(items(2048, (i) => `chunk ${i}`));
    expect(exactly).toHaveLength(1);
    expect(exactly[0]!.ids).toHaveLength(2048);
    const over = planBatches(items(2049, (i) => `chunk ${i}`));
    expect(over.map((b) => b.ids.length)).toEqual([2048, 1]);
    expect(over[1]!.ids).toEqual(['d2048']);
  });

  it('splits where the token sum would cross 300k, and every batch stays within it', () => {
    // 40 inputs of 8000 tokens = 320k: 37 fit (296k), the 38th would cross.
    const batches = planBatches(items(40, () => tokensOf(8000)));
    expect(batches.map((b) => b.ids.length)).toEqual([37, 3]);
    for (const b of batches) {
      expect(b.tokens).toBeLessThanOrEqual(EMBEDDING_BATCH_LIMITS.maxTokens);
      expect(b.tokens).toBe(b.inputs.reduce((n, t) => n + countTokens(t), 0));
      expect(b.inputTokens).toEqual(b.inputs.map((t) => countTokens(t)));
    }
  });

  it('truncates a 20k-token input to 8191 tokens and says so', () => {
    const [batch] = planBatches([
      { id: 'small', text: 'hello' },
      { id: 'huge', text: tokensOf(20_000) },
    ]);
    expect(batch!.ids).toEqual(['small', 'huge']);
    expect(countTokens(batch!.inputs[1]!)).toBe(8191);
    expect(batch!.truncatedIds).toEqual(['huge']);
    expect(batch!.tokens).toBe(1 + 8191);
    expect(batch!.inputTokens).toEqual([1, 8191]);
  });

  it('keeps the input order across batches and never yields an empty batch', () => {
    const input = items(100, (i) => tokensOf(1 + (i % 7) * 50));
    const batches = planBatches(input, { maxInputs: 9, maxTokens: 900, maxTokensPerInput: 400 });
    expect(batches.flatMap((b) => b.ids)).toEqual(input.map((i) => i.id));
    for (const b of batches) {
      expect(b.ids.length).toBeGreaterThan(0);
      expect(b.ids.length).toBeLessThanOrEqual(9);
      expect(b.tokens).toBeLessThanOrEqual(900);
      expect(b.inputs).toHaveLength(b.ids.length);
    }
  });

  it('rejects limits that cannot hold one input', () => {
    expect(() => planBatches([{ id: 'a', text: 'x' }], { maxTokens: 100, maxTokensPerInput: 200 })).toThrow(RangeError);
  });
});
