import { createHash } from 'node:crypto';
import { normalizeUrl } from '../crawl/url.ts';
import type { Pool } from '../db/pool.ts';
import { type CandidateResult, holdTogether, type RetrievalCandidate, searchCandidates } from '../db/retrieval.ts';
import { asksForContact, isContactPage, statesContact } from './contact-question.ts';
import { walkNearDuplicates } from './near-duplicates.ts';
import { asksForPrice, mayAskForPrice, rateUnitAsked, statesPrice, statesRate } from './price-question.ts';
import {
  absentLimit,
  absentShare,
  asidesLast,
  byScore,
  coverageFirst,
  DEFAULT_RANKING,
  deferToLinked,
  generalBeforeVariant,
  holds,
  PRICE_STEMS,
  type RankingParams,
  type RankingStats,
  rankingFor,
  rankPages,
  type ScoredChunk,
  scoreChunks,
  secondChunkShare,
  sourcePages,
  termWeights,
} from './ranking.ts';
import { searchedQuery } from './searched-query.ts';
import { statedQuestion } from './stated-questions.ts';

/**
 * Hybrid retrieval (DESIGN.md §5, docs/retrieval.md): a vector list and a longer full-text list
 * from one database call, every candidate scored by BM25 over its body, heading and page title
 * (with the client's term statistics) plus its cosine similarity (ranking.ts), near-duplicates
 * dropped in favour of the more specific page, chunks grouped by page, and the pages close to the
 * best one kept. A question most of whose telling words no page of the client holds is declined.
 */

export interface RetrievalSettings {
  /** Rows fetched from the vector list; the full-text list fetches three times as many. */
  candidates: number;
  /** Passages handed to the chat model. */
  passages: number;
  exactScanMaxDocs: number;
  efSearch: number;
  /** Which candidate lists are fetched: both (hybrid), or one alone to measure it (RETRIEVAL_MODE). */
  mode?: 'hybrid' | 'vector' | 'fulltext';
  /** Ranking weights and the decline threshold (DEFAULT_RANKING unless a bench varies them). */
  ranking?: RankingParams;
}

/**
 * Added to the fused score of chunks of context.pageUrl: about what a rank-40 hit in a second list
 * adds. It reorders close chunks (and decides between twins, the boosted one is kept); it never
 * lets an unrelated one in, since declining is decided before.
 */
export const PAGE_BOOST = 0.01;
/** At most this many chunks per page are passages. */
export const MAX_CHUNKS_PER_PAGE = 2;
/** Chunks examined for near-duplicates. */
const DEDUPE_WINDOW = 40;
/** Word 4-gram containment above which two chunks count as the same text. */
export const DUPLICATE_CONTAINMENT = 0.6;

export interface RankedPassage extends ScoredChunk {
  boosted: boolean;
}

export interface RetrievalResult {
  passages: RankedPassage[];
  scan: 'exact' | 'hnsw' | 'hnsw+exact' | 'none';
  /** Candidates seen: for logs and tuning. */
  considered: number;
  /** Share of the question's idf mass no page holds (the decline signal), and whether it declined. */
  absentShare: number;
  declined: boolean;
  /** The question's words' specificity on this site (siteSpecificity). */
  specificity: Record<string, number>;
  /** The client's chunks, as its term statistics count them. */
  chunks: number;
}

/**
 * How much each of the question's lexemes tells on this client's site: log(N / df) / log(N) over its
 * N chunks — 1 for a word in one chunk, 0 for a word in every chunk; a word in none is not listed. The
 * client's own term statistics, so it means the same on any site; no constant to fit.
 */
export function siteSpecificity(result: Pick<CandidateResult, 'queryTerms' | 'termDf' | 'corpusDocs'>): Record<string, number> {
  const n = result.corpusDocs;
  const out: Record<string, number> = {};
  if (!n || n < 2) return out;
  result.queryTerms.forEach((lexeme, i) => {
    const df = result.termDf[i] ?? 0;
    // A word no chunk holds is left out: it counts fully, as a word of one chunk does, and may be a typing slip.
    if (df > 0) out[lexeme] = df === 1 ? 1 : Math.max(0, Math.log(n / df) / Math.log(n));
  });
  return out;
}

