// The eval README's floor: plain BM25 (k1 1.2, b 0.75) over every page's visible text (title + body;
// script, style and nav dropped) cut into ~1,000-character chunks every 800 characters, lower-cased
// [a-z0-9_]+ tokens, a short English stop-word list, pages ranked by their best chunk; follow-ups
// asked without their context. Computed over the pages the service indexed, in the same run.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Question } from './corpora.ts';
import { scoreReference } from './retrieval-score.ts';

const STOP = new Set(
  'a an and are as at be but by for from has have how i if in into is it its my of on or so that the their then there these this to was we what when where which who why will with you your do does can'.split(
    ' ',
  ),
);

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Title + body text of an HTML page, without script, style, nav and tags. */
export function visibleText(html: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1] ?? '';
  const body = (/<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html)
    .replace(/<(script|style|nav|noscript)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ');
  return `${title} ${body}`
    .replace(/&(#x?[0-9a-f]+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
      return ENTITIES[e.toLowerCase()] ?? m;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

export function tokens(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9_]+/g) ?? []).filter((t) => !STOP.has(t));
}

export class Bm25Reference {
  private readonly chunks: { page: string; tf: Map<string, number>; len: number }[] = [];
  private readonly df = new Map<string, number>();
  private avgLen = 0;

  /** pages: relative paths of the pages the service indexed, read from dir. */
  constructor(dir: string, pages: string[]) {
    let total = 0;
    for (const page of pages) {
      let html: string;
      try {
        html = readFileSync(path.join(dir, page), 'utf8');
      } catch {
        continue;
      }
      const text = visibleText(html);
      for (let start = 0; start < Math.max(1, text.length); start += 800) {
        const toks = tokens(text.slice(start, start + 1000));
        const tf = new Map<string, number>();
        for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
        for (const t of tf.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
        this.chunks.push({ page, tf, len: toks.length });
        total += toks.length;
        if (start + 1000 >= text.length) break;
      }
    }
    this.avgLen = total / Math.max(1, this.chunks.length);
  }

  /** Pages by their best chunk's BM25 score, best first. */
  rank(question: string, limit = 5): string[] {
    const q = [...new Set(tokens(question))];
    const n = this.chunks.length;
    const best = new Map<string, number>();
    for (const c of this.chunks) {
      let s = 0;
      for (const t of q) {
        const f = c.tf.get(t);
        if (!f) continue;
        const df = this.df.get(t) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        s += (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * c.len) / this.avgLen));
      }
      if (s > 0 && s > (best.get(c.page) ?? 0)) best.set(c.page, s);
    }
    return [...best.entries()]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, limit)
      .map(([p]) => p);
  }

  /** recall@1 and recall@3 over the answerable questions, follow-ups without their context. */
  score(questions: Question[]): { recallAt1: number; recallAt3: number } {
    return scoreReference(questions, (q) => this.rank(q));
  }
}
