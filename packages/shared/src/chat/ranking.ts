import { TABLE_ROW } from '../crawl/chunker.ts';
import type { CandidateResult, RetrievalCandidate } from '../db/retrieval.ts';
import { foldForIntent } from '../intent/classifier.ts';
import { guessLanguage } from '../providers/chat/canned-replies.ts';
import { analyze, isStopWord, needsFolding, stemOpening } from '../providers/text/text-analysis.ts';
import { idiomStems, otherFormStems, phrasalVerbStems } from './clippings.ts';
import { mayAskForPrice } from './price-question.ts';
import { asksForTime } from './time-question.ts';

/**
 * The ranking of retrieval candidates and the decision to answer at all (docs/retrieval.md).
 *
 * Every signal is relative to the client's own pages, so it means the same on any site: BM25 idf
 * from the client's term statistics, term frequency saturated and normalised by the client's mean
 * chunk length, the share of the question's idf mass that no page of the client holds. No constant
 * depends on a site's vocabulary or on an embedder's similarity scale; the weights below were chosen
 * leave-one-corpus-out on several real documentation sites (bench/retrieval-tune.ts,
 * docs/retrieval.md has the figures).
 */
export interface RankingParams {
  /** BM25 term-frequency saturation and length normalisation (the textbook values). */
  k1: number;
  b: number;
  /** Extra weight of a query term in the chunk's title or heading, and in the page title. */
  headWeight: number;
  titleWeight: number;
  /** Weight of a query term that only the follow-up's context brought (not the visitor's words). */
  contextWeight: number;
  /**
   * Weight of the vector list next to the lexical ranking. Both are fused by their ranks
   * (reciprocal rank fusion, k = RRF_K): a similarity's scale differs between embedders, a rank's
   * does not.
   */
  vectorWeight: number;
  /** Weight of the latent semantic list (the client's own related words, db/lsa.ts), fused the same way. */
  lsaWeight: number;
  /**
   * Added to a chunk's fused score, × 1/RRF_K, for the share of the question's close word pairs that
   * stand as close in the chunk ("query plan", "default port"): what a hit in another list adds.
   */
  proximityWeight: number;
  /** A page's score: its best chunk plus this share of its second best. */
  secondChunkWeight: number;
  /** Declined when at least this share of the question's idf mass is in no page of the client. */
  maxAbsentShare: number;
  /** An absent word written as a name (GraphQL, PyCharm, GeneratedField) weighs this many times more. */
  namedWeight: number;
  /** A further page is a source when its score is at least this share of the best page's. */
  relatedPageRatio: number;
  /** At most this many pages are sources. */
  maxPages: number;
  /**
   * The best page defers to a page it links to that does not link back, when that page scores at least
   * this share of it (0: never): an overview (Apache's "Mapping URLs", a FAQ, a man page's hub) names
   * a topic and links to the page that treats it.
   */
  linkedPageRatio: number;
  /**
   * The page of the best chunk stays first when a page ranked above it by its further chunks has no
   * chunk holding this share of the question that chunk holds (its idf mass; 0: never): a FAQ's one
   * answer to "mode2 says Device or resource busy" before mode2's manual page, whose chunks all say
   * "mode2" and none "busy".
   */
  coverageMargin: number;
  /**
   * Weights that replace these when a question has no latent list (a client under LSA_MIN_CHUNKS
   * chunks has no model; nor does a question of words the model does not know).
   */
  withoutLatent?: Partial<Omit<RankingParams, 'withoutLatent'>>;
}

export const DEFAULT_RANKING: Readonly<RankingParams> = Object.freeze({
  k1: 1.2,
  b: 0.75,
  headWeight: 0.5,
  titleWeight: 0,
  contextWeight: 0.5,
  vectorWeight: 1,
  lsaWeight: 1,
  proximityWeight: 2,
  secondChunkWeight: 0.3,
  maxAbsentShare: 0.3,
  namedWeight: 3,
  relatedPageRatio: 0.5,
  maxPages: 3,
  linkedPageRatio: 0.8,
  coverageMargin: 1.25,
});

/**
 * The local embedder's vectors are hashed words and word pieces: a second lexical list rather than a
 * semantic one, beside the client's latent list, which carries what the words alone miss. The grid's
 * choice over the seventeen bench corpora (bench/retrieval.ts "the grid's choice on every corpus"),
 * and thirteen of the seventeen leave-one-corpus-out folds' once these weights were shipped, is the
 * hashed list at full weight, the latent list at half, no title weight, proximity at half and no
 * deferring of an overview page to the pages it links to (linkedPageRatio 0). Without a latent list (a
 * small site: no model under 100 chunks) the hashed list is the only one beside the words, and the
 * weights are those chosen before (vector list and latent list at half, a title word as much again as
 * a heading's, proximity 2, link deferral at 0.8): without them, four-to-six-page sites lost 2–3 of
 * 196 questions (docs/retrieval.md). A semantic embedder (openai) keeps DEFAULT_RANKING's weights.
 */