export async function retrieve(
  pool: Pool,
  settings: RetrievalSettings,
  input: {
    clientId: string;
    query: string;
    /** The visitor's own words when `query` is a follow-up's rewrite. */
    focus?: string;
    embedding: readonly number[] | undefined;
    embeddingModel: string;
    pageUrl?: string;
  },
): Promise<RetrievalResult> {
  const params = settings.ranking ?? DEFAULT_RANKING;
  // A follow-up's rewrite whose focus is the visitor's own message (not the topic a follow-up naming none points back at).
  const ownFocus = input.focus !== undefined && input.query.trimEnd().endsWith(input.focus.trim());
  input = {
    ...input,
    ...searchedQuery(input.query, input.focus),
  };
  const result = await searchCandidates(pool, {
    // The question's latent vector is folded in the same call. Its list, and the vector list, are
    // fetched whatever their weights: at 0 their chunks are still candidates the other signals rank, as
    // on the bench that chooses the weights (bench/lib/retrieval-loo.ts fetches both for every setting),
    // and a question without a latent list ranks by the vector list (RankingParams.withoutLatent).
    latent: settings.mode !== 'vector',
    clientId: input.clientId,
    embeddingModel: input.embeddingModel,
    embedding: settings.mode === 'fulltext' ? undefined : input.embedding,
    query: input.query,
    ...(input.focus ? { focus: input.focus } : {}),
    k: settings.candidates,
    kText: settings.mode === 'vector' ? 0 : 3 * settings.candidates,
    exactScanMaxDocs: settings.exactScanMaxDocs,
    efSearch: settings.efSearch,
    fullText: settings.mode !== 'vector',
  });
  // The candidates are each list's head: a chunk beyond them may hold two of the words together.
  const apartWords = wordsApartOn(result.candidates, result, params);
  const apart =
    apartWords !== undefined &&
    !(await holdTogether(
      pool,
      input.clientId,
      apartWords.map((i) => result.queryTerms[i] as string),
    ));
  const { passages, absent } = answerablePassages(
    result,
    input.focus ?? input.query,
    { ...settings, ranking: params },
    input.pageUrl,
    apart,
    ownFocus,
  );
  return {
    passages,
    scan: result.scan,
    considered: result.candidates.length,
    absentShare: absent,
    declined: passages.length === 0,
    specificity: siteSpecificity(result),
    chunks: result.corpusDocs,
  };
}

/**
 * The passages to answer from, or none when the question is declined: most of its telling words are
 * on no page of the client (absentShare), no page holds two of them (wordsApart), it asks for a
 * price and the best page states none (price-question.ts), or it asks what a page must state (how the
 * business is paid, whether it delivers, gives discounts…) and no candidate says it (stated-questions.ts).
 */
