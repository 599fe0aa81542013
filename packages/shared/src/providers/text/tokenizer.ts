import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { runInNewContext } from 'node:vm';

type Encoding = typeof import('gpt-tokenizer/encoding/cl100k_base');
const require = createRequire(import.meta.url);
let encoding: Encoding | undefined;
/**
 * The encoder is loaded when first used — by a crawl's embedding or the OpenAI path — not when the
 * service starts: its tables hold ~25 MB that an idle process, and the gateway's chat path, never
 * need (the local embedder only asks whether a word is one token: singleTokenRank below).
 */
function cl100k(): Encoding {
  encoding ??= require('gpt-tokenizer/encoding/cl100k_base') as Encoding;
  return encoding;
}
const encode: Encoding['encode'] = (...args) => cl100k().encode(...args);
const decode: Encoding['decode'] = (...args) => cl100k().decode(...args);

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

let wordTokens: Map<string, number> | undefined;
/** Letters only: cl100k's pre-tokenizer keeps " " + such a word in one piece (`[^\r\n\p{L}\p{N}]?\p{L}+`). */
const LETTERS = /^\p{L}+$/u;

/**
 * The cl100k token id of " " + word when that is exactly one token, else undefined: what
 * `encode(\` ${word}\`)` says when it returns one id. A word of letters is one piece for the
 * pre-tokenizer, and a piece that is in the vocabulary is encoded as that token; anything else
 * (digits, punctuation, marks) splits into several pieces. The ~40,000 word tokens are taken from
 * the encoder's rank table without loading the encoder.
 */
export function singleTokenRank(word: string): number | undefined {
  if (!LETTERS.test(word)) return undefined;
  wordTokens ??= readWordTokens();
  return wordTokens.get(word);
}

function readWordTokens(): Map<string, number> {
  // The rank table alone (an array, index = token id), evaluated apart from the module cache so that
  // only the word tokens outlive this call.
  const exports: { default?: (string | number[])[] } = {};
  runInNewContext(readFileSync(require.resolve('gpt-tokenizer/bpeRanks/cl100k_base'), 'utf8'), { exports });
  const out = new Map<string, number>();
  (exports.default ?? []).forEach((token, rank) => {
    if (typeof token === 'string' && token.startsWith(' ') && LETTERS.test(token.slice(1))) out.set(token.slice(1), rank);
  });
  if (out.size === 0) throw new Error('gpt-tokenizer: no word tokens in the cl100k rank table');
  return out;
}