export const LOCAL_EMBEDDER_RANKING: Readonly<RankingParams> = Object.freeze({
  ...DEFAULT_RANKING,
  vectorWeight: 1,
  lsaWeight: 0.5,
  titleWeight: 0,
  proximityWeight: 0.5,
  linkedPageRatio: 0,
  withoutLatent: Object.freeze({ vectorWeight: 0.5, lsaWeight: 0.5, titleWeight: 1, proximityWeight: 2, linkedPageRatio: 0.8 }),
});

/** The weights for these candidates: `withoutLatent`'s when none of them is on a latent list. */
export function rankingFor(params: RankingParams, candidates: readonly Pick<RetrievalCandidate, 'lsaRank'>[]): RankingParams {
  return params.withoutLatent && !candidates.some((c) => c.lsaRank !== null) ? { ...params, ...params.withoutLatent } : params;
}

export type RankingStats = Pick<CandidateResult, 'queryTerms' | 'termDf' | 'termFocus' | 'corpusDocs' | 'avgLength'> &
  Partial<Pick<CandidateResult, 'queryPositions' | 'termStop' | 'pageLinks'>>;

export interface ScoredChunk extends RetrievalCandidate {
  /** Lexical score normalised by the best score the question could reach, in [0, 1]. */
  lexical: number;
  score: number;
}

export interface RankedPage<C extends ScoredChunk = ScoredChunk> {
  key: string;
  score: number;
  /** The page's chunks among the candidates, best first. */
  chunks: C[];
}

/** Per query term: idf × (1 or contextWeight). Without statistics every term weighs 1. */
export function termWeights(stats: RankingStats, params: RankingParams): number[] {
  const n = stats.corpusDocs;
  return stats.queryTerms.map((term, i) => {
    // "whats" stems to "what", a stop word the documents' tsvectors never hold; "how much", "please",
    // "hmm" are how people talk, not what they ask about: none of them says anything.
    if ((stats.termStop?.[i] ?? isStopWord(term)) || CONVERSATIONAL.has(term)) return 0;
    // A verb of trade is the question's frame, not its topic ("do you *sell* to cafés?"): it weighs as a context word.
    const context = stats.termFocus[i] === false || INTENT_STEMS.has(term);
    return idfOf(stats.termDf[i] ?? 0, n) * (context ? params.contextWeight : 1);
  });
}

/** BM25's idf of a lexeme in `df` of the client's `n` chunks (1 before the first statistics refresh). */
function idfOf(df: number, n: number): number {
  return n > 0 ? Math.log(1 + (n - Math.min(df, n) + 0.5) / (df + 0.5)) : 1;
}

/** Chunks of a site at or above which `maxAbsentShare` is the limit; at or below SMALL_SITE_CHUNKS, SMALL_SITE_SHARE. */
export const LARGE_SITE_CHUNKS = 1000;
export const SMALL_SITE_CHUNKS = 20;
/** More than half of the question missing: the limit on a small site. */
export const SMALL_SITE_SHARE = 0.51;

/**
 * The absent share at which a question is declined on a site of `chunks` chunks. A site of a few
 * pages uses a few hundred words: a word of an answerable question it lacks is the rule there, not
 * the exception ("Do you have vegan *options*?" of a menu that marks dishes vegan; "*nearby*"
 * parking, a "*kids* menu"), and its questions are short, so one such word of two was 0.5 of the
 * question and declined it. There a question is declined when more of it is missing than present;
 * from LARGE_SITE_CHUNKS up (the documentation sites the limit was chosen on), at maxAbsentShare;
 * between them, in proportion to the logarithm of the size.
 */
export function absentLimit(params: RankingParams, chunks: number): number {
  const t = siteSize(chunks);
  return Math.max(params.maxAbsentShare, SMALL_SITE_SHARE + t * (params.maxAbsentShare - SMALL_SITE_SHARE));
}

/**
 * The share of a page's second chunk in its score (secondChunkWeight) on a site of `chunks` chunks. On
 * a site of a few pages every chunk is a candidate, and a page's second chunk among them says only that
 * the page is long: the yoga studio's two-chunk home page outranked the one chunk that answered
 * "Can I shower after class?". From LARGE_SITE_CHUNKS up, where the candidates are the head of
 * thousands of chunks (the documentation sites the weight was chosen on), secondChunkWeight; between,
 * in proportion to the logarithm of the size, as absentLimit.
 */
