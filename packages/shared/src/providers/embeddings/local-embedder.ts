import { analyze, type Term } from '../text/text-analysis.ts';
import { singleTokenRank } from '../text/tokenizer.ts';

/**
 * A lexical embedder that needs no model and no network (docs/providers.md explains the design).
 *
 * Features: stemmed unigrams, bigrams of neighbouring content words, and character trigrams of each
 * content word (so "strng" still lands near "string"). Each feature's weight is
 * sublinear TF × a corpus-free rarity prior × the feature kind's weight; features are hashed with
 * a sign bit into 1536 dimensions and the vector is L2-normalised, so cosine similarity behaves
 * like a TF-IDF dot product with noise of about 1/√1536 from hash collisions.
 *
 * The rarity prior stands in for IDF, which an embedder that sees one text at a time cannot know:
 * cl100k's byte-pair merges were learnt in order of frequency on a huge web corpus, so a word that
 * is one early token (" the" = 279) is common and one that needs a late token or several pieces
 * (" readline" = 75866, " kubernetes" = 2 pieces) is rare.
 */
export const LOCAL_EMBEDDING_MODEL = 'local-lexical-v1';
export const LOCAL_EMBEDDING_DIMENSIONS = 1536;

export interface LocalEmbedderOptions {
  dimensions: number;
  stopWeight: number;
  /** Weight of a camelCase sub-word relative to a whole word. */
  partWeight: number;
  bigramWeight: number;
  /** Total weight of a word's character n-grams relative to the word itself. */
  charWeight: number;
  charGramSize: number;
  /** Words shorter than this get no character n-grams. */
  charMinLength: number;
  /** Prior floor (the weight of the most common words) and the rank at which it reaches 1. */
  priorFloor: number;
  priorFullRank: number;
}

export const DEFAULT_LOCAL_EMBEDDER_OPTIONS: Readonly<LocalEmbedderOptions> = Object.freeze({
  dimensions: LOCAL_EMBEDDING_DIMENSIONS,
  stopWeight: 0.1,
  partWeight: 0.5,
  bigramWeight: 0.5,
  charWeight: 0.5,
  charGramSize: 3,
  charMinLength: 4,
  priorFloor: 0.2,
  priorFullRank: 30_000,
});

// Seeds keep the kinds of feature apart, so the word "str" and the trigram "str" do not add up.
const SEED_WORD = 0x9e3779b1;
const SEED_BIGRAM = 0x85ebca6b;
const SEED_CHAR = 0xc2b2ae35;

/** FNV-1a over UTF-16 code units, then murmur3's finaliser so the low bits are well mixed. */
function hash(s: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

// One cache per prior setting (only the bench varies it).
const priorCaches = new Map<string, Map<string, number>>();
const PRIOR_CACHE_MAX = 200_000;

function rarityPrior(surface: string, o: LocalEmbedderOptions): number {
  const settings = `${o.priorFloor}:${o.priorFullRank}`;
  let priorCache = priorCaches.get(settings);
  if (!priorCache) {
    priorCache = new Map();
    priorCaches.set(settings, priorCache);
  }
  const cached = priorCache.get(surface);
  if (cached !== undefined) return cached;
  const single = singleTokenRank(surface);
  // Several tokens: at least as rare as the rarest single token that would have covered it.
  const rank = single ?? o.priorFullRank * 2;
  const scaled = Math.log1p(rank) / Math.log1p(o.priorFullRank);
  const prior = Math.min(1, Math.max(o.priorFloor, scaled));
  if (priorCache.size >= PRIOR_CACHE_MAX) priorCache.clear();
  priorCache.set(surface, prior);
  return prior;
}

interface Feature {
  tf: number;
  weight: number;
}

function add(features: Map<string, Feature>, key: string, weight: number) {
  const f = features.get(key);
  if (f) {
    f.tf++;
    if (weight > f.weight) f.weight = weight;
  } else features.set(key, { tf: 1, weight });
}

function collect(terms: Term[], o: LocalEmbedderOptions) {
  const words = new Map<string, Feature>();
  const bigrams = new Map<string, Feature>();
  const chars = new Map<string, Feature>();
  let previous: { stem: string; prior: number } | undefined;
  for (const t of terms) {
    const prior = rarityPrior(t.surface, o);
    const kindWeight = t.stop ? o.stopWeight : t.part ? o.partWeight : 1;
    add(words, t.stem, prior * kindWeight);
    if (t.stop || t.part) continue;
    if (previous) add(bigrams, `${previous.stem} ${t.stem}`, Math.sqrt(previous.prior * prior) * o.bigramWeight);
    previous = { stem: t.stem, prior };
    if (o.charWeight > 0 && t.surface.length >= o.charMinLength) {
      const padded = `<${t.surface}>`;
      const count = padded.length - o.charGramSize + 1;
      // Spread the word's character weight over its n-grams, so long words don't dominate.
      const w = (prior * o.charWeight) / Math.sqrt(count);
      for (let i = 0; i < count; i++) add(chars, padded.slice(i, i + o.charGramSize), w);
    }
  }
  return { words, bigrams, chars };
}

function accumulate(v: Float64Array, features: Map<string, Feature>, seed: number) {
  for (const [key, f] of features) {
    const h = hash(key, seed);
    const w = (1 + Math.log(f.tf)) * f.weight;
    v[(h >>> 1) % v.length]! += h & 1 ? w : -w;
  }
}

/** The embedding of one text: deterministic and unit length. */
export function embedLocal(text: string, options: Partial<LocalEmbedderOptions> = {}): number[] {
  const o = { ...DEFAULT_LOCAL_EMBEDDER_OPTIONS, ...options };
  const v = new Float64Array(o.dimensions);
  const { words, bigrams, chars } = collect(analyze(text), o);
  accumulate(v, words, SEED_WORD);
  accumulate(v, bigrams, SEED_BIGRAM);
  accumulate(v, chars, SEED_CHAR);
  let norm = 0;
  for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
  if (norm === 0) {
    // No words ("???", emoji): a zero vector would make cosine distance NaN in pgvector, so use one
    // axis chosen by the raw text — such texts match each other and nothing else.
    v[hash(text.trim(), SEED_WORD) % o.dimensions] = 1;
    norm = 1;
  }
  norm = Math.sqrt(norm);
  const out = new Array<number>(o.dimensions);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! / norm;
  return out;
}

/** How rare a word is (0.2 for "the" … 1 for rare words): the IDF stand-in, shared with the extractive answerer. */
export function termRarity(surface: string): number {
  return rarityPrior(surface, DEFAULT_LOCAL_EMBEDDER_OPTIONS);
}
