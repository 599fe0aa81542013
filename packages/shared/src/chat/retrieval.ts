import { normalizeUrl } from '../crawl/url.ts';
import type { Pool } from '../db/pool.ts';
import { type RetrievalCandidate, searchCandidates } from '../db/retrieval.ts';
import { walkNearDuplicates } from './near-duplicates.ts';

/**
 * Hybrid retrieval (DESIGN.md §5, docs/retrieval.md): vector and full-text candidates fused by
 * reciprocal rank fusion, a relevance floor on absolute signals (RRF scores are rank-based and
 * say nothing about whether anything matched), a boost for the visitor's current page, and
 * near-duplicate removal that prefers the more specific page.
 */

export interface RetrievalSettings {
  /** Rows fetched from each list. */
  candidates: number;
  /** Passages handed to the chat model. */
  passages: number;
  exactScanMaxDocs: number;
  efSearch: number;
  /** The question is answerable when its best chunk is at least this similar to it (cosine). */
  minSimilarity: number;
  /** ...or when a chunk holds at least this share of the question's lexemes (such a chunk always stays). */
  minTermCoverage: number;
  /** Which candidate lists are fetched: both (hybrid), or one alone to measure it (RETRIEVAL_MODE). */
  mode?: 'hybrid' | 'vector' | 'fulltext';
}

/** RRF constant from Cormack et al. (2009): flattens the head so one list cannot dominate. */
export const RRF_K = 60;
/** Added to the fused score of chunks of context.pageUrl: about what a rank-40 hit in a second list adds. */
export const PAGE_BOOST = 0.01;
/** Of an answerable question, chunks less similar than this share of the best one are dropped. */
export const RELATIVE_FLOOR = 0.5;
/** At most this many chunks per page before other pages get a turn. */
export const MAX_CHUNKS_PER_PAGE = 2;
/** Chunks examined for near-duplicates, as a multiple of the passages wanted. */
const DEDUPE_WINDOW = 3;
/** Word 4-gram containment above which two chunks count as the same text. */
export const DUPLICATE_CONTAINMENT = 0.6;
/**
 * A question at least this share of whose words occur nowhere in the client's documents ("office",
 * "phone"; "Django", "Kubernetes") is about something the site does not cover: declined unless a
 * chunk is clearly similar to it (ABSENT_GATE_MAX_SIMILARITY). Measured on the Node.js docs eval
 * (bench/retrieval.ts, docs/performance.md): unanswerable questions 1/3–1/2 absent words,
 * answerable ones at most 1/5 (a typo or a framework name).
 */
export const ABSENT_TERMS_SHARE = 0.3;
export const ABSENT_GATE_MAX_SIMILARITY = 0.3;

export interface RankedPassage extends RetrievalCandidate {
  score: number;
  boosted: boolean;
}

export interface RetrievalResult {
  passages: RankedPassage[];
  scan: 'exact' | 'hnsw' | 'hnsw+exact' | 'none';
  /** Candidates seen before the floor: for logs and tuning. */
  considered: number;
}

export async function retrieve(
  pool: Pool,
  settings: RetrievalSettings,
  input: { clientId: string; query: string; embedding: readonly number[] | undefined; embeddingModel: string; pageUrl?: string },
): Promise<RetrievalResult> {
  const { candidates, queryTerms, absentTerms, scan } = await searchCandidates(pool, {
    clientId: input.clientId,
    embeddingModel: input.embeddingModel,
    embedding: settings.mode === 'fulltext' ? undefined : input.embedding,
    query: input.query,
    k: settings.candidates,
    exactScanMaxDocs: settings.exactScanMaxDocs,
    efSearch: settings.efSearch,
    fullText: settings.mode !== 'vector',
  });
  const offTopic = isOffTopic(candidates, queryTerms.length, absentTerms);
  const passages = offTopic ? [] : rankCandidates(candidates, queryTerms.length, settings, input.pageUrl);
  return { passages, scan, considered: candidates.length };
}

/**
 * Too many of the question's words are unknown to the site and nothing is clearly similar
 * (ABSENT_TERMS_SHARE). Without similarities (the query could not be embedded) there is no way
 * to tell a question about a product the site never names from one about nothing it covers: the
 * gate stays open and the coverage floor decides.
 */
export function isOffTopic(candidates: Pick<RetrievalCandidate, 'similarity'>[], queryTermCount: number, absentTerms: number): boolean {
  if (queryTermCount === 0 || absentTerms / queryTermCount < ABSENT_TERMS_SHARE) return false;
  const similarities = candidates.flatMap((c) => (c.similarity === null ? [] : [c.similarity]));
  return similarities.length > 0 && Math.max(...similarities) < ABSENT_GATE_MAX_SIMILARITY;
}

