import { describe, expect, it } from 'vitest';
import { countTokens, MAX_EMBEDDING_INPUT_TOKENS, truncateToTokens } from './tokenizer.ts';

describe('tokenizer (cl100k)', () => {
  it('counts like the API', () => {
    expect(countTokens('hello world')).toBe(2);
    expect(countTokens('')).toBe(0);
    expect(countTokens('tiktoken is great!')).toBe(6);
  });

  it('treats special-token strings in page text as plain text instead of throwing', () => {
    expect(countTokens('before <|endoftext|> after')).toBeGreaterThan(3);
  });

  it('returns text that fits unchanged', () => {
    const text = 'short text';
    expect(truncateToTokens(text, 10)).toBe(text);
  });

  it('cuts to at most the limit, as a prefix of the text', () => {
    const text = 'word '.repeat(20_000);
    const cut = truncateToTokens(text);
    expect(countTokens(cut)).toBeLessThanOrEqual(MAX_EMBEDDING_INPUT_TOKENS);
    expect(countTokens(cut)).toBeGreaterThan(MAX_EMBEDDING_INPUT_TOKENS - 5);
    expect(text.startsWith(cut)).toBe(true);
  });

  it('never cuts a character in half', () => {
    const text = '😀🎉日本語のテキスト'.repeat(50);
    for (const max of [1, 2, 3, 7, 50]) {
      const cut = truncateToTokens(text, max);
      expect(cut).not.toContain('\uFFFD');
      expect(text.startsWith(cut)).toBe(true);
      expect(countTokens(cut)).toBeLessThanOrEqual(max);
    }
  });
});
