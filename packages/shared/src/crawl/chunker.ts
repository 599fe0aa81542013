/**
 * Splits a page into ~1000-character chunks with overlap (DESIGN.md §5, spec §8).
 * CONTRACT (owner: the "web" work package): split at paragraph, then sentence boundaries (CJK
 * sentence ends too), never an empty or whitespace-only chunk, the section heading kept with each
 * chunk; deterministic (same input → same chunks and hashes, which a re-crawl relies on).
 * STUB: fixed windows.
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

import { createHash } from 'node:crypto';

export const CHUNK_SIZE = 1000;
export const CHUNK_OVERLAP = 150;

export function chunkSections(sections: PageSection[]): Chunk[] {
  const chunks: Chunk[] = [];
  for (const s of sections) {
    const text = s.text.trim();
    for (let i = 0; i < text.length; i += CHUNK_SIZE - CHUNK_OVERLAP) {
      const content = text.slice(i, i + CHUNK_SIZE).trim();
      if (content)
        chunks.push({ index: chunks.length, heading: s.heading, content, hash: createHash('sha256').update(content).digest('hex') });
      if (i + CHUNK_SIZE >= text.length) break;
    }
  }
  return chunks;
}
