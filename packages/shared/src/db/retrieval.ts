import { analyze, isStopWord, missesOneLetter } from '../providers/text/text-analysis.ts';
import { type Queryable, toVectorBinary } from './pool.ts';

/**
 * Candidate search for hybrid retrieval (docs/retrieval.md): a vector top-k and a full-text top-k
 * over one client's documents, returned together with the signals the chat service ranks and
 * filters on. The search is one database function (packages/shared/sql/search-candidates.sql) whose `hnsw.*` and
 * enable_sort settings are transaction-local: the embedded PGlite shares session state between connections, so a
 * plain SET would leak.
 */

export interface RetrievalCandidate {
  id: string;
  pageId: string | null;
  url: string;
  title: string;
  heading: string | null;
  content: string;
  contentHash: string;
  /** 1-based rank in the vector list, null when not in it. */
  vectorRank: number | null;
  /** 1-based rank in the full-text list, null when not in it. */
  ftsRank: number | null;
  /** 1-based rank in the latent semantic list (db/lsa.ts), null when not in it. */
  lsaRank: number | null;
  /** Cosine similarity to the query (null when the chunk has no embedding of the current model). */
  similarity: number | null;
  /** How many distinct query lexemes the chunk contains (title and heading included). */
  matchedTerms: number;
  /** Chunks of the chunk's page: the more specific page wins between near-duplicates. */
  pageChunks: number;
  /** Per query term (CandidateResult.queryTerms' order): occurrences in the chunk's body. */
  termTf: number[];
  /**
   * Per query term: 1 when the chunk's title or heading holds it, or the heading of a short section
   * folded into the chunk (a line of its text with the section right under it).
   */
  termHead: number[];
  /** Per query term: 1 when the page title holds it. */
  termTitle: number[];
  /** Distinct lexemes of the chunk (title and heading included): its length for BM25. */
  length: number;
  /** Per query term: its word positions in the chunk (empty when absent). */
  termPositions: number[][];
  /**
   * What a chunk ending in a colon introduces ("…piping the source stream through a zlib Transform
   * stream into a destination stream:"): its page's next chunk, past the lines both hold.
   */
  continuation?: string;
  /**
   * Of a chunk whose heading is a question (a FAQ's): true when the page's chunk before it has the same
   * heading, so that its text opens with the end of the answer before, not with the answer's start.
   */
  continuesSection?: boolean;
}

export interface CandidateSearch {
  clientId: string;
  /** Only documents embedded by this model are comparable with the query vector. */
  embeddingModel: string;
  /** Undefined when the query could not be embedded: full-text only. */
  embedding: readonly number[] | undefined;
  query: string;
  /** Rows per list. */
  k: number;
  /**
   * Exact scan or HNSW: a tenant of at most this many documents is scanned exactly; a larger one
   * through its own HNSW index (db/vector-index.ts), or exactly while that is not built.
   */
  exactScanMaxDocs: number;
  efSearch: number;
  /** false: no full-text list (RETRIEVAL_MODE=vector, for measuring the vector list alone). */
  fullText?: boolean;
  /** The visitor's own message when `query` is a rewrite of it (a follow-up with context in front). */
  focus?: string;
  /** Rows of the full-text list (it is re-ranked in TypeScript); default 3·k. */
  kText?: number;
  /** The question's latent vector (lsaQueryVector); undefined: no latent list unless `latent`. */
  lsa?: readonly number[] | undefined;
  /** Without `lsa`: fold the question's latent vector in the same call (the latent list when the client has a model). */
  latent?: boolean;
}