export function answerablePassages(
  result: CandidateResult,
  message: string,
  settings: Pick<RetrievalSettings, 'passages' | 'ranking'>,
  pageUrl?: string,
  /** Whether the question's words stand apart (wordsApart), as retrieve() confirmed it on every chunk. */
  apart = wordsApart(result.candidates, result, settings.ranking ?? DEFAULT_RANKING),
  /** Whether the focus words are a follow-up's own message, the words in front of it the last question's (ownWordsFirst). */
  ownFocus = false,
): { passages: RankedPassage[]; absent: number } {
  const params = settings.ranking ?? DEFAULT_RANKING;
  const absent = absentShare(result, params, { misspelt: new Set(result.misspelt), message });
  // A question for the business's contact details is answered by the page that states them, whatever
  // its words: none of the answer's pages states them, none is quoted.
  const contact = asksForContact(message);
  if (contact) {
    if (result.candidates.length === 0) return { passages: [], absent };
    const states = (p: RankedPassage) => statesContact(p.content, contact);
    const passages = rankPassages(result.candidates, result, settings, pageUrl);
    // The business's contact page first when it states them: another page may state a partner's.
    const ranked = pageFirst(passages, (p) => states(p) && isContactPage(p.url, p.title)) ?? pageFirst(passages, states);
    // The page that states them may rank below the answer's pages — a home page whose footer gives the
    // phone number, beside a contact page that says "call us": the best-ranked candidate that states them.
    return { passages: ranked ?? bestStating(everyCandidate(result, settings, pageUrl), result, params, states), absent };
  }
  // "Can I pay by card?", "do you deliver?", "are you hiring?" (stated-questions.ts): the page that says how
  // the business is paid, how it delivers, that it takes people on (…) leads, or the best-ranked candidate
  // that says it; none says it, none answers ("pay-and-display parking", "gift cards", "venue hire"). What was
  // asked about may be on no page: "We accept cards and bank transfers" answers "do you take cash?", "Free UK
  // delivery" "do you deliver?". Of those, the preferred first, among the answer's pages and then every
  // candidate: the business's own payments ("We accept Visa, Mastercard…" before an invoicing product's "let
  // clients pay online by card"), a page named for delivery (a returns page names its return label's courier).
  const stated = statedQuestion(message);
  if (stated && result.candidates.length > 0) {
    // A section's name states it as its sentences do ("Caring for Bristol's pets since 1994", "Join our team").
    const states = (p: RankedPassage) => stated.states(p.content) || (!!p.heading && stated.states(p.heading));
    const passages = rankPassages(result.candidates, result, settings, pageUrl);
    let every: RankedPassage[] | undefined;
    const all = () => {
      every ??= everyCandidate(result, settings, pageUrl);
      return every;
    };
    for (const find of [
      () => pageFirst(passages, stated.preferred),
      () => bestStating(all(), result, params, stated.preferred),
      () => pageFirst(passages, states),
      () => bestStating(all(), result, params, states),
    ]) {
      const found = find();
      if (found && found.length > 0) return { passages: found, absent };
    }
    return { passages: [], absent };
  }
  if (result.candidates.length === 0 || absent >= absentLimit(params, result.corpusDocs) || apart) return { passages: [], absent };
  let passages = rankPassages(result.candidates, result, settings, pageUrl);
  if (ownFocus) passages = ownWordsFirst(passages, result, settings, pageUrl);
  // A price asked per a unit ("per hour") is stated per that unit ("£19 an hour").
  const unit = rateUnitAsked(message);
  const statesAsked = unit ? (text: string) => statesRate(text, unit) : statesPrice;
  // "How much is a tune-up?": the home page names tune-ups, the repairs page says what one costs. An
  // answer page stating an amount leads when it holds every word of the question the best page holds.
  if (mayAskForPrice(message)) {
    const held = wordsHeld(passages, result, params);
    // Not the words it asks a price with: "how much do you *charge* per hour" is answered by "£19 an
    // hour", not by a FAQ's "we'll put it right at no *charge*" within 24 *hours*.
    const best = [...(held.get(passages[0]?.url ?? '') ?? [])].filter((i) => !PRICE_STEMS.has(result.queryTerms[i] ?? ''));
    const ranked = pageFirst(
      passages,
      (p) => statesAsked(p.content),
      (url) => best.every((i) => held.get(url)?.has(i)),
    );
    // One stated per the unit may be on a page the answer's pages left out: the best-ranked candidate's.
    const stating =
      ranked || !unit ? [] : bestStating(everyCandidate(result, settings, pageUrl), result, params, (p) => statesAsked(p.content), best);
    passages = ranked ?? (stating.length > 0 ? stating : passages);
  }
  // The amount must be on the best page, the one the answer quotes first: another page's price is another
  // thing's; asked per a unit, one per that unit (a B&B's nightly rates answer no "hourly rate?").
  const best = passages[0]?.url;
  if (asksForPrice(message) && !passages.some((p) => p.url === best && statesAsked(p.content))) return { passages: [], absent };
  return { passages, absent };
}

/**
 * A follow-up's rewrite (the last question's words in front of the visitor's, as context words): what it
 * asks is the visitor's own words, the words before them only where. A best page holding none of the
 * visitor's telling words gives way to the best-ranked page holding every one — "is there parking?" after
 * "what are your opening hours?" was answered with "Phone: … (during opening hours)", "and on Sundays?"
 * with the same line beside a table of opening days.
 */
function ownWordsFirst(
  passages: RankedPassage[],
  result: CandidateResult,
  settings: Pick<RetrievalSettings, 'passages' | 'ranking'>,
  pageUrl: string | undefined,
): RankedPassage[] {
  const best = passages[0];
  if (!best) return passages;
  const params = settings.ranking ?? DEFAULT_RANKING;
  const weights = termWeights(result, params);
  const own = weights.flatMap((w, i) => (w > 0 && result.termFocus[i] !== false ? [i] : []));
  const held = wordsHeld(passages, result, params);
  if (own.length === 0 || (held.get(best.url)?.size ?? 0) > 0) return passages;
  const holdsOwn = (url: string) => own.every((i) => held.get(url)?.has(i));
  const first = pageFirst(passages, () => true, holdsOwn);
  if (first) return first;
  const stating = bestStating(everyCandidate(result, settings, pageUrl), result, params, () => true, own);
  return stating.length > 0 ? [...stating, ...passages.filter((p) => p.url !== stating[0]?.url)] : passages;
}

