/**
 * Models cite passages by their number in the prompt ([3], [1, 4], [2][5]). The visitor sees the
 * answer next to a list of sources, so kbchat renumbers citations in order of first use:
 * the first passage cited becomes [1], the next new one [2] — and usedPassageIds lists the
 * passages in that order, so [k] is usedPassageIds[k-1]. A number that names no passage is an
 * invented citation and is dropped.
 *
 * Works on a stream: text that might be the start of a citation ("[", "[1", "[1, ") is held back
 * until the next chunk tells, so tokens can be forwarded as they arrive.
 */
const CITATION = /\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/g;
const OPEN_TAIL = /\[[\d,\s]{0,16}$/;

export class CitationRenumberer {
  private readonly passageCount: number;
  private pending = '';
  /** 0-based indexes of the prompt's passages, in order of first citation. */
  readonly cited: number[] = [];

  constructor(passageCount: number) {
    this.passageCount = passageCount;
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
        if (!Number.isInteger(n) || n < 1 || n > this.passageCount) continue;
        let k = this.cited.indexOf(n - 1);
        if (k < 0) k = this.cited.push(n - 1) - 1;
        if (!numbers.includes(k + 1)) numbers.push(k + 1);
      }
      return numbers.length === 0 ? '' : `[${numbers.join(', ')}]`;
    });
  }
}

/** Renumbers a complete answer; returns the new text and the cited passage indexes in order. */
export function renumberCitations(answer: string, passageCount: number): { text: string; cited: number[] } {
  const r = new CitationRenumberer(passageCount);
  const text = r.push(answer) + r.flush();
  return { text, cited: r.cited };
}