export function secondChunkShare(params: RankingParams, chunks: number): number {
  return params.secondChunkWeight * siteSize(chunks);
}

/**
 * 0 for a site of SMALL_SITE_CHUNKS or fewer, 1 from LARGE_SITE_CHUNKS up (and before the first
 * statistics refresh), log-scaled between: how far the site's word statistics mean anything. On a
 * site of four chunks a word in two of them has half the idf of a word in one — noise, not evidence.
 */
export function siteSize(chunks: number): number {
  if (chunks <= 0 || chunks >= LARGE_SITE_CHUNKS) return 1;
  return Math.min(1, Math.max(0, Math.log(chunks / SMALL_SITE_CHUNKS) / Math.log(LARGE_SITE_CHUNKS / SMALL_SITE_CHUNKS)));
}

/**
 * Lexemes (English stems) of conversation rather than topic, beside Postgres's stop words: "how much
 * does it cost" is about the cost whether or not a site ever writes "much".
 */
const CONVERSATIONAL = new Set(
  'much mani pleas thank thanks hi hello hey hmm ok okay yes yeah want need like know tell would could might realli actual just also anyon someon someth anyth thing stuff way lot guy folk cool great nice awesom perfect alright sure sorri oop wow cheer thx'.split(
    ' ',
  ),
);

/** RRF constant (Cormack et al. 2009): flattens the head so one list cannot dominate. */
export const RRF_K = 60;

/** BM25 over body, heading and page title (normalised to [0, 1]), fused by rank with the vector list. */
export function scoreChunks(candidates: RetrievalCandidate[], stats: RankingStats, params: RankingParams): ScoredChunk[] {
  const weights = termWeights(stats, params);
  const mass = weights.reduce((a, w) => a + w, 0);
  const best = mass * (params.k1 + 1 + params.headWeight + params.titleWeight);
  const avg = stats.avgLength > 0 ? stats.avgLength : 1;
  const scored = candidates.map((c): ScoredChunk => {
    const norm = 1 - params.b + (params.b * (c.length || avg)) / avg;
    let lexical = 0;
    weights.forEach((w, i) => {
      const tf = c.termTf[i] ?? 0;
      lexical +=
        w *
        ((tf * (params.k1 + 1)) / (tf + params.k1 * norm) +
          params.headWeight * (c.termHead[i] ?? 0) +
          params.titleWeight * (c.termTitle[i] ?? 0));
    });
    return { ...c, lexical: best > 0 ? lexical / best : 0, score: 0 };
  });
  const pairs = closePairs(stats, weights);
  // Lexical rank among the candidates, fused with the vector list's rank.
  [...scored]
    .sort((a, b) => b.lexical - a.lexical || sameScoreOrder(a, b))
    .forEach((c, i) => {
      c.score =
        (c.lexical > 0 ? 1 / (RRF_K + i + 1) : 0) +
        (c.vectorRank !== null ? params.vectorWeight / (RRF_K + c.vectorRank) : 0) +
        (c.lsaRank !== null ? params.lsaWeight / (RRF_K + c.lsaRank) : 0) +
        (pairs.length > 0 && c.lexical > 0 ? (params.proximityWeight / RRF_K) * proximity(c, pairs, stats.queryTerms) : 0);
    });
  return scored;
}

/** Words at most this many positions apart stand close (two words between: "plan of a query"). */
export const NEAR = 3;

function near(a: readonly number[] | undefined, b: readonly number[] | undefined): boolean {
  if (!a || !b) return false;
  for (const x of a) for (const y of b) if (Math.abs(x - y) <= NEAR) return true;
  return false;
}

/** Pairs of telling query terms (by index) that stand close in the question. */
export function closePairs(stats: RankingStats, weights: readonly number[]): [number, number][] {
  const pos = stats.queryPositions ?? [];
  const out: [number, number][] = [];
  for (let i = 0; i < pos.length; i++)
    for (let j = i + 1; j < pos.length; j++) if ((weights[i] ?? 0) > 0 && (weights[j] ?? 0) > 0 && near(pos[i], pos[j])) out.push([i, j]);
  return out;
}

/**
 * Share of the question's close pairs that stand as close in the chunk, in [0, 1], and in one of its
 * sentences: the index's positions run on across a full stop, a colon and a table's cells, so "the
 * dining *room*: full Cornish, *smoked* haddock" stood as close as "smoke in my room" asks, and a
 * price list's "*Microchip* | £25" row beside "*Cat* spay" as "microchip my cat". A pair whose
 * words the chunk's own analysis does not find (a word only in its heading, a stem the two analysers
 * make apart) counts by the positions alone.
 */
