/**
 * Near-duplicate detection for the head of a chat request's ranking (retrieval.ts,
 * dropNearDuplicates): two texts are the same text when the word 4-grams ("shingles") they share
 * are at least a given share of the smaller text's distinct 4-grams (containment).
 *
 * Each text is compared with every text kept so far; compared pairwise that costs
 * O(kept × shingles) per text. Here each text's shingles are looked up once in an inverted index
 * (shingle → the kept texts holding it), which counts the shingles shared with every kept text in
 * one pass. With a Set<number> per text compared pairwise this was ~0.44 ms of CPU per chat
 * request (18 chunks of ~700 characters), a fifth of the gateway's CPU per request.
 *
 * Everything lives in typed arrays reused across requests: shingles are FNV-1a hashes of the
 * lowercased words cut to 30 bits, which V8 keeps as small integers.
 */

/** Letters and digits in any script: the characters of a shingle's words. */
const WORD_CHAR = /[\p{L}\p{N}]/u;
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;
const SHINGLE_WORDS = 4;
const SHINGLE_BITS = 0x3fffffff;

function mix(h: number, w: number): number {
  return Math.imul(h ^ w, FNV_PRIME);
}

/** Non-ASCII: a letter or digit of any script (a low surrogate goes with the high one before it). */
function isWordChar(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c >= 0xdc00 && c <= 0xdfff) {
    const before = i > 0 ? s.charCodeAt(i - 1) : 0;
    return before >= 0xd800 && before <= 0xdbff && WORD_CHAR.test(String.fromCodePoint(s.codePointAt(i - 1) as number));
  }
  return WORD_CHAR.test(String.fromCodePoint(s.codePointAt(i) as number));
}

/**
 * The word 4-grams of `text` (words: runs of letters and digits, lowercased), in order and with
 * repeats. A text of one to three words is one shingle of them all. Written to `out` from `at`,
 * which must leave room for text.length / 2 + 1 of them (shingles ≤ words ≤ that); returns how many.
 */
export function writeShingles(text: string, out: Int32Array, at = 0): number {
  const lower = text.toLowerCase();
  let count = at;
  // The last four words' hashes, oldest first.
  let w0 = 0;
  let w1 = 0;
  let w2 = 0;
  let w3 = 0;
  let words = 0;
  let word = FNV_OFFSET;
  let inWord = false;
  for (let i = 0; i <= lower.length; i++) {
    const c = i < lower.length ? lower.charCodeAt(i) : 32;
    if (c < 128 ? (c >= 97 && c <= 122) || (c >= 48 && c <= 57) : isWordChar(lower, i)) {
      word = mix(word, c);
      inWord = true;
      continue;
    }
    if (!inWord) continue;
    w0 = w1;
    w1 = w2;
    w2 = w3;
    w3 = word;
    word = FNV_OFFSET;
    inWord = false;
    if (++words >= SHINGLE_WORDS) out[count++] = mix(mix(mix(mix(FNV_OFFSET, w0), w1), w2), w3) & SHINGLE_BITS;
  }
  if (words > 0 && words < SHINGLE_WORDS) {
    let h = FNV_OFFSET;
    if (words >= 3) h = mix(h, w1);
    if (words >= 2) h = mix(h, w2);
    out[count++] = mix(h, w3) & SHINGLE_BITS;
  }
  return count - at;
}

interface Workspace {
  /** Every text's shingles, back to back. */
  shingles: Int32Array;
  /** Open addressing, a power of two at most half full: a slot is in use when its stamp is the walk's. */
  stamp: Int32Array;
  key: Int32Array;
  /** The text that last looked the slot up: a shingle repeated within a text counts once. */
  seenBy: Int32Array;
  /** First posting + 1 (0: none). A posting: a kept slot holding the shingle, the slot's version, the next. */
  head: Int32Array;
  postSlot: Int32Array;
  postVersion: Int32Array;
  postNext: Int32Array;
  /** The current text's distinct shingles, as table slots. */
  slots: Int32Array;
  walk: number;
}

function workspace(bound: number, table: number): Workspace {
  return {
    shingles: new Int32Array(bound),
    postSlot: new Int32Array(bound),
    postVersion: new Int32Array(bound),
    postNext: new Int32Array(bound),
    slots: new Int32Array(bound),
    ...hashTable(table),
    walk: 0,
  };
}

function hashTable(size: number): Pick<Workspace, 'stamp' | 'key' | 'seenBy' | 'head'> {
  return { stamp: new Int32Array(size), key: new Int32Array(size), seenBy: new Int32Array(size), head: new Int32Array(size) };
}

/** Reused across walks (allocating and zeroing ~100 KB of typed arrays per request cost more than the walk). */
let reusable: Workspace | undefined;
let inUse = false;
/** Walks are numbered in the Int32Array of stamps: past this the stamps are cleared and numbering restarts. */
const LAST_WALK = 0x7fffffff;