/** Every candidate ranked as passages, no page dropped: where bestStating looks past the answer's pages. */
function everyCandidate(
  result: CandidateResult,
  settings: Pick<RetrievalSettings, 'passages' | 'ranking'>,
  pageUrl: string | undefined,
): RankedPassage[] {
  const params = settings.ranking ?? DEFAULT_RANKING;
  return rankPassages(
    result.candidates,
    result,
    { ...settings, passages: result.candidates.length, ranking: { ...params, relatedPageRatio: 0, maxPages: result.candidates.length } },
    pageUrl,
  );
}

/**
 * Of `every` (everyCandidate), the best-ranked that states what `states` looks for (on a page that holds
 * the visitor's telling words `words`, when given), with its page's other candidates; none when none does.
 */
function bestStating(
  every: RankedPassage[],
  result: CandidateResult,
  params: RankingParams,
  states: (p: RankedPassage) => boolean,
  words: readonly number[] = [],
): RankedPassage[] {
  const held = words.length > 0 ? wordsHeld(every, result, params) : undefined;
  const stating = every.find((p) => states(p) && (!held || words.every((i) => held.get(p.url)?.has(i))));
  return stating ? [stating, ...every.filter((p) => p.url === stating.url && p !== stating)] : [];
}

/**
 * The passages with the first page that has a passage passing `states` (and `qualifies`) moved to the
 * front, its passages first; unchanged when the best page passes; undefined when no page does.
 */
function pageFirst(
  passages: RankedPassage[],
  states: (p: RankedPassage) => boolean,
  qualifies: (url: string) => boolean = () => true,
): RankedPassage[] | undefined {
  const url = passages.find((p) => states(p) && qualifies(p.url))?.url;
  if (url === undefined) return undefined;
  return [...passages.filter((p) => p.url === url), ...passages.filter((p) => p.url !== url)];
}

/** Per page of the passages: the visitor's own telling words (indices of the query's terms) it holds. */
function wordsHeld(passages: RankedPassage[], stats: RankingStats, params: RankingParams): Map<string, Set<number>> {
  const weights = termWeights(stats, params);
  const held = new Map<string, Set<number>>();
  for (const p of passages) {
    const set = held.get(p.url) ?? new Set<number>();
    weights.forEach((w, i) => {
      if (w > 0 && stats.termFocus[i] !== false && holds(p, i)) set.add(i);
    });
    held.set(p.url, set);
  }
  return held;
}

/** A question needs this many telling words on the site before their standing apart declines it. */
export const WORDS_APART_MIN = 3;

/**
 * Whether the visitor's telling words stand apart on this site: the question has WORDS_APART_MIN or
 * more words the site holds (not in every chunk of it), and no page among the candidates holds two of
 * them. "What's the weather in Paris today?" of the PostgreSQL docs: "weather" is the tutorial's example
 * table, "Paris" a time zone, "today" a date function, each on other pages — every word on the site,
 * nothing about the question. Evidence that means the same on any site: the site never speaks of two of
 * the things asked together. Two words apart are no such sign: a follow-up's "change it to index.php?"
 * names one thing the site states and one the visitor's history holds.
 */
export function wordsApart(candidates: RetrievalCandidate[], stats: RankingStats, params: RankingParams): boolean {
  return wordsApartOn(candidates, stats, params) !== undefined;
}

/** The telling words (indices of the query's terms) when they stand apart (wordsApart), else undefined. */
function wordsApartOn(candidates: RetrievalCandidate[], stats: RankingStats, params: RankingParams): number[] | undefined {
  const telling = tellingIndices(stats, params);
  if (telling.length < WORDS_APART_MIN) return undefined;
  // Per page, the telling word it holds: a second one ends the search (most questions end it at their
  // first candidates).
  const held = new Map<string, number>();
  for (const c of candidates) {
    const page = c.url;
    for (const i of telling) {
      if (!holds(c, i)) continue;
      const word = held.get(page);
      if (word === undefined) held.set(page, i);
      else if (word !== i) return undefined;
    }
  }
  return telling;
}

