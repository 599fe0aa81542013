import { encode } from 'gpt-tokenizer/encoding/cl100k_base';
import { describe, expect, it } from 'vitest';
import { countTokens, encodeTokens, MAX_EMBEDDING_INPUT_TOKENS, singleTokenRank, truncateToTokens } from './tokenizer.ts';

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

  it('says which words are one token, and which, exactly as the encoder does', () => {
    // Words of every kind the embedder meets: common and rare, capitalised, accented, other scripts,
    // and surfaces with digits, dots, apostrophes or combining marks (never one token after a space).
    const words = [
      'the',
      'hello',
      'Hello',
      'HELLO',
      'a',
      'I',
      'x',
      'documentation',
      'daycare',
      'Conveyor',
      'café',
      'données',
      'résultats',
      'nécessaire',
      'Zürich',
      'straße',
      'ß',
      'мир',
      'Привет',
      'こんにちは',
      'العربية',
      'skateboards',
      'pgvector',
      'readFile',
      'fs.readFile',
      '5432',
      'utf8',
      "don't",
      'e\u0301',
      'max_connections',
      'x86',
      'naïve',
    ];
    for (const word of words) {
      const ids = encode(` ${word}`);
      expect(singleTokenRank(word), word).toBe(ids.length === 1 ? ids[0] : undefined);
    }
    expect(singleTokenRank('hello')).toBe(encodeTokens(' hello')[0]);
  });
});