/**
 * The relevance floor. A question is answerable when its best chunk is similar enough to it
 * (minSimilarity) or holds enough of its words (minTermCoverage); measured on the Node.js docs
 * eval, gating on the best chunk declines unanswerable questions at a far smaller cost in recall
 * than cutting each chunk at one absolute similarity (docs/retrieval.md). Of an answerable
 * question, a chunk stays when it is within RELATIVE_FLOOR of the best similarity or clears the
 * coverage bar itself, which drops the tail that only shares a stop word or two.
 */
export function relevanceFilter(
  candidates: RetrievalCandidate[],
  queryTermCount: number,
  settings: Pick<RetrievalSettings, 'minSimilarity' | 'minTermCoverage'>,
): RetrievalCandidate[] {
  const coverage = (c: RetrievalCandidate) => (queryTermCount > 0 ? c.matchedTerms / queryTermCount : 0);
  const bestSimilarity = Math.max(0, ...candidates.map((c) => c.similarity ?? 0));
  const bySimilarity = bestSimilarity > 0 && bestSimilarity >= settings.minSimilarity;
  return candidates.filter(
    (c) =>
      (bySimilarity && (c.similarity ?? 0) >= RELATIVE_FLOOR * bestSimilarity) ||
      (c.matchedTerms > 0 && coverage(c) >= settings.minTermCoverage),
  );
}

/** Floor, fuse, boost, de-duplicate, diversify: the passages for the model, best first. */
export function rankCandidates(
  candidates: RetrievalCandidate[],
  queryTermCount: number,
  settings: Pick<RetrievalSettings, 'passages' | 'minSimilarity' | 'minTermCoverage'>,
  pageUrl?: string,
): RankedPassage[] {
  const page = pageUrl ? normalizeUrl(pageUrl) : undefined;
  const scored = relevanceFilter(candidates, queryTermCount, settings)
    .map((c): RankedPassage => {
      let score = 0;
      if (c.vectorRank !== null) score += 1 / (RRF_K + c.vectorRank);
      if (c.ftsRank !== null) score += 1 / (RRF_K + c.ftsRank);
      const boosted = page !== undefined && normalizeUrl(c.url) === page;
      if (boosted) score += PAGE_BOOST;
      return { ...c, score, boosted };
    })
    .sort((a, b) => b.score - a.score || (b.similarity ?? 0) - (a.similarity ?? 0) || a.id.localeCompare(b.id));

  // Comparing texts is the costly step: only the head of the ranking can reach the model.
  const distinct = dropNearDuplicates(scored.slice(0, settings.passages * DEDUPE_WINDOW));
  return diversify(distinct, settings.passages);
}

/**
 * Walks chunks best first; a chunk repeating the text of one already kept is dropped, unless it
 * comes from a more specific (shorter) page, which then takes the kept one's place. So an
 * all-in-one page that repeats every other page never crowds out the page that owns the text.
 */
export function dropNearDuplicates(ranked: RankedPassage[]): RankedPassage[] {
  const kept: RankedPassage[] = [];
  walkNearDuplicates(ranked, DUPLICATE_CONTAINMENT, (i, slot) => {
    const passage = ranked[i] as RankedPassage;
    if (slot < 0) {
      kept.push(passage);
      return true;
    }
    const twin = kept[slot] as RankedPassage;
    if (passage.pageChunks >= twin.pageChunks || passage.url === twin.url) return false;
    kept[slot] = { ...passage, score: twin.score, boosted: twin.boosted || passage.boosted };
    return true;
  });
  return kept;
}

/** Up to `limit` passages, at most MAX_CHUNKS_PER_PAGE per page first, then the rest in rank order. */
function diversify(ranked: RankedPassage[], limit: number): RankedPassage[] {
  const perPage = new Map<string, number>();
  const first: RankedPassage[] = [];
  const rest: RankedPassage[] = [];
  for (const p of ranked) {
    const key = p.pageId ?? p.url;
    const n = perPage.get(key) ?? 0;
    if (n < MAX_CHUNKS_PER_PAGE) {
      perPage.set(key, n + 1);
      first.push(p);
    } else rest.push(p);
  }
  const chosen = new Set([...first.slice(0, limit), ...rest.slice(0, Math.max(0, limit - first.length))]);
  return ranked.filter((p) => chosen.has(p));
}

/** Distinct pages of the passages, in the order given: the `sources` of an answer. */
export function sourcesOf(passages: Pick<RankedPassage, 'url' | 'title'>[]): { title: string; url: string }[] {
  const seen = new Set<string>();
  const out: { title: string; url: string }[] = [];
  for (const p of passages) {
    if (seen.has(p.url)) continue;
    seen.add(p.url);
    out.push({ title: p.title || p.url, url: p.url });
  }
  return out;
}