export function proximity(
  c: Pick<RetrievalCandidate, 'termPositions'> & Partial<Pick<RetrievalCandidate, 'content'>>,
  pairs: readonly [number, number][],
  terms?: readonly string[],
): number {
  if (pairs.length === 0) return 0;
  const pos = c.termPositions ?? [];
  const close = pairs.filter(([i, j]) => near(pos[i], pos[j]));
  if (close.length === 0 || !terms || c.content === undefined) return close.length / pairs.length;
  const sentences = sentencesFor({ termPositions: pos, content: c.content });
  const found = (t: string | undefined) => t !== undefined && sentences.some((s) => holdsStem(s, t));
  const together = close.filter(([i, j]) => {
    const a = terms[i];
    const b = terms[j];
    return !found(a) || !found(b) || sentences.some((s) => holdsStem(s, a as string) && holdsStem(s, b as string));
  });
  return together.length / pairs.length;
}

/** A sentence of a chunk, lower-cased, and its stems once one was looked for in it. */
interface ChunkSentence {
  text: string;
  lower: string;
  ascii: boolean;
  stems?: Set<string>;
}

/**
 * A chunk's sentences, kept as long as the candidate is: a candidate is scored again for every weight
 * setting the bench tries. Keyed by its positions' array, which the scored copies of one candidate
 * share (scoreChunks spreads it).
 */
const sentencesCache = new WeakMap<object, ChunkSentence[]>();
function sentencesFor(c: Pick<RetrievalCandidate, 'termPositions'> & { content: string }): ChunkSentence[] {
  let sentences = sentencesCache.get(c.termPositions);
  if (!sentences) {
    sentences = sentencesOf(c.content).map((text) => ({ text, lower: text.toLowerCase(), ascii: !needsFolding(text) }));
    sentencesCache.set(c.termPositions, sentences);
  }
  return sentences;
}

/**
 * Whether a word of the sentence stems to `stem`. The sentence is analysed only when it holds the
 * stem's opening letters (stemOpening; most sentences hold none of a question's words: analysing every
 * sentence of every candidate was ~1.3 ms a question), or letters the analyser folds.
 */
function holdsStem(s: ChunkSentence, stem: string): boolean {
  if (s.ascii && stem.length >= 2 && !s.lower.includes(stemOpening(stem))) return false;
  s.stems ??= new Set(analyze(s.text).map((t) => t.stem));
  return s.stems.has(stem);
}

/** Where a sentence ends within a line: a full stop, a colon or a semicolon before a space. */
const SENTENCE_BREAK = /[.!?:;](?=\s)/;

/**
 * A chunk's sentences for proximity: each line's sentences, and a table's row (cells joined by " | ",
 * as the crawler writes them) with the table's first row, which names its columns — "Ticket | Price"
 * above "Adult | £9.50" is an adult ticket's price.
 */
function sentencesOf(content: string): string[] {
  const out: string[] = [];
  let header: string | undefined;
  for (const line of content.split('\n')) {
    if (line.trim() === '') continue;
    if (TABLE_ROW.test(line)) {
      out.push(header === undefined ? line : `${header} ${line}`);
      header ??= line;
      continue;
    }
    header = undefined;
    out.push(...line.split(SENTENCE_BREAK));
  }
  return out;
}

/** Best first; equal scores by URL and content, so the same question keeps its order. */
export function byScore(a: ScoredChunk, b: ScoredChunk): number {
  return b.score - a.score || sameScoreOrder(a, b);
}

/**
 * Chunks of equal scores (a third of the bench's questions have some): by URL, then by their text's
 * hash — not by id, which a re-crawl draws anew: two chunks of one page that tie swapped places between
 * crawls of the same pages, and so did the passage an answer quoted.
 */
function sameScoreOrder(
  a: Pick<RetrievalCandidate, 'url' | 'contentHash' | 'id'>,
  b: Pick<RetrievalCandidate, 'url' | 'contentHash' | 'id'>,
): number {
  return a.url.localeCompare(b.url) || a.contentHash.localeCompare(b.contentHash) || a.id.localeCompare(b.id);
}

/** Chunks grouped by page, pages ordered by best chunk plus a share of the second. */
export function rankPages<C extends ScoredChunk>(chunks: C[], params: RankingParams): RankedPage<C>[] {
  const byPage = new Map<string, C[]>();
  for (const c of chunks) {
    const key = c.pageId ?? c.url;
    const list = byPage.get(key);
    if (list) list.push(c);
    else byPage.set(key, [c]);
  }
  const pages: RankedPage<C>[] = [];
  for (const [key, list] of byPage) {
    list.sort(byScore);
    const first = list[0] as C;
    pages.push({ key, chunks: list, score: first.score + params.secondChunkWeight * (list[1]?.score ?? 0) });
  }
  return pages.sort((a, b) => b.score - a.score || byScore(a.chunks[0] as C, b.chunks[0] as C));
}

