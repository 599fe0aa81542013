import { createHash } from 'node:crypto';

/**
 * Splits a page into chunks of at most CHUNK_SIZE characters with CHUNK_OVERLAP characters of
 * overlap (DESIGN.md §5, spec §8; the reasoning is in docs/crawling.md "Chunking").
 *
 * Within a section: paragraphs are packed whole while they fit; a paragraph too long for one chunk
 * is cut at sentence ends (. ! ? … and the CJK 。！？), a sentence too long at the last space or CJK
 * comma inside the window, text with neither at exactly CHUNK_SIZE. A chunk after the first of a section
 * starts with the previous chunk's last whole sentences (up to CHUNK_OVERLAP), so a fact that straddles a
 * cut is whole in one of the two. A section shorter than MIN_SECTION_CHARS is folded into the chunk
 * before it (its heading written as a line) rather than standing alone as a chunk too small to be worth
 * an embedding. A table's rows (the crawler writes each as one paragraph, cells joined by " | ") are
 * never carried as overlap, and a chunk that goes on with a table starts with its first row (the column
 * names) instead: a continuation's rows are read under their columns, not under the first data row it
 * happens to hold. A question (a short paragraph ending in "?") never ends a chunk after other text: it
 * opens the next, with its answer. Chunks never are empty or whitespace-only, keep their section
 * heading, and do NOT carry the page title: the pipeline stores it apart, and chunkEmbeddingText adds
 * both for the embedder.
 * Deterministic: the same sections give the same chunks and hashes, which a re-crawl relies on.
 */
export interface PageSection {
  heading: string | null;
  text: string;
}

export interface Chunk {
  index: number;
  heading: string | null;
  content: string;
  /** sha256 hex of content. */
  hash: string;
}

export const CHUNK_SIZE = 1000;
export const CHUNK_OVERLAP = 150;
/** Sections shorter than this join the previous chunk when it has room. */
export const MIN_SECTION_CHARS = 200;

/** A piece of a paragraph that fits in a chunk, with the whitespace that separated it from the previous piece. */
interface Unit {
  text: string;
  sep: string;
}

export function chunkSections(sections: PageSection[], options: { size?: number; overlap?: number } = {}): Chunk[] {
  const size = options.size ?? CHUNK_SIZE;
  const overlap = Math.min(options.overlap ?? CHUNK_OVERLAP, Math.floor(size / 2));
  const drafts: { heading: string | null; content: string }[] = [];
  let previousSectionEnd = -1;

  for (const section of sections) {
    const heading = cleanHeading(section.heading);
    const text = normalizeText(section.text);
    if (!text) continue;

    // Fold a short section into the chunk before it, when that chunk closed the previous section.
    const last = drafts[drafts.length - 1];
    if (text.length < MIN_SECTION_CHARS && last && previousSectionEnd === drafts.length - 1) {
      const addition = heading ? `${heading}\n${text}` : text;
      if (last.content.length + 2 + addition.length <= size) {
        last.content = `${last.content}\n\n${addition}`;
        continue;
      }
    }

    for (const content of packSection(text, size, overlap)) drafts.push({ heading, content });
    previousSectionEnd = drafts.length - 1;
  }

  return drafts.map((d, index) => ({ index, heading: d.heading, content: d.content, hash: sha256(d.content) }));
}

/**
 * The text the embedder (and the retrieval query side) sees for a chunk: the page title and section
 * heading give a chunk its context ("Pricing — Enterprise plan") without being stored in its content.
 */
export function chunkEmbeddingText(title: string | null | undefined, heading: string | null | undefined, content: string): string {
  const t = title?.trim() ?? '';
  const h = heading?.trim() ?? '';
  const head = [t, h && h !== t ? h : ''].filter(Boolean).join('\n');
  return head ? `${head}\n\n${content}` : content;
}

/** A table's row as the crawler writes it: cells joined by " | ". */
export const TABLE_ROW = /\S \| \S/;