export interface WalkOptions {
  /** Where walk numbering restarts (default: the largest Int32Array stamp); small in tests, to reach the wrap. */
  lastWalk?: number;
}

/**
 * Offers `texts` in order to a growing list of kept ones. For each text `decide(text, slot)` is
 * called with slot -1 when the text repeats no kept text (it is then kept in the next slot: 0, 1,
 * 2, ...), or with the slot of the first kept text (in slot order) that has the same contentHash or
 * shares at least `minContainment` of the smaller one's distinct shingles; `decide` returning true
 * then puts this text in that slot in place of the kept one. Synchronous.
 */
export function walkNearDuplicates(
  texts: readonly { content: string; contentHash: string }[],
  minContainment: number,
  decide: (text: number, slot: number) => boolean,
  { lastWalk = LAST_WALK }: WalkOptions = {},
): void {
  // A word is at least one character and words are apart: at most len / 2 + 1 shingles a text.
  let bound = 1;
  for (const t of texts) bound += (t.content.length >> 1) + 1;
  // A walk started from inside `decide` gets a workspace of its own.
  const nested = inUse;
  let ws = nested ? undefined : reusable;
  if (!ws || ws.shingles.length < bound) ws = workspace(bound, ws?.stamp.length ?? 64);
  const offsets = new Array<number>(texts.length + 1);
  let total = 0;
  for (let i = 0; i < texts.length; i++) {
    offsets[i] = total;
    total += writeShingles((texts[i] as { content: string }).content, ws.shingles, total);
  }
  offsets[texts.length] = total;
  if (ws.stamp.length < total * 2) {
    let size = ws.stamp.length;
    while (size < total * 2) size <<= 1;
    Object.assign(ws, hashTable(size), { walk: 0 });
  }
  if (ws.walk >= lastWalk) {
    ws.stamp.fill(0);
    ws.walk = 0;
  }
  if (!nested) {
    reusable = ws;
    inUse = true;
  }
  try {
    walk(ws, texts, offsets, minContainment, decide);
  } finally {
    if (!nested) inUse = false;
  }
}

function walk(
  ws: Workspace,
  texts: readonly { content: string; contentHash: string }[],
  offsets: number[],
  minContainment: number,
  decide: (text: number, slot: number) => boolean,
): void {
  const w = ++ws.walk;
  const mask = ws.stamp.length - 1;
  const { shingles, stamp, key, seenBy, head, postSlot, postVersion, postNext, slots } = ws;
  let postings = 0;
  // Per kept slot: distinct shingles, version (a replaced text's postings go stale), contentHash.
  const size: number[] = [];
  const version: number[] = [];
  const hashes: string[] = [];
  const shared: number[] = [];
  for (let t = 0; t < texts.length; t++) {
    const kept = size.length;
    for (let k = 0; k < kept; k++) shared[k] = 0;
    let distinct = 0;
    // seenBy is cleared when the walk claims a slot: text numbers from 1 cannot meet an older walk's.
    const offer = t + 1;
    for (let i = offsets[t] as number; i < (offsets[t + 1] as number); i++) {
      const k1 = (shingles[i] as number) + 1;
      let slot = k1 & mask;
      while (stamp[slot] === w && key[slot] !== k1) slot = (slot + 1) & mask;
      if (stamp[slot] !== w) {
        stamp[slot] = w;
        key[slot] = k1;
        head[slot] = 0;
        seenBy[slot] = 0;
      } else if (seenBy[slot] === offer) continue;
      seenBy[slot] = offer;
      slots[distinct++] = slot;
      for (let p = head[slot] as number; p !== 0; p = postNext[p - 1] as number) {
        const k = postSlot[p - 1] as number;
        if (postVersion[p - 1] === version[k]) shared[k] = (shared[k] as number) + 1;
      }
    }
    const hash = (texts[t] as { contentHash: string }).contentHash;
    let twin = -1;
    for (let k = 0; k < kept && twin < 0; k++) {
      const smaller = Math.min(size[k] as number, distinct);
      if (hashes[k] === hash || (smaller > 0 && (shared[k] as number) / smaller >= minContainment)) twin = k;
    }
    if (!decide(t, twin) && twin >= 0) continue;
    const slotOf = twin < 0 ? kept : twin;
    if (twin < 0) {
      size.push(0);
      version.push(0);
      hashes.push('');
      shared.push(0);
    } else version[slotOf] = (version[slotOf] as number) + 1;
    size[slotOf] = distinct;
    hashes[slotOf] = hash;
    for (let i = 0; i < distinct; i++) {
      const slot = slots[i] as number;
      postSlot[postings] = slotOf;
      postVersion[postings] = version[slotOf] as number;
      postNext[postings] = head[slot] as number;
      head[slot] = ++postings;
    }
  }
}