/** Whether a chunk holds the query's term `i`, in its body, heading or page title. */
export function holds(c: Pick<RetrievalCandidate, 'termTf' | 'termHead' | 'termTitle'>, i: number): boolean {
  return (c.termTf[i] ?? 0) > 0 || (c.termHead[i] ?? 0) > 0 || (c.termTitle[i] ?? 0) > 0;
}

/** The idf mass of the visitor's own words (termWeights; a follow-up's context words left out) a chunk holds. */
function coverage(
  c: Pick<RetrievalCandidate, 'termTf' | 'termHead' | 'termTitle'>,
  weights: readonly number[],
  stats: RankingStats,
): number {
  return weights.reduce((sum, w, i) => sum + (stats.termFocus[i] !== false && holds(c, i) ? w : 0), 0);
}

/**
 * The pages with the page of the best chunk (`best`) first again when the page ranked first only by
 * its further chunks: none of its chunks holds 1/coverageMargin of the question's words `best` holds
 * (coverage). A page's second chunk says the page is about the question's topic; it does not outweigh
 * a passage that holds clearly more of what was asked — the one answer of a FAQ or an overview's
 * paragraph among a reference page's chunks that each name the topic and nothing else of the question.
 */
export function coverageFirst<C extends ScoredChunk>(
  pages: RankedPage<C>[],
  best: C | undefined,
  stats: RankingStats,
  params: RankingParams,
): RankedPage<C>[] {
  const [top] = pages;
  if (!top || !best || params.coverageMargin <= 0 || top.chunks.includes(best)) return pages;
  const weights = termWeights(stats, params);
  const held = coverage(best, weights, stats);
  if (top.chunks.some((c) => params.coverageMargin * coverage(c, weights, stats) >= held)) return pages;
  const own = pages.find((p) => p.chunks.includes(best));
  return own ? [own, ...pages.filter((p) => p !== own)] : pages;
}

/**
 * The pages with the best one after the page it defers to: among the next pages that are sources too
 * and score at least `linkedPageRatio` of it, the first it links to that does not link back to it and
 * holds the question's words at least as well (its best chunk's lexical score). An overview or a FAQ
 * names the topic in a sentence and links to the page about it ("Mapping URLs" to DirectoryIndex's
 * module); two pages about one thing link both ways, as a site's menu links every page to every other.
 */
export function deferToLinked<C extends ScoredChunk>(
  pages: RankedPage<C>[],
  links: RankingStats['pageLinks'],
  params: Pick<RankingParams, 'linkedPageRatio' | 'maxPages'>,
): RankedPage<C>[] {
  const [top, ...rest] = pages;
  if (!top || !links || params.linkedPageRatio <= 0) return pages;
  const out = links[top.key] ?? [];
  const deferTo = rest
    .slice(0, params.maxPages - 1)
    .find(
      (p) =>
        p.score >= params.linkedPageRatio * top.score &&
        out.includes(p.key) &&
        !(links[p.key] ?? []).includes(top.key) &&
        (p.chunks[0] as C).lexical >= (top.chunks[0] as C).lexical,
    );
  return deferTo ? [deferTo, top, ...rest.filter((p) => p !== deferTo)] : pages;
}

/**
 * A site's release notes or changelog, by its address or title: "releases/1.9.html", "What's New in
 * Python 2.5", "Changelog", "changes_history.html", "History of Previous Changes". A history alone
 * ("Our history") is a business's story, not a changelog.
 */
const CHANGELOG_URL =
  /\/(?:(?:releases?|release-?notes|changelog|changes|whatsnew|(?:changes?|release|version)[-_]?history)(?:\/|\.\w+$|$)|release-\d)/i;