export interface CandidateResult {
  candidates: RetrievalCandidate[];
  /** Distinct lexemes of the query after stemming and stop words (English configuration). */
  queryTerms: string[];
  /** How many of queryTerms no document of the tenant contains. */
  absentTerms: number;
  /** Per query term: chunks of the tenant holding it (empty before the first statistics refresh). */
  termDf: number[];
  /** Per query term: whether the visitor's own message holds it (false: context of a follow-up). */
  termFocus: boolean[];
  /**
   * Per query term: whether only stop words of the query stem to it ("what" from "whats"). A word
   * whose stem is a stop word is none ("evening" stems to "even", "outings" to "out").
   */
  termStop?: boolean[];
  /** The tenant's chunks and mean distinct lexemes per chunk at the last statistics refresh (0 before). */
  corpusDocs: number;
  avgLength: number;
  /** Per query term: its word positions in the query (a follow-up's context first). */
  queryPositions: number[][];
  scan: 'exact' | 'hnsw' | 'hnsw+exact' | 'none';
  /** Query terms no chunk holds that are a word of the client's with one letter left out (slips). */
  misspelt: string[];
  /** Per candidate page (id): the other candidate pages it links to (chat/ranking.ts, deferToLinked). */
  pageLinks?: Readonly<Record<string, readonly string[]>>;
}

interface CandidateRow {
  id: string | null;
  page_id: string | null;
  url: string;
  title: string;
  heading: string | null;
  content: string;
  content_hash: string;
  vector_rank: string | null;
  fts_rank: string | null;
  lsa_rank: string | null;
  similarity: number | null;
  matched_terms: number;
  page_chunks: number;
  scan: CandidateResult['scan'] | null;
  query_terms: string[] | null;
  absent_terms: number | null;
  term_df: number[] | null;
  term_focus: boolean[] | null;
  corpus_docs: number | null;
  avg_length: number | null;
  term_tf: number[] | null;
  term_head: number[] | null;
  term_title: number[] | null;
  doc_length: number | null;
  term_pos: string[] | null;
  query_pos: string[] | null;
  near_terms: string[] | null;
  page_links: string[] | null;
}

/**
 * A named statement (pool.ts), its columns listed: parsed and planned once per connection, which
 * saved ~0.1 ms of backend CPU a search (docs/performance.md, change 18).
 */