/** The visitor's own words the site holds, in some of its chunks and not all (indices of the query's terms): what wordsApart counts. */
function tellingIndices(stats: RankingStats, params: RankingParams): number[] {
  const weights = termWeights(stats, params);
  return stats.queryTerms.flatMap((_, i) =>
    (weights[i] ?? 0) > 0 && stats.termFocus[i] !== false && (stats.termDf[i] ?? 0) > 0 && (stats.termDf[i] ?? 0) < stats.corpusDocs
      ? [i]
      : [],
  );
}

/**
 * Score, de-duplicate, group by page, keep the pages close to the best: the passages for the
 * model, best page first, at most MAX_CHUNKS_PER_PAGE of each.
 */
export function rankPassages(
  candidates: RetrievalCandidate[],
  stats: RankingStats,
  settings: Pick<RetrievalSettings, 'passages' | 'ranking'>,
  pageUrl?: string,
): RankedPassage[] {
  const params = rankingFor(settings.ranking ?? DEFAULT_RANKING, candidates);
  const page = pageUrl ? normalizeUrl(pageUrl) : undefined;
  const scored = scoreChunks(candidates, stats, params)
    .map((c): RankedPassage => {
      const boosted = page !== undefined && normalizeUrl(c.url) === page;
      return { ...c, score: c.score + (boosted ? PAGE_BOOST : 0), boosted };
    })
    .sort(byScore);
  // Comparing texts is the costly step: only the head of the ranking can reach the model.
  const distinct = dropNearDuplicates(scored.slice(0, DEDUPE_WINDOW));
  const ranked = coverageFirst(
    rankPages(distinct, { ...params, secondChunkWeight: secondChunkShare(params, stats.corpusDocs) }),
    distinct[0],
    stats,
    params,
  );
  const pages = sourcePages(
    generalBeforeVariant(deferToLinked(asidesLast(ranked, stats, params), stats.pageLinks, params), stats, params),
    params,
  );
  return pages.flatMap((p) => p.chunks.slice(0, MAX_CHUNKS_PER_PAGE)).slice(0, settings.passages);
}

/**
 * Walks chunks best first; a chunk repeating the text of one already kept is dropped, unless it
 * comes from a more specific (shorter) page, which then takes the kept one's place. So an
 * all-in-one page that repeats every other page never crowds out the page that owns the text.
 *
 * Which chunk repeats which depends only on the chunks and their order: the walk's verdicts for the
 * last DEDUPE_MEMO lists are kept and replayed when the same list comes again (a question asked again,
 * or the same candidates ranked with other weights: the bench's grid of weights replays most lists).
 */
export function dropNearDuplicates(ranked: RankedPassage[]): RankedPassage[] {
  const kept: RankedPassage[] = [];
  const decide = (i: number, slot: number): boolean => {
    const passage = ranked[i] as RankedPassage;
    if (slot < 0) {
      kept.push(passage);
      return true;
    }
    const twin = kept[slot] as RankedPassage;
    if (passage.pageChunks >= twin.pageChunks || passage.url === twin.url) return false;
    kept[slot] = { ...passage, score: twin.score, boosted: twin.boosted || passage.boosted };
    return true;
  };
  // The list's digest: 1,024 lists of 40 chunks' ids and hashes would hold ~4 MB of keys.
  const key = createHash('sha1')
    .update(ranked.map((p) => `${p.id}:${p.contentHash}:${p.pageChunks}`).join(','))
    .digest('base64');
  const verdicts = walkVerdicts.get(key);
  if (verdicts) {
    for (let v = 0; v < verdicts.length; v += 2) decide(verdicts[v] as number, verdicts[v + 1] as number);
    return kept;
  }
  const log: number[] = [];
  walkNearDuplicates(ranked, DUPLICATE_CONTAINMENT, (i, slot) => {
    log.push(i, slot);
    return decide(i, slot);
  });
  if (walkVerdicts.size >= DEDUPE_MEMO) walkVerdicts.delete(walkVerdicts.keys().next().value as string);
  walkVerdicts.set(key, Int32Array.from(log));
  return kept;
}

/** The near-duplicate walk's verdicts (text, slot) per list of chunks, oldest first. */
const walkVerdicts = new Map<string, Int32Array>();
const DEDUPE_MEMO = 1024;

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