const CHANGELOG_TITLE =
  /\b(?:release notes|changelog|change log|what[’']?s new|release \d|(?:change|release|version) history|history of (?:\w+ )?changes)/i;
function releaseNotes(path: string, title: string): boolean {
  return CHANGELOG_URL.test(path) || CHANGELOG_TITLE.test(title);
}
/**
 * A documentation generator's listing of a module's source: Sphinx's viewcode
 * ("_modules/django/core/paginator.html"), Doxygen's ("lirc__client_8c_source.html" for lirc_client.c).
 */
const SOURCE_LISTING_URL = /\/_modules\/|_8[a-z0-9]+_source\.html$/i;
/** Doxygen's list of a type's members ("structbutton__state-members.html": "This is the complete list of members for button_state"). */
const MEMBER_LIST_URL = /\/(?:class|struct|union|interface)\w+-members\.html$/i;

/**
 * Pages that speak of everything in passing — a release's notes, a module's source listing, a type's
 * list of members — and what a question that asks for them says (a version or a change; the source or
 * the implementation; the members).
 */
const ASIDES: { is: (path: string, title: string) => boolean; asked: RegExp }[] = [
  {
    is: releaseNotes,
    asked: /^(?:v?\d+\.\d.*|new|chang|releas|upgrad|deprec|ad|remov|introduc|sinc)$/,
  },
  { is: (path) => SOURCE_LISTING_URL.test(path), asked: /^(?:sourc|implement)$/ },
  { is: (path) => MEMBER_LIST_URL.test(path), asked: /^member$/ },
];

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

export function isChangelog(page: Pick<RetrievalCandidate, 'url' | 'title'>): boolean {
  return releaseNotes(pathOf(page.url), page.title);
}

/**
 * The pages with release notes and source listings after every page that is not one, unless the
 * question asks for them (a version or a change; the source), or one ranks first and no other page
 * scores at least relatedPageRatio of it. Release notes name every feature of their release in a
 * sentence (a LaTeX bug fixed, "a bare except: still catches all exceptions"), a source listing every
 * name of its module in a line of code or a docstring; both link to the page that treats it.
 */
export function asidesLast<C extends ScoredChunk>(
  pages: RankedPage<C>[],
  stats: Pick<RankingStats, 'queryTerms'>,
  params: RankingParams,
): RankedPage<C>[] {
  const [top] = pages;
  if (!top) return pages;
  const kinds = ASIDES.filter((k) => !stats.queryTerms.some((t) => k.asked.test(t)));
  const aside = pages.filter((p) => {
    const c = p.chunks[0] as C;
    const path = pathOf(c.url);
    return kinds.some((k) => k.is(path, c.title));
  });
  if (aside.length === 0) return pages;
  const others = pages.filter((p) => !aside.includes(p));
  const first = others[0];
  if (aside.includes(top) && (!first || first.score < params.relatedPageRatio * top.score)) return pages;
  return [...others, ...aside];
}

/** A page's name: its title without the site's name after a separator ("ALTER TABLE", "django-admin and manage.py"). */
export function pageName(title: string): string {
  return (title.split(/\s+[|—–]\s+|\s+-\s+/)[0] ?? '').trim();
}

/** The words of a page's name, lower-cased ("alter", "table"). */
function titleWords(title: string): string[] {
  return pageName(title)
    .toLowerCase()
    .split(/[^\p{L}\p{N}_.-]+/u)
    .filter(Boolean);
}

/**
 * A page whose name is another candidate page's name and more ("ALTER FOREIGN TABLE" of "ALTER
 * TABLE", "CREATE VIRTUAL TABLE" of "CREATE TABLE") treats a variant of what the other treats: when
 * the top page is such a variant, the question names none of its extra words, and the general page
 * scores close to it (relatedPageRatio), the general page comes first.
 */
export function generalBeforeVariant<C extends ScoredChunk>(
  pages: RankedPage<C>[],
  stats: Pick<RankingStats, 'queryTerms'>,
  params: Pick<RankingParams, 'relatedPageRatio' | 'maxPages'>,
): RankedPage<C>[] {
  const [top, ...rest] = pages;
  if (!top) return pages;
  const name = titleWords((top.chunks[0] as C).title);
  const general = rest.slice(0, params.maxPages - 1).find((p) => {
    if (p.score < params.relatedPageRatio * top.score) return false;
    const words = titleWords((p.chunks[0] as C).title);
    // A name of one word ("Process", "Git") is no command's: every page may hold it.
    if (words.length < 2 || words.length >= name.length || !words.every((w) => name.includes(w))) return false;
    const extra = name.filter((w) => !words.includes(w));
    return !extra.some((w) => analyze(w).some((t) => stats.queryTerms.includes(t.stem)));
  });
  return general ? [general, top, ...rest.filter((p) => p !== general)] : pages;
}

/** The pages an answer draws on: the best, and the next ones that score close to it. */
export function sourcePages<C extends ScoredChunk>(pages: RankedPage<C>[], params: RankingParams): RankedPage<C>[] {
  const [top, ...rest] = pages;
  if (!top) return [];
  const out = [top];
  for (const p of rest) {
    if (out.length >= params.maxPages || p.score < params.relatedPageRatio * top.score) break;
    out.push(p);
  }
  return out;
}

/**
 * Share of the question's idf mass (the visitor's own words) that no page of the client holds: a
 * question about something the site never names ("GraphQL", "refund", "Kubernetes") is mostly
 * such words, whatever the site. A word one typing slip away from a word of the site ("strng") is
 * not absent, and neither is a compound whose parts the question also has ("form-control",
 * "settings/dev.py": Postgres's parser keeps both).
 */
export function absentShare(
  stats: RankingStats,
  params: RankingParams,
  options: { misspelt?: ReadonlySet<string>; message?: string } = {},
): number {
  const weights = termWeights(stats, params);
  const terms = stats.queryTerms;
  const names = options.message ? namesIn(options.message) : [];
  // Words of the visitor's own code (`…`, {{ … }}, {% … %}): their variables and filters, not the topic.
  const code =
    (options.message ?? '')
      .match(/`[^`]+`|\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}/g)
      ?.flatMap((span) => span.toLowerCase().match(/\p{L}+/gu) ?? []) ?? [];
  // ".gz", ".mjs": a file extension the visitor wrote (the parser keeps only its letters).
  const extensions = new Set(
    (options.message ?? '')
      .toLowerCase()
      .match(/(?<![\p{L}\p{N}])\.[a-z0-9]{1,5}\b/gu)
      ?.map((e) => e.slice(1)),
  );
  // "How much does it cost", "¿cuánto cuesta…?": the price rule (price-question.ts) asks the best page
  // for an amount; the words that ask for one are not what the site must name.
  const pricing = options.message !== undefined && mayAskForPrice(options.message);
  // "What time does the office close?" of a page that says "open 8am to 6pm": the words that ask for a
  // time (time-question.ts) are not what the site must name either.
  const timing = options.message !== undefined && asksForTime(options.message);
  // "*turn on* two-factor authentication": the verb of a phrasal verb says nothing of the topic; what
  // it asks is searched as context words ("enable", clippings.ts).
  const folded = foldForIntent(options.message ?? '');
  const phrasal = phrasalVerbStems(folded);
  const idioms = idiomStems(folded);
  const exponent = siteSize(stats.corpusDocs);
  const onSite = new Set(terms.filter((_, i) => (stats.termDf[i] ?? 0) > 0));
  // A question of nothing but a verb of trade ("Do you ship to the US?", "us" a stop word) asks about
  // the verb: it is the topic then, and a site that never says it does not answer.
  const share = absentShareOf(false);
  return share.mass > 0 || !terms.some((t) => INTENT_STEMS.has(t)) ? share.share : absentShareOf(true).share;

  function absentShareOf(verbsAreTopic: boolean): { share: number; mass: number } {
    let mass = 0;
    let absent = 0;
    terms.forEach((t, i) => {
      // Numbers and codes (an order number, "REF-3-a1b2c3", a version) are the visitor's particulars,
      // not the topic: a site that never printed them may still answer the question around them.
      // So are the visitor's own file names, paths, dotted identifiers and code ("settings/dev.py", ".gz",
      // "order.total", "{{ total|euro }}"): no site prints them, whatever it is about.
      if (
        stats.termFocus[i] === false ||
        (!verbsAreTopic && INTENT_STEMS.has(t)) ||
        phrasal.has(t) ||
        idioms.has(t) ||
        ((stats.termDf[i] ?? 0) === 0 &&
          (WHEN_STEMS.has(t) || NUMBER_STEMS.has(t) || (pricing && PRICE_STEMS.has(t)) || (timing && TIME_STEMS.has(t)))) ||
        isCompoundOf(t, terms) ||
        // "photos" of a site that says "photographs", "biggest" of one that says "big" (clippings.ts: the other form is searched too).
        ((stats.termDf[i] ?? 0) === 0 && otherFormStems(t).some((s) => onSite.has(s))) ||
        /\d/.test(t) ||
        /[./]/.test(t) ||
        extensions.has(t) ||
        code.some((w) => w.startsWith(t))
      )
        return;
      // A word in every chunk of the site is what the site is about ("flowers" on a florist's), and says
      // nothing of whether it answers this question: "do you do funeral flowers?" is asked of "funeral".
      if (stats.corpusDocs > 1 && (stats.termDf[i] ?? 0) >= stats.corpusDocs) return;
      let w = weights[i] ?? 0;
      // An absent word weighs as a word of one chunk would: absent is "rarer than anything the site
      // says", not infinitely rare. On a site of thousands of chunks that changes little; on one of
      // five, an absent word weighed twice the site's rarest one and one of two words decided alone.
      if ((stats.termDf[i] ?? 0) === 0 && w > 0) w = idfOf(1, stats.corpusDocs);
      // On a small site every word of the question counts alike (idf^0); from LARGE_SITE_CHUNKS up, by its idf.
      if (w > 0) w **= exponent;
      if ((stats.termDf[i] ?? 0) === 0 && !options.misspelt?.has(t)) {
        // A name the visitor typed (a product, a tool, an API) that the site never mentions says most
        // plainly that the site is not about it.
        if (names.some((n) => n.startsWith(t))) w *= params.namedWeight;
        absent += w;
      }
      mass += w;
    });
    return { share: mass > 0 ? absent / mass : 0, mass };
  }
}

/**
 * Verbs of trade (stems): "do you *sell* helmets?" asks about helmets; "can I *bring* my dog?" about dogs. A shop's pages list what it
 * has without the verb ("Parts and accessories: tyres, tubes, lights, locks and helmets"), so the
 * verb missing from them is no sign the site is not about the question; the thing missing is. Nor is
 * the verb present a sign it is: a tea shop that says "We sell … teas" does not answer "Do you sell
 * *coffee*?", nor "We ship to the EU" "Do you ship to *Australia*?" — the verb counts neither way.
 */
const INTENT_STEMS = new Set([
  'sell',
  'buy',
  'purchas',
  'offer',
  'provid',
  'stock',
  'carri',
  'suppli',
  'avail',
  'deliv',
  'ship',
  'take',
  'accept',
  'bring',
]);

/** The words (stems) a question for a price asks with, in the classifier's languages. */
export const PRICE_STEMS: ReadonlySet<string> = new Set(
  'cost price fee charg much extra cuanto cuesta cuestan precio combien cout coutent prix kostet prei quanto custa custam preco'.split(' '),
);

/** The words (stems) a question for a time asks with: what time something opens, closes, starts or ends. */
export const TIME_STEMS: ReadonlySet<string> = new Set('time hour open close shut start begin end finish'.split(' '));

/**
 * When the visitor asks about (stems): a day, a time of day or how often ("every night", "daily"), a
 * month, a holiday. "Are you open on Saturday?" of a site
 * that says "closed at weekends", "a table for tonight": like a number or an order code, the visitor's
 * particulars, which a site that never names them may still answer.
 */
const WHEN_STEMS = new Set(
  'monday tuesday wednesday thursday friday saturday sunday weekend weekday today tonight tomorrow night nightli morn midnight daili weekli hourli januari februari march april june juli august septemb octob novemb decemb christma easter holiday'.split(
    ' ',
  ),
);

/**
 * Numbers in words (stems): "send it *five* times", "*twice* a week" — a number in digits is the visitor's
 * particular already; in words it is no word a site must print either.
 */
const NUMBER_STEMS = new Set(
  'two three four five six seven eight nine ten eleven twelv fifteen twenti thirti forti fifti hundr thousand twice thrice dozen'.split(
    ' ',
  ),
);

/** What stands before a visitor's own name: an introduction, a greeting, a signature. */
const OWN_NAME_BEFORE =
  /(?:\b(?:i'?m|i am|my name is|name'?s|this is|hi|hello|hey|dear|thanks|thank you|cheers|regards|soy|me llamo|hola|gracias|je suis|je m'appelle|bonjour|merci|sou|meu nome [ée]|obrigad[oa]|ol[áa])|[’'`]m)[\s,]+$/iu;

/**
 * Words written with a capital inside (GraphQL, PyCharm, GeneratedField), acronyms (AWS, RDS)
 * unless the whole message is in capitals, and capitalised words inside a sentence (Salesforce),
 * lower-cased.
 */
export function namesIn(message: string): string[] {
  const shouted = !/\p{Ll}/u.test(message);
  const inner = (message.match(/\p{L}+/gu) ?? []).filter(
    (w) => /^\p{L}+\p{Ll}\p{Lu}/u.test(w) || /^\p{Lu}{2,}\p{Ll}/u.test(w) || (!shouted && /^\p{Lu}{2,}$/u.test(w)),
  );
  // A capitalised word inside a sentence is a proper name: a product, a place, a brand ("Do you
  // integrate with Salesforce?", "Is there a Linux app?"); the first word of a sentence is not one,
  // nor is a German noun ("Haben Sie Parkplätze?": German capitalises every one), nor the visitor's own
  // name ("Hi, I'm Anna", "Thanks, Tom").
  const proper =
    guessLanguage(message) === 'de'
      ? []
      : [...message.matchAll(/(?<=[\p{L}\p{N},;:)]\s+)\p{Lu}\p{Ll}+\b(?!-)/gu)]
          .filter((m) => !OWN_NAME_BEFORE.test(message.slice(0, m.index)))
          .map((m) => m[0]);
  return [...inner, ...proper].map((w) => w.toLowerCase());
}

function isCompoundOf(term: string, terms: readonly string[]): boolean {
  if (!/[-/.]/.test(term)) return false;
  return term.split(/[-/.]+/).some((part) => part !== term && terms.includes(part));
}