function packSection(text: string, size: number, overlap: number): string[] {
  const chunks: string[] = [];
  let current: Unit[] = [];
  let length = 0;
  // The first row of the table the paragraphs are in, while they are a table's rows.
  let tableHead: string | null = null;
  // How many of current's first units the previous chunk already holds (its overlap, a carried question).
  let carriedUnits = 0;

  // The next chunk starts with units the chunk before holds (its overlap, a table's first row, a question).
  const carry = (units: Unit[]) => {
    current = units;
    carriedUnits = units.length;
    length = unitsLength(units);
    return units.length > 0;
  };
  const flush = (head: string | null) => {
    const content = joinUnits(current);
    if (content) chunks.push(content);
    return carry(head === null ? overlapUnits(current, overlap) : [{ text: head, sep: '' }]);
  };

  for (const paragraph of text.split(/\n[ \t]*\n/)) {
    const para = paragraph.trim();
    if (!para) continue;
    const row = TABLE_ROW.test(para);
    if (!row) tableHead = null;
    else if (tableHead === null) tableHead = para;
    const head = row && tableHead !== para && tableHead !== null && tableHead.length <= overlap ? tableHead : null;
    const units = para.length <= size ? [{ text: para, sep: '' }] : splitParagraph(para, size);
    units[0]!.sep = '\n\n';
    for (const unit of units) {
      const added = (current.length ? unit.sep.length : 0) + unit.text.length;
      if (current.length && length + added > size) {
        const question = trailingQuestion(current);
        let hadOverlap: boolean;
        if (question) {
          // An FAQ's question goes on with its answer: it opens the next chunk instead of the overlap.
          // What comes before it is a chunk when the previous chunk does not already hold it all (its
          // overlap alone is dropped: the question is the next chunk's context).
          if (current.length - question.length > carriedUnits) chunks.push(joinUnits(current.slice(0, current.length - question.length)));
          hadOverlap = carry(question.map((u, i) => (i === 0 ? { ...u, sep: '' } : u)));
        } else hadOverlap = flush(head);
        // The overlap must leave room for the unit that did not fit; drop it from the front until it does.
        while (hadOverlap && current.length && length + unit.sep.length + unit.text.length > size) {
          current.shift();
          carriedUnits = Math.max(0, carriedUnits - 1);
          length = unitsLength(current);
        }
      }
      length += (current.length ? unit.sep.length : 0) + unit.text.length;
      current.push(unit);
    }
  }
  // Every flush is followed by a push, so what is left always holds text not yet emitted.
  const content = joinUnits(current);
  if (content) chunks.push(content);
  return chunks;
}

/** At most this long, a paragraph ending in a question mark is a question its next paragraphs answer. */
const QUESTION_CHARS = 300;

/**
 * The units of the chunk's last paragraph when it is a question ("Can I use two remotes at once?") and
 * something comes before it in the chunk: cut there, it would end one chunk and its answer open the next.
 */
