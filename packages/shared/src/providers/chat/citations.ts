/**
 * Models cite passages by their number in the prompt ([3], [1, 4], [2][5]). The visitor sees the
 * answer next to a list of sources — one per page, numbered from 1 — so kbchat renumbers citations
 * to that list: the first page cited becomes [1], the next new page [2], and two passages of one
 * page are one source, one number. `cited` lists the passages in order of first citation, so the
 * distinct pages of `cited` (sourcesOf, in that order) are exactly the sources: [k] is sources[k-1].
 * A number that names no passage is an invented citation and is dropped.
 *
 * Works on a stream: text that might be the start of a citation ("[", "[1", "[1, ") is held back
 * until the next chunk tells, so tokens can be forwarded as they arrive.
 */
const CITATION = /\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/g;
const OPEN_TAIL = /\[[\d,\s]{0,16}$/;

export class CitationRenumberer {
  /** The page (source) each prompt passage belongs to. */
  private readonly pageOf: string[];
  private pending = '';
  /** 0-based indexes of the prompt's passages, in order of first citation. */
  readonly cited: number[] = [];
  /** Pages in order of first citation: [k] names pages[k-1]. */
  private readonly pages: string[] = [];

  /** A count numbers every passage as its own page (for callers without URLs). */
  constructor(passages: number | readonly { url: string }[]) {
    this.pageOf = typeof passages === 'number' ? Array.from({ length: passages }, (_, i) => `#${i}`) : passages.map((p) => p.url);
  }

  /** Feeds a chunk of model output; returns the text that can be shown now. */
  push(chunk: string): string {
    const text = this.pending + chunk;
    const tail = OPEN_TAIL.exec(text);
    const ready = tail ? text.slice(0, tail.index) : text;
    this.pending = tail ? text.slice(tail.index) : '';
    return this.rewrite(ready);
  }

  /** The end of the output: whatever was held back, as it stands. */
  flush(): string {
    const rest = this.rewrite(this.pending);
    this.pending = '';
    return rest;
  }

  private rewrite(text: string): string {
    return text.replace(CITATION, (_match, list: string) => {
      const numbers: number[] = [];
      for (const part of list.split(',')) {
        const n = Number(part.trim());
        if (!Number.isInteger(n) || n < 1 || n > this.pageOf.length) continue;
        if (!this.cited.includes(n - 1)) this.cited.push(n - 1);
        const page = this.pageOf[n - 1] as string;
        let k = this.pages.indexOf(page);
        if (k < 0) k = this.pages.push(page) - 1;
        if (!numbers.includes(k + 1)) numbers.push(k + 1);
      }
      return numbers.length === 0 ? '' : `[${numbers.join(', ')}]`;
    });
  }
}

/** Renumbers a complete answer; returns the new text and the cited passage indexes in order. */
export function renumberCitations(answer: string, passages: number | readonly { url: string }[]): { text: string; cited: number[] } {
  const r = new CitationRenumberer(passages);
  const text = r.push(answer) + r.flush();
  return { text, cited: r.cited };
}

/** The citation numbers in a text, in order of appearance (for checks: [k] must be sources[k-1]). */
export function citationNumbers(text: string): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(CITATION)) for (const part of (m[1] as string).split(',')) out.push(Number(part.trim()));
  return out;
}

/** Page text quoted verbatim may carry its own footnote marks ("…in 1998.[12]"): not our citations. */
export function stripCitationMarks(text: string): string {
  return text.replace(/\s?\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/g, '');
}