const SEARCH_CANDIDATES = {
  name: 'kbchat_search_candidates',
  text: `SELECT id, page_id, url, title, heading, content, content_hash, vector_rank, fts_rank, lsa_rank, similarity,
                matched_terms, page_chunks, scan, query_terms, absent_terms, term_df, term_focus, corpus_docs,
                avg_length, term_tf, term_head, term_title, doc_length, term_pos, query_pos, near_terms, page_links
           FROM kbchat_search_candidates($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
} as const;

/**
 * One call of kbchat_search_candidates (packages/shared/sql/search-candidates.sql, where the statements
 * and their reasons are): the tenant-size probe, the off-topic probes, the vector list and the full-text
 * list with the candidates' signals and their pages' links, in one round trip. Its settings are
 * transaction-local, so they end with this statement's transaction (or the caller's).
 */
export async function searchCandidates(db: Queryable, s: CandidateSearch): Promise<CandidateResult> {
  const { rows } = await db.query<CandidateRow>({
    ...SEARCH_CANDIDATES,
    values: [
      s.clientId,
      s.embeddingModel,
      s.embedding ? toVectorBinary(s.embedding) : null,
      s.k,
      s.query,
      s.fullText !== false,
      s.exactScanMaxDocs,
      s.efSearch,
      s.focus ?? s.query,
      s.kText ?? 3 * s.k,
      s.lsa ? toVectorBinary(s.lsa) : null,
      s.latent === true,
    ],
  });
  // The question's own figures are on one row of no chunk (search-candidates.sql), the first.
  const first = rows.find((r) => r.id === null);
  const queryTerms = first?.query_terms ?? [];
  const candidates = rows.filter((r) => r.id !== null).map((r) => withInnerHeadings(toCandidate(r), queryTerms));
  // Two lookups on the candidates, side by side (a pool runs them on two connections; a client queues them).
  await Promise.all([withContinuations(db, s.clientId, candidates), withSectionStarts(db, s.clientId, candidates)]);
  return {
    candidates,
    pageLinks: Object.fromEntries(rows.flatMap((r) => (r.page_id !== null && r.page_links !== null ? [[r.page_id, r.page_links]] : []))),
    queryTerms,
    absentTerms: first?.absent_terms ?? 0,
    termDf: first?.term_df ?? [],
    termFocus: first?.term_focus ?? queryTerms.map(() => true),
    termStop: stopTerms(s.query, queryTerms),
    corpusDocs: first?.corpus_docs ?? 0,
    avgLength: Number(first?.avg_length ?? 0),
    queryPositions: positions(first?.query_pos),
    scan: first?.scan ?? 'none',
    misspelt: slips((first?.near_terms ?? []).map((pair) => pair.split(' ') as [string, string])),
  };
}

/** How much of the next chunk a continuation keeps: a short example is what a colon introduces. */
const CONTINUATION_CHARS = 1500;
/** How many of the next chunk's first characters tell where in the candidate it starts repeating it. */
const OVERLAP_PROBE_CHARS = 40;

/**
 * The next chunk of each candidate that ends with a colon: what it introduces is there when the
 * chunker cut right after it (a code example, a list). Chunks overlap by whole lines; the ones the
 * candidate already ends with are left out.
 */
async function withContinuations(db: Queryable, clientId: string, candidates: RetrievalCandidate[]): Promise<void> {
  const introducing = candidates.filter((c) => c.pageId !== null && /:\s*$/.test(c.content));
  if (introducing.length === 0) return;
  const { rows } = await db.query<{ id: string; next: string }>(
    `SELECT c.id::text AS id, left(n.content, ${CONTINUATION_CHARS}) AS next
       FROM documents c
       JOIN documents n ON n.page_id = c.page_id AND n.chunk_index = c.chunk_index + 1
      WHERE c.client_id = $1 AND c.id = ANY($2::uuid[])`,
    [clientId, introducing.map((c) => c.id)],
  );
  const nextOf = new Map(rows.map((r) => [r.id, r.next]));
  for (const c of introducing) {
    const text = nextOf.get(c.id);
    if (text === undefined) continue;
    // The next chunk may open with the candidate's last lines or sentences again: what it repeats is
    // the candidate's end from where the next chunk's opening words last occur in it.
    const next = text.trimStart();
    const content = c.content.trimEnd();
    const from = content.lastIndexOf(next.slice(0, OVERLAP_PROBE_CHARS));
    const repeated = from === -1 ? '' : content.slice(from);
    c.continuation = repeated && next.startsWith(repeated) ? next.slice(repeated.length) : text;
  }
}

/**
 * Marks each candidate under a question heading with whether it continues its section
 * (continuesSection): the extractive answer quotes a FAQ's answer from its start only when the
 * chunk holds that start. One lookup, and none when no candidate's heading is a question.
 */
async function withSectionStarts(db: Queryable, clientId: string, candidates: RetrievalCandidate[]): Promise<void> {
  const asking = candidates.filter((c) => c.pageId !== null && /\?\s*$/.test(c.heading ?? ''));
  if (asking.length === 0) return;
  const { rows } = await db.query<{ id: string }>(
    `SELECT c.id::text AS id
       FROM documents c
       JOIN documents b ON b.page_id = c.page_id AND b.chunk_index = c.chunk_index - 1 AND b.heading IS NOT DISTINCT FROM c.heading
      WHERE c.client_id = $1 AND c.id = ANY($2::uuid[])`,
    [clientId, asking.map((c) => c.id)],
  );
  const continuing = new Set(rows.map((r) => r.id));
  for (const c of asking) c.continuesSection = continuing.has(c.id);
}

/**
 * Whether some chunk of the client holds two of `lexemes` (a question's words, as the search returned
 * them): the check behind a decline for words standing apart (chat/retrieval.ts, wordsApart), whose
 * candidates are the head of each list, not every chunk. Run only when the candidates hold no two.
 */
export async function holdTogether(db: Queryable, clientId: string, lexemes: readonly string[]): Promise<boolean> {
  if (lexemes.length < 2) return false;
  const { rows } = await db.query<{ together: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM documents d
        WHERE d.client_id = $1
          AND d.fts @@ (SELECT string_agg(quote_literal(a) || ' & ' || quote_literal(b), ' | ')
                          FROM unnest($2::text[]) a, unnest($2::text[]) b WHERE a < b)::tsquery) AS together`,
    [clientId, lexemes],
  );
  return rows[0]?.together === true;
}

