import { decode, encode } from 'gpt-tokenizer/encoding/cl100k_base';

/**
 * cl100k_base, the tokenizer of text-embedding-3-* and gpt-4-class models, used to count what the
 * API bills and to keep each input under the embedding models' 8191-token limit.
 * Crawled pages may contain strings like "<|endoftext|>": they are counted as the plain text
 * they are (the API does the same for user input) instead of throwing.
 */
export const MAX_EMBEDDING_INPUT_TOKENS = 8191;

const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

export function encodeTokens(text: string): number[] {
  return encode(text, PLAIN_TEXT);
}

export function countTokens(text: string): number {
  return encodeTokens(text).length;
}

/**
 * The longest prefix of text within maxTokens tokens (the text itself when it fits), cut at a token
 * boundary or just before it, never in the middle of a character.
 */
export function truncateToTokens(text: string, maxTokens = MAX_EMBEDDING_INPUT_TOKENS): string {
  if (maxTokens <= 0) return '';
  const ids = encodeTokens(text);
  if (ids.length <= maxTokens) return text;
  // Decoding a token prefix can end (or even start) inside a multi-byte character, which comes out as
  // U+FFFD; its length without those is a safe estimate of where to cut the original text.
  let end = Math.min(text.length, decode(ids.slice(0, maxTokens)).replace(/\uFFFD/g, '').length);
  for (;;) {
    if (end > 0 && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end--;
    const prefix = text.slice(0, end);
    const tokens = countTokens(prefix);
    // Re-encoding a prefix can merge differently at the cut: step back until it really fits.
    if (tokens <= maxTokens || end === 0) return prefix;
    end -= Math.max(1, Math.floor((end * (tokens - maxTokens)) / tokens));
  }
}