function trailingQuestion(units: Unit[]): Unit[] | null {
  let start = units.length - 1;
  while (start > 0 && !units[start]!.sep.includes('\n\n')) start--;
  if (start === 0) return null;
  const paragraph = units.slice(start);
  const text = joinUnits(paragraph);
  return text.length <= QUESTION_CHARS && /\?["'”’)\]]*$/u.test(text) && !TABLE_ROW.test(text) ? paragraph : null;
}

/**
 * The last whole sentences of a chunk that fit in `overlap` characters; when not even one does (a very
 * long sentence, code), the end of the last one cut at a space.
 */
function overlapUnits(units: Unit[], overlap: number): Unit[] {
  if (overlap <= 0 || units.length === 0) return [];
  const carried: Unit[] = [];
  let total = 0;
  outer: for (let i = units.length - 1; i >= 0; i--) {
    // A table's row stands alone: it is not the context a cut sentence needs.
    if (TABLE_ROW.test(units[i]!.text)) break;
    const sentences = splitParagraph(units[i]!.text, Number.POSITIVE_INFINITY);
    if (sentences.length) sentences[0]!.sep = units[i]!.sep;
    for (let j = sentences.length - 1; j >= 0; j--) {
      const s = sentences[j]!;
      const add = s.text.length + (carried.length ? carried[0]!.sep.length : 0);
      if (total + add > overlap) break outer;
      carried.unshift({ ...s });
      total += add;
    }
  }
  if (carried.length === 0) {
    const last = units[units.length - 1]!.text;
    if (TABLE_ROW.test(last)) return [];
    const tail = tailCut(last, overlap);
    return tail ? [{ text: tail, sep: '' }] : [];
  }
  carried[0]!.sep = '';
  return carried;
}

/** The end of s, at most max characters, starting after a space when there is one. */
function tailCut(s: string, max: number): string {
  if (s.length <= max) return s;
  let start = s.length - max;
  const space = s.slice(start).search(/\s/);
  if (space >= 0 && space < max / 2) start += space + 1;
  if (isLowSurrogate(s.charCodeAt(start))) start++;
  return s.slice(start).trim();
}

function joinUnits(units: Unit[]): string {
  return units
    .map((u, i) => (i === 0 ? u.text : u.sep + u.text))
    .join('')
    .trim();
}

function unitsLength(units: Unit[]): number {
  return units.reduce((n, u, i) => n + u.text.length + (i === 0 ? 0 : u.sep.length), 0);
}

// A sentence ends after . ! ? … (plus closing quotes/brackets) followed by whitespace, after the CJK
// full stops 。！？ (no whitespace follows them), or before a line break — which stays the next unit's
// separator: a code example's lines split apart and joined again keep their breaks ("…import models"
// and "class Article…" ran together as "modelsclass").
const SENTENCE_END = /[.!?…]+["'”’)\]]*(?=\s)|[。！？]+[」』”’)）]*|(?=\n)/g;

/** Splits a paragraph longer than size into sentence units, hard-splitting sentences still too long. */
function splitParagraph(para: string, size: number): Unit[] {
  const units: Unit[] = [];
  let start = 0;
  const push = (end: number) => {
    const raw = para.slice(start, end);
    const lead = raw.length - raw.trimStart().length;
    const body = raw.trim();
    if (body) {
      const gap = raw.slice(0, lead);
      // A line's indentation (a code example's) stays with it, in its separator.
      const sep = gap.includes('\n') ? `\n${gap.slice(gap.lastIndexOf('\n') + 1).replace(/[^ ]/g, ' ')}` : gap ? ' ' : '';
      for (const [i, piece] of hardSplit(body, size).entries()) units.push({ text: piece.text, sep: i === 0 ? sep : piece.sep });
    }
    start = end;
  };
  for (const m of para.matchAll(SENTENCE_END)) push(m.index + m[0].length);
  push(para.length);
  return units;
}

// Inside a window, a cut prefers whitespace, then CJK and Latin commas/semicolons.
const SOFT_BREAK = /[\s、，,；;：:]/;

function hardSplit(s: string, size: number): Unit[] {
  if (s.length <= size) return [{ text: s, sep: '' }];
  const out: Unit[] = [];
  let rest = s;
  let sep = '';
  while (rest.length > size) {
    // Cut before a space (dropped) or after a comma-like mark (kept), as far right in the window as possible.
    let end = -1;
    let skip = 0;
    for (let i = size; i > size * 0.6; i--) {
      if (/\s/.test(rest[i]!)) {
        end = i;
        skip = 1;
        break;
      }
      if (SOFT_BREAK.test(rest[i - 1]!)) {
        end = i;
        break;
      }
    }
    if (end < 0) {
      end = size;
      if (isLowSurrogate(rest.charCodeAt(end))) end--;
    }
    const piece = rest.slice(0, end).trim();
    if (piece) out.push({ text: piece, sep });
    sep = skip ? ' ' : '';
    rest = rest.slice(end + skip).trimStart();
  }
  if (rest.trim()) out.push({ text: rest.trim(), sep });
  return out;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function cleanHeading(heading: string | null): string | null {
  const h = heading?.replace(/\s+/g, ' ').trim();
  return h ? h : null;
}

/** Unifies line ends, trims line-end spaces, collapses runs of blank lines; keeps paragraph breaks. */
function normalizeText(text: string): string {
  return trimLineEnds(text.replace(/\r\n?/g, '\n'), ' \t\f\v\u00a0')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * The text without the `chars` that end each line but the last (and, with `starts`, that open each but
 * the first). A scan: /[ \t]+\n/ takes time in the square of a run of spaces that no line end follows —
 * a page of a million tabs held the crawler for hours.
 */
export function trimLineEnds(text: string, chars = ' \t', starts = false): string {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i] as string;
    let from = 0;
    if (starts && i > 0) while (from < line.length && chars.includes(line[from] as string)) from++;
    let end = line.length;
    if (i < lines.length - 1) while (end > from && chars.includes(line[end - 1] as string)) end--;
    if (from > 0 || end < line.length) line = line.slice(from, end);
    lines[i] = line;
  }
  return lines.join('\n');
}

function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}