/**
 * Which lexemes come from stop words only: those the query's words stem to (the analyser's stems are
 * Postgres's English lexemes for most words) are stop words when each word that stems to them is one;
 * a lexeme no word of the query stems to is judged by itself.
 */
export function stopTerms(query: string, queryTerms: readonly string[]): boolean[] {
  const words = analyze(query);
  return queryTerms.map((lexeme) => {
    const from = words.filter((w) => w.stem === lexeme);
    return from.length > 0 ? from.every((w) => w.stop) : isStopWord(lexeme);
  });
}

/**
 * The stems of the headings inside a chunk's text: a short section folded into the chunk before it
 * keeps its heading as a line of its own, the section's text right under it ("Payroll" above "Weekly
 * or monthly payroll, payslips…"). Such a heading names what the chunk says as its own heading does.
 */
function innerHeadingStems(content: string): Set<string> {
  const out = new Set<string>();
  const lines = content.split('\n');
  lines.forEach((line, i) => {
    const text = line.trim();
    const next = lines[i + 1]?.trim();
    if (!text || !next || (i > 0 && lines[i - 1]?.trim() !== '')) return;
    if (text.split(/\s+/).length > 8 || /[.!?:;,|]$/.test(text)) return;
    for (const t of analyze(text)) if (!t.stop) out.add(t.stem);
  });
  return out;
}

/** The candidate with the query terms its inner headings hold counted as its heading's (termHead). */
export function withInnerHeadings(c: RetrievalCandidate, queryTerms: readonly string[]): RetrievalCandidate {
  const inner = innerHeadingStems(c.content);
  if (inner.size === 0) return c;
  return { ...c, termHead: queryTerms.map((t, i) => (inner.has(t) ? 1 : (c.termHead[i] ?? 0))) };
}

function toCandidate(r: CandidateRow): RetrievalCandidate {
  return {
    id: r.id as string,
    pageId: r.page_id,
    url: r.url,
    title: r.title,
    heading: r.heading,
    content: r.content,
    contentHash: r.content_hash,
    vectorRank: r.vector_rank === null ? null : Number(r.vector_rank),
    ftsRank: r.fts_rank === null ? null : Number(r.fts_rank),
    lsaRank: r.lsa_rank === null ? null : Number(r.lsa_rank),
    similarity: r.similarity === null ? null : Number(r.similarity),
    matchedTerms: Number(r.matched_terms),
    pageChunks: Number(r.page_chunks),
    termTf: r.term_tf ?? [],
    termHead: r.term_head ?? [],
    termTitle: r.term_title ?? [],
    length: Number(r.doc_length ?? 0),
    termPositions: positions(r.term_pos),
  };
}

/** "3,17" per term → [3, 17]; '' → []. */
function positions(lists: string[] | null | undefined): number[][] {
  return (lists ?? []).map((l) => (l ? l.split(',').map(Number) : []));
}

/**
 * Replaces the client's term statistics (each lexeme's document frequency, the mean chunk length)
 * with what its documents hold now: the full-text list weighs a question's words by them (BM25
 * idf, migration 0007). Called when a crawl's frontier drains; until a client's first refresh its
 * full-text list is ranked by ts_rank. One pass of ts_stat over the client's tsvectors: ~90 ms for
 * the 4,084 chunks of the Node.js docs on the development machine.
 */
export async function refreshTermStats(db: Queryable, clientId: string): Promise<void> {
  await db.query('SELECT kbchat_refresh_term_stats($1)', [clientId]);
}

/**
 * Of kbchat_near_terms' pairs (a question's lexeme no chunk of the client holds, a word of the
 * client's one letter longer), the lexemes that are their word with one inner letter left out
 * ("strng" for "string"): a typing slip, not a word the site lacks. The word must be in a few chunks
 * at least (a rare word one letter longer is more likely another word: "redact" for "react"); words
 * are compared within their first two letters (a slip there is rare).
 */
function slips(pairs: [string, string][]): string[] {
  return [...new Set(pairs.filter(([lex, near]) => missesOneLetter(lex, near)).map(([lex]) => lex))];
}
