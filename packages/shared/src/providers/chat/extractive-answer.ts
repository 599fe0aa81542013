import { asksForContact, namesContactSection, statesContact } from '../../chat/contact-question.ts';
import { asksForDefault, statesDefault } from '../../chat/default-question.ts';
import { asksForDuration, statesDuration } from '../../chat/duration-question.ts';
import { asksForPaymentMethod, statesPaymentMethod } from '../../chat/payment-question.ts';
import { mayAskForPrice, rateUnitAsked, statesPrice, statesRate } from '../../chat/price-question.ts';
import { pageName, siteSize } from '../../chat/ranking.ts';
import { searchedQuery } from '../../chat/searched-query.ts';
import { statedQuestion } from '../../chat/stated-questions.ts';
import { asksForTime, statesTime } from '../../chat/time-question.ts';
import { emailsIn, type Found, listedPhonesIn } from '../../contact-details.ts';
import { TABLE_ROW } from '../../crawl/chunker.ts';
import { termRarity } from '../embeddings/local-embedder.ts';
import { analyze, isStopWord, oneEditApart, type Term } from '../text/text-analysis.ts';
import type { ChatPassage } from './chat-provider.ts';
import { stripCitationMarks } from './citations.ts';

/**
 * The offline answer, read as a visitor reads it: the sentence of the best page that answers the
 * question first, then the sentences after it on the page while they fit in about 80 words — whole
 * sentences in page order, never table cells, navigation or half sentences — cited [1]. A further
 * page the retrieval kept adds its one best sentence, whole, cited [2], [3], when that sentence is about
 * the question too. Only the pages quoted are cited, each page once, numbered in the order they are
 * quoted — the order of `used`, which is the order of the sources — so [k] is the k-th source.
 */

/**
 * Words of the main answer alone; of a table or a section quoted beside a related page's sentence; of
 * the whole answer, the main quote and the related pages' sentences together; the least the main quote
 * keeps beside them (its answering sentence is quoted whole up to MAIN_WORDS all the same).
 */
const MAIN_WORDS = 80;
const MAIN_WORDS_WITH_RELATED = 60;
const ANSWER_WORDS = 88;
const MAIN_WORDS_BESIDE_RELATED = 40;
/**
 * A related page's sentence is quoted whole, never cut ("…and we might expect the user to work
 * through…" read as a fragment): a longer one is not quoted, and the page's next one that fits may be.
 */
const RELATED_WORDS = 40;
/** A related page's best sentence is quoted when it scores at least this share of the main one. */
const RELATED_SHARE = 0.5;
/**
 * …and, on a site of a few pages, when it covers at least this much of the question itself: there a
 * page sharing one word of the question is another topic ("boat builders" beside the boats exhibition,
 * the phone line's "during opening hours" beside "when does it open"). Scaled away with the site's size
 * (siteSize) as the decline limit is: on a documentation site a related page is often the other half of
 * the answer.
 */
const RELATED_SMALL_SITE_COVERAGE = 0.5;
/** Sentences that open by pointing back ("This", "It") bring the sentence before them along. */
const POINTS_BACK = /^(this|these|that|those|it|its|they|such|here|then|also|however|otherwise)\b/i;
/** What a sentence points at on its page, above or below it ("The first line of the script above…", "as shown below"). */
const POINTS_AROUND =
  /\bthe\s+(\S+\s+){0,2}(above|below)\b|\b(shown|described|listed|given|mentioned|explained)\s+(above|below|here|earlier|previously)\b/i;
/**
 * A demonstrative standing for something said before ("One way to handle this would be…"), not before a
 * noun, nor before the colon that shows what it stands for ("an error message like this:").
 */
const REFERS_BACK =
  /\b(this|these|those)(\s+(is|are|was|were|would|will|can|could|should|may|might|must|does|did|has|have|had|happens|means)\b|\s*[,;.]|\s*:(?!$))/i;

function leansBack(text: string): boolean {
  return POINTS_BACK.test(text) || REFERS_BACK.test(text);
}

interface QueryTerm {
  stem: string;
  surface: string;
  weight: number;
  /** A word of the client's pages: spelt as the site spells it, so never a slip of another ("boats" is not "boots"). */
  onSite?: boolean;
}

export interface Sentence {
  text: string;
  words: number;
  /** Whole prose: not a heading, a table cell, a code line or a fragment cut out of a sentence. */
  prose: boolean;
  /** The whole of a line: a short one that is not prose is a heading or a label. */
  line: boolean;
  /** The first line of a block: a blank line (or nothing) stands before it. A code example's lines follow each other without one. */
  blockStart: boolean;
  /** A table's row, its cells joined by " | " as the crawler writes them: one sentence, never split. */
  row: boolean;
  /** The spaces a whole line starts with: a code example's indentation, quoted with it. */
  indent?: string;
  /** Of a line that opens with a section's number ("4.5. Can I use Debian packages…"): a heading, or a table of contents' entry. */
  numbered?: true;
  /**
   * A heading that reads like a label ("Coming next: Boats of the Swale"): a line opening a block,
   * prose right under it in that block. A heading, never quoted as a "label: value" line.
   */
  colonHeading?: boolean;
}

/**
 * How much each of the question's words tells on this client's site (siteSpecificity in
 * chat/retrieval.ts): a word in most of the site's chunks ("node" on the Node.js docs) says little
 * about which sentence answers. Keyed by Postgres' English lexeme, which is the analyser's Porter stem
 * for most words; a word whose two stems differ, or that is not listed, counts fully.
 */
export type SiteSpecificity = Readonly<Record<string, number>>;

export function queryTerms(query: string, site?: SiteSpecificity, message?: string): QueryTerm[] {
  const byStem = new Map<string, QueryTerm>();
  const terms = analyze(query);
  // A follow-up's query is the visitor's message behind the words of the question before it: those
  // context words weigh half, as in the ranking — the visitor's own words say what is asked now.
  const own = message === undefined || message === query ? undefined : new Set(analyze(message).map((t) => t.stem));
  // The parts of a compound ("JavaScript": java, script) share half of the compound's weight: they
  // let "Java Script" count a little, not make the compound weigh three words.
  let partWeight = 0;
  terms.forEach((t, i) => {
    if (!t.part) {
      let parts = 0;
      while (terms[i + parts + 1]?.part) parts++;
      partWeight = parts > 0 ? (0.5 * wordWeight(t, site)) / parts : 0;
    }
    // A single letter is no word of the question ("e.g." leaves a "g").
    if (t.stop || (t.stem.length < 2 && !/\d/.test(t.stem))) return;
    const weight = (t.part ? partWeight : wordWeight(t, site)) * (own && !own.has(t.stem) ? 0.5 : 1) * (isQuantity(terms, i) ? 0.5 : 1);
    const seen = byStem.get(t.stem);
    if (!seen || seen.weight < weight)
      byStem.set(t.stem, { stem: t.stem, surface: t.surface, weight, onSite: site?.[t.stem] !== undefined });
  });
  return [...byStem.values()];
}

/**
 * A number the visitor counts with ("for *2* weeks", "a table for *4*"), not one that names a thing
 * ("error 404", "Python 3.10", "size 42"): a stop word or nothing stands before it. It weighs as a
 * context word: a sentence that holds the same number ("closed from 20 December to *2* January") is
 * not about the question for it.
 */
function isQuantity(terms: Term[], i: number): boolean {
  const t = terms[i] as Term;
  const before = terms[i - 1];
  return /^\d+$/.test(t.stem) && (before === undefined || before.stop);
}

function wordWeight(t: Term, site?: SiteSpecificity): number {
  return termRarity(t.surface) * (site?.[t.stem] ?? 1);
}

/** Share of the query's weight a text covers, in [0, 1]; a word one slip away counts 0.7, unless the site uses the word as typed. */
export function coverage(terms: QueryTerm[], textTerms: Term[]): number {
  const total = terms.reduce((n, t) => n + t.weight, 0);
  if (total === 0) return 0;
  const stems = new Set(textTerms.map((t) => t.stem));
  let hit = 0;
  for (const q of terms) {
    if (stems.has(q.stem)) hit += q.weight;
    else if (!q.onSite && q.surface.length >= 5 && textTerms.some((t) => t.surface.length >= 4 && oneEditApart(q.surface, t.surface)))
      hit += 0.7 * q.weight;
  }
  return hit / total;
}

// Latin-style ends need a space and a capital (or a digit, quote, bracket) after them ("e.g. foo"
// is not an end), and "i.e." and "e.g." end none ("a path (i.e. 'pkg.Backend')"); CJK ends are
// followed by no space at all.
const UNSPACED_TEXT = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Thai}]/u;
// Nor does an abbreviation before its number ("Gas Safe registered no. 584213", "see p. 12", "Tel. 0114…").
const SENTENCE_END =
  /(?<=[。！？])\s*|(?<=[.!?])(?<!\b[ieIE]\.[egEG]\.)(?:\s+(?=[\p{Lu}"'“(¿¡`])|(?<!\b(?:[Nn]o|[Nn]r|[Tt]el|pp?|[Vv]ol|[Ff]ig|[Rr]ef|[Aa]rt|[Ss]ec|[Cc]h|approx|ca)\.)\s+(?=\p{N}))/u;
const ENDS_SENTENCE = /[.!?。！？:)"'”]$/u;
/**
 * A line of code or a statement, not a sentence about it: a statement's end, an assignment, a shell,
 * Windows ("...\>", "C:\site>", "PS C:\>") or REPL prompt, a "//" comment, a template literal's "${", a
 * block; Python run together by a page's markup — a "#" comment glued to the word before it ("This is#
 * a hook"; "C#" is a name), a docstring's quotes, a "def name(" — is code too, and so is a line that
 * opens with a shell or Python comment ("# "), a C preprocessor line ("#define", "#include") or ends
 * with a C comment, as a header file's "#define SQLITE_DBCONFIG_MAX 1017" line does. So is a REPL's
 * continuation line ("... # do whatever with mydict[key]...").
 */
const CODE =
  /[;{}]$|\s(=|==|=>|:=)\s|^\$ |^(>>>|\.\.\.) |^(\.\.\.\\|[A-Z]:\\[^>\s]*|PS [^>]*)> |(^|[^:])\/\/(\s|$)|\$\{|;\s*\}|\)\s*\{|^# |[a-z]{2}#\s|"""|\bdef \w+\(|^#\s*(define|include|ifn?def|endif|pragma)\b|\/\*.*\*\/$/;

/**
 * Contact details as a page writes them for visitors — a phone number that opens with "+", "00", "0"
 * or "(" or is written 555-123-4567, an e-mail address: what "call the workshop:" or "write to us at"
 * leads to, and what a visitor asking how to reach someone needs.
 */
function contactsIn(text: string): Found[] {
  return [...emailsIn(text), ...listedPhonesIn(text)];
}

/** The contact details a text ends with, if any. */
function contactAtEnd(text: string): Found | undefined {
  const end = text.trimEnd().length;
  return contactsIn(text).find((c) => c.index + c.text.length === end);
}

/** A phone number's groups held on one line where the answer wraps (no-break spaces). */
function keepTogether(line: string): string {
  let out = line;
  for (const c of contactsIn(line).sort((a, b) => b.index - a.index))
    out = `${out.slice(0, c.index)}${c.text.replaceAll(' ', '\u00a0')}${out.slice(c.index + c.text.length)}`;
  return out;
}

/** Two words at least, the first capitalised, before the price: a named item, not a bare amount. */
const PRICE_LINE = /^\p{Lu}[\p{L}'’&.-]*(?:\s+[\p{L}'’&.-]+)+/u;

/**
 * A copyright notice, a footer's ("© Leafline Tea Co. Ltd · Company no. 10473829", "Copyright 2024 Acme.
 * All rights reserved."): never a sentence of the answer ("…Skip or cancel any time from your account.
 * © Leafline Tea Co.", the footer's opening run on after the page's last section).
 */
const COPYRIGHT = /^(?:©|\(c\)\s*\d|copyright\s+(?:©|\(c\)|\d{4}))|\ball rights reserved\.?$/i;

function isProse(text: string, words: number, opensParagraph = false): boolean {
  if (COPYRIGHT.test(text)) return false;
  if (UNSPACED_TEXT.test(text)) return text.length >= 6 && /[。！？.!?]$/u.test(text);
  // A sentence that ends in a phone number or an address ("Call the workshop: 020 123 4567") is
  // judged by its words: the number has no letters and no full stop.
  const contact = contactAtEnd(text);
  if (contact && contact.index > 0) {
    const lead = text.slice(0, contact.index).trim().replace(/[:,]$/, '');
    return /\p{L}$/u.test(lead) && isProse(`${lead}.`, lead.split(' ').length);
  }
  // A price list's line names a thing and its price without a full stop ("Jasmine Pearls — £9.00 / 50 g"):
  // it answers "how much is the jasmine tea" as "Margherita £11." does.
  if (PRICE_LINE.test(text) && words <= 12 && statesPrice(text) && !CODE.test(text)) return true;
  if (!ENDS_SENTENCE.test(text) || CODE.test(text)) return false;
  // Short lines are headings, labels and cells unless they end like a sentence ("It cannot be undone.").
  // A price list's line is a sentence too ("Margherita £11."): it answers "how much is a margherita".
  if ((words < 3 && !(words === 2 && /[.!]$/.test(text) && statesPrice(text))) || (words < 5 && !/[.!?]$/.test(text))) return false;
  // More brackets closed than opened is a piece cut out of code or of a sentence ("summary=__('%d files') %
  // len(docnames))"), unless it opens with an enumerator ("2) Restart the server.").
  if (unbalanced(text.replace(/^\(?\w{1,3}\)\s/, ''))) return false;
  // Mostly symbols is code or a table's cells; numbers are words of a sentence ("Django 3.2 supports Python 3.6, 3.7, 3.8, 3.9, and 3.10.").
  const alphanumerics = (text.match(/[\p{L}\p{N}]/gu) ?? []).length;
  if (alphanumerics < 0.6 * text.replace(/\s/g, '').length) return false;
  // A lower-case opening is the middle of a sentence or a table's cells ("identity_increment
  // character_data If the column…"), unless it names code ("fs.readFile() reads…") or opens a
  // paragraph with a command ("make latexpdf runs the LaTeX builder…", its code markup gone): a plain
  // word that no piece broken off a sentence opens with ("where sourcedir is…" after an example), no
  // capitalised joining word further on starting a second piece (a table's cells run together), no
  // code's symbols. A wrapped line of a source listing's comment opens no paragraph.
  const first = text.split(/\s/, 1)[0] ?? '';
  if (!/^\p{Ll}/u.test(first) || /[.(]/.test(first)) return true;
  return (
    opensParagraph &&
    words >= 5 &&
    /[.!?]$/.test(text) &&
    /^[a-z][a-z0-9-]* [\p{L}\d.-]+ /u.test(text) &&
    !isStopWord(first) &&
    !RESTARTS.test(text) &&
    !/[{}<>=*|[\]]/.test(text)
  );
}

/** A capitalised joining word after the first: a second sentence's or cell's start run into the first. */
const RESTARTS = /\s(?:If|The|This|These|A|An|When|For|In|It|Otherwise|See|Note|Default|Returns?)\s/;

/** Whether a text closes more round or square brackets than it opens. */
function unbalanced(text: string): boolean {
  let depth = 0;
  for (const ch of text) {
    if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') depth--;
    if (depth < 0) return true;
  }
  return false;
}

const EMPTY_CELL = /^[-–—]*$/;

function cellsOf(row: string): string[] {
  return row.split(' | ').map((c) => c.trim());
}

/**
 * A table row that answers ("Saturday | 9am–5pm | —" for "What time do you open on Saturday?"), read
 * as a sentence: a row of two cells as "Sauna (adults only): £4.00."; a longer one with the column
 * names of the table's first row when that row names columns (no digit in it) — "Saturday — Public
 * swim: 9am–5pm." — empty cells left out.
 */
/**
 * Whether a table's first row names the columns: it holds no number ("Day | Open"), or no price above
 * rows of prices ("Course | 1–3 weeks | 4–11 weeks" above "General English | £295 | £270"); a first row
 * like the others ("Monday | 9am–5pm") is data.
 */
function namesColumns(sentences: Sentence[], top: number): boolean {
  const header = cellsOf((sentences[top] as Sentence).text);
  const next = sentences[top + 1];
  return !header.some((h) => /\d/.test(h)) || (!header.some(statesPrice) && next?.row === true && cellsOf(next.text).some(statesPrice));
}

export function rowSentence(sentences: Sentence[], index: number): string {
  const cells = cellsOf((sentences[index] as Sentence).text);
  const [first = '', ...rest] = cells;
  if (rest.length === 1) {
    // A labelled row ("Description: | Redirects http: traffic to https:") is its value under its
    // label, the label's own colon and a generic label ("Description") left out.
    const label = first.replace(/:$/, '');
    const value = withFullStop(rest[0] as string);
    return GENERIC_HEADING.test(label) ? value : `${label}: ${value}`;
  }
  let top = index;
  while (top > 0 && (sentences[top - 1] as Sentence).row) top--;
  const header = top < index ? cellsOf((sentences[top] as Sentence).text) : undefined;
  const named = header && namesColumns(sentences, top) && header.length === cells.length ? header : undefined;
  const parts = rest.flatMap((c, i) => (EMPTY_CELL.test(c) ? [] : [named ? `${named[i + 1]}: ${c}` : c]));
  return `${first} — ${parts.join('; ')}.`;
}

/** A paragraph's run-in heading: its first words, capitalised, letters only, a full stop after them. */
const RUN_IN_WORDS = 3;
/** A section's number before its name: "9.2.", "A.1.", "3.". */
const SECTION_NUMBER = /^(?:\d+|\p{Lu})(?:\.\d+)*\.$/u;
/** A line that opens with a subsection's number, two levels or more ("4.5. ", "18.4.17 "): a heading, not a step ("1. Install…"). */
const NUMBERED_HEADING = /^\d+\.\d+(?:\.\d+)*\.?\s+\p{L}/u;
function isRunIn(text: string): boolean {
  return /^\p{Lu}[\p{L}\s-]*\.$/u.test(text) && text.split(' ').length <= RUN_IN_WORDS;
}

/** A listing's line number at a line's start ("6b ", " 7b ", "12 "), or alone on its line (an empty line of the listing). */
const LINE_NUMBER = /^\s*(\d{1,4})[a-z]?(?:\s+(?=\S)|\s*$)/;

/**
 * The lines of a code listing printed with its line numbers (Postfix's main.cf examples: "8a
 * smtpd_relay_restrictions =", "9a permit_mynetworks …"): runs of adjacent lines numbered one after the
 * other, one of them at least a line of code without its number. A timeline ("1998 Opened in
 * Sheffield.", "1999 …") has no code and stays prose.
 */
function numberedListing(lines: string[]): Set<number> {
  const out = new Set<number>();
  const numberOf = (i: number) => {
    const m = LINE_NUMBER.exec(lines[i] ?? '');
    return m ? Number(m[1]) : undefined;
  };
  for (let start = 0; start < lines.length; ) {
    let end = start + 1;
    const first = numberOf(start);
    if (first !== undefined) while (end < lines.length && numberOf(end) === first + (end - start)) end++;
    if (end - start >= 2 && lines.slice(start, end).some((l) => CODE.test(l.replace(LINE_NUMBER, '').trim())))
      for (let i = start; i < end; i++) out.add(i);
    start = end;
  }
  return out;
}

/**
 * A passage's sentences in page order, each marked prose or not. `startsPage`: the passage is its page's
 * first, so its first line is no rest of a sentence a chunk cut.
 */
export function sentencesOf(content: string, startsPage = false): Sentence[] {
  const out: Sentence[] = [];
  let blockStart = true;
  const raws = content.split('\n');
  const listing = numberedListing(raws);
  for (const [index, raw] of raws.entries()) {
    // A table's row, and a code listing's numbered line ("6b # Older configurations combine relay control
    // and spam control."): one line, never prose, whatever it ends with.
    const row = !listing.has(index) && TABLE_ROW.test(raw);
    if (row || listing.has(index)) {
      const text = raw.trim().replace(/\s+/g, ' ');
      out.push({ text, words: text.split(' ').length, prose: false, line: true, blockStart, row });
      blockStart = false;
      continue;
    }
    // A row of one cell after empty ones (DocBook's admonition table: its icon's cell, then "Tip") is
    // that cell's text, not a table's row.
    const line = raw.replace(/^\s*(\|\s*)+/, '');
    const parts = line
      .split(SENTENCE_END)
      .map((raw) => raw.trim().replace(/\s+/g, ' '))
      .filter(Boolean);
    // A run-in heading ("Multi-thread. In this mode, SQLite can be safely used…") opens its sentence:
    // apart, it read as a line of its own, where a quote stopped or which it started without.
    // So does a section's number ("9.2. Must I go into single user mode…?", a DocBook FAQ's heading).
    if (parts.length > 1 && (isRunIn(parts[0] as string) || SECTION_NUMBER.test(parts[0] as string)))
      parts.splice(0, 2, `${parts[0]} ${parts[1]}`);
    if (parts.length === 0) blockStart = true;
    const indent = parts.length === 1 ? /^ +/.exec(line)?.[0] : undefined;
    const numbered = NUMBERED_HEADING.test(line.trim());
    for (const text of parts) {
      const words = text.split(' ').length;
      out.push({
        text,
        words,
        // A passage's first line may be the rest of a sentence its chunk cut: it opens no paragraph.
        prose: isProse(text, words, blockStart && (out.length > 0 || startsPage)),
        line: parts.length === 1,
        blockStart,
        row: false,
        ...(indent ? { indent } : {}),
        ...(numbered ? { numbered } : {}),
      });
      blockStart = false;
    }
  }
  out.forEach((s, i) => {
    const next = out[i + 1];
    if (s.line && s.blockStart && !s.prose && s.words <= 10 && LABEL_LINE.test(s.text) && next && !next.blockStart && next.prose)
      s.colonHeading = true;
  });
  return out;
}

/** Words by which a sentence says that what it speaks of comes next on the page. */
const NEXT_ON_PAGE = 'following|follows|below|like so|like this|for example|for instance';
/** A sentence that needs what follows its colon: it says so ("the following", "such as") or ends before it ("include:"). */
const POINTS_FORWARD = new RegExp(
  String.raw`\b(${NEXT_ON_PAGE}|examples?|here (are|is)|here['’]s|let['’]s|such as)\b|\b(includes?|including|are|is|were|was|contains?|returns?|has|have|with|to|of|for|as|by|from|and|or)\s*:$`,
  'i',
);

/**
 * Whether a sentence ending in a colon needs what follows it: it says so, or it ends on "this" or
 * "these" and a thing the quote has not named before ("Create a file with this content:"), not one it
 * has ("…a trace warning." then "…can be used to avoid this warning:").
 */
function needsWhatFollows(text: string, before: string): boolean {
  if (POINTS_FORWARD.test(text)) return true;
  const named = /\b(?:this|these|those)\s+([\p{L}\p{N}_-]+)\s*:$/iu.exec(text)?.[1];
  return named !== undefined && !before.toLowerCase().includes(named.toLowerCase().replace(/s$/, ''));
}

/** Lines of code at most that a quote brings along around its sentence (a command, an output shown). */
const CODE_LINES = 8;
/**
 * A code example's lines at most; a longer one is not quoted (cut, it would not run). The quote's words
 * (MAIN_WORDS) keep it short as they keep the prose: at eight lines, PostgreSQL's synopsis of nine
 * one-word names ("These SQL-standard functions all return values based on the start time of the
 * current transaction:", then CURRENT_DATE, CURRENT_TIME, …) was left out and the quote ended on its colon.
 */
const EXAMPLE_LINES = 16;
/** What a line of code has and a heading or a list item has not. */
const CODE_LIKE = /[(){}[\];=<>$`'"_/\\|]|--|^[a-z][\w.-]*\s/;

/** The line before and after a quoted code example (Markdown's fence). */
const CODE_FENCE = '```';

/**
 * The block of whole lines starting at `index` (no blank line between them) and ending before a line
 * that reads as prose, when its first line is not prose: what a sentence ending in a colon may
 * introduce ("call the workshop:", a number, an address; "We are open…" on the next line is the
 * page going on, not part of it). The index after it and its lines.
 */
function lineBlockAt(sentences: Sentence[], index: number): { end: number; lines: string[] } | undefined {
  const first = sentences[index];
  if (!first || first.prose || !first.line || first.row) return undefined;
  let end = index + 1;
  const inBlock = (s: Sentence) => !s.blockStart && s.line && !s.prose && !s.row;
  while (end < sentences.length && inBlock(sentences[end] as Sentence)) end++;
  return { end, lines: sentences.slice(index, end).map((s) => s.text) };
}

/** Lines `from` to `to` (exclusive) as code: each with the indentation it has on the page. */
function codeLines(sentences: Sentence[], from: number, to: number): string[] {
  return sentences.slice(from, to).map((s) => `${s.indent ?? ''}${s.text}`);
}

/**
 * The code example a sentence ending in a colon introduces ("To add a column, use a command like:"):
 * the block of lines right after it, when it reads as code and is short, else nothing. Marks like
 * "[1]" inside it would read as citations: not quoted.
 */
export function codeExampleAt(sentences: Sentence[], index: number): { end: number; lines: string[] } | undefined {
  const block = lineBlockAt(sentences, index);
  if (!block) return undefined;
  const { lines } = block;
  // A bare option ("--soft", its description below it) is the term of a definition list, not an example.
  if (lines.length === 1 && /^--?[\w-]+$/.test(lines[0] as string)) return undefined;
  // An API reference's parameter list ("model <string>") is not an example either.
  if (
    lines.length > EXAMPLE_LINES ||
    !lines.some((l) => CODE.test(l) || CODE_LIKE.test(l)) ||
    lines.some((l) => /\[\d{1,3}\]/.test(l) || TYPED_PARAMETER.test(l))
  )
    return undefined;
  return { end: block.end, lines: codeLines(sentences, index, block.end) };
}

/**
 * A passage ending with a sentence's colon, and the lines it introduces when the page's next chunk
 * opens with them (a code example, a list; db/retrieval.ts): quoted as if the chunk held them. Only
 * those lines: what follows them is the next chunk's own.
 */
function withIntroduced(sentences: Sentence[], continuation: string | undefined): Sentence[] {
  const last = sentences.at(-1);
  if (continuation === undefined || !last?.prose || !/:$/.test(last.text)) return sentences;
  const next = sentencesOf(continuation);
  const lines = next.findIndex((s) => s.prose);
  return lines === 0 ? sentences : [...sentences, ...next.slice(0, lines === -1 ? next.length : lines)];
}

/** The end of a sentence that says an example comes next without a colon ("…URLs such as the following"). */
const INTRODUCES = new RegExp(String.raw`\b(${NEXT_ON_PAGE})\W*$`, 'i');
/** A line naming the next entry of a reference (an option, a Sphinx signature), not an example of this one. */
const ENTRY_NAME = /^--?\w|¶$|\[source\]$/;

/**
 * Whether a block of code right after a sentence, with no colon between them, is the page's example of
 * what the sentence says rather than the next entry of a reference ("marshal.load(file)¶", "--only"):
 * the sentence says an example follows, or the block is several lines none of which names an entry
 * (SQLite's ".headers on", ".mode csv", … under "To export a table as CSV, set the mode…"), or it runs
 * the command the sentence names ("…a program to create new databases, createdb." and "createdb dbname").
 */
function illustrates(sentence: string, lines: string[]): boolean {
  if (INTRODUCES.test(sentence)) return true;
  if (lines.length >= 2 && !lines.some((l) => ENTRY_NAME.test(l.trim()))) return true;
  const command = (lines[0] as string)
    .trim()
    .replace(/^(\$|#|>|>>>|\w+>)\s+/, '')
    .match(/^[\w.-]{3,}/)?.[0];
  return command !== undefined && new RegExp(`(^|[\\s"'\`(])${command.replace(/\./g, '\\.')}\\b`).test(sentence);
}

/**
 * Items at most of a list quoted after the sentence that introduces it; their words at most each (a
 * line of a cleaner's "Why customers stay with us" is nine: "All cleaners are DBS checked and trained by us").
 */
const LIST_ITEMS = 8;
const LIST_ITEM_WORDS = 12;

/**
 * The list a sentence ending in a colon introduces, when its items are short lines of their own that
 * are not sentences ("The built-in template backends are:" and "'…DjangoTemplates'", "'…Jinja2'"):
 * two or more, each its own block, quoted after the colon — the first alone would read as the only one.
 */
export function listItemsAt(sentences: Sentence[], index: number): { end: number; lines: string[] } | undefined {
  const lines: string[] = [];
  let end = index;
  for (; end < sentences.length && (sentences[end] as Sentence).blockStart && isItemLine(sentences, end); end++)
    lines.push((sentences[end] as Sentence).text);
  return lines.length >= 2 && lines.length <= LIST_ITEMS ? { end, lines } : undefined;
}

/** Words at most of a line of a block of lines a sentence introduces (an option and what it does). */
const BLOCK_LINE_WORDS = 16;

/**
 * The lines of one block a sentence ending in a colon introduces, when each is a short line of its own
 * and not all are prose: a command's options and what each does ("To do so, use the following command
 * options:", then "-n This specifies JMeter is to run in non-gui mode", "-t [name of JMX file that
 * contains the Test Plan].", …). Two or more, to the block's end; the first is the block's start.
 */
function blockLinesAt(sentences: Sentence[], index: number): { end: number; lines: string[] } | undefined {
  const first = sentences[index];
  if (!first?.blockStart) return undefined;
  let end = index;
  while (end < sentences.length && (end === index || !(sentences[end] as Sentence).blockStart)) {
    const s = sentences[end] as Sentence;
    if (!s.line || s.row || s.words > BLOCK_LINE_WORDS || /:$/.test(s.text) || CODE.test(s.text) || TYPED_PARAMETER.test(s.text))
      return undefined;
    end++;
  }
  const block = sentences.slice(index, end);
  if (block.length < 2 || block.length > LIST_ITEMS || block.every((s) => s.prose)) return undefined;
  return { end, lines: block.map((s) => s.text) };
}

/**
 * A line that may be a list's item: short, no sentence, no row, no parameter, no colon at its end; a
 * block of one line (the next one starts a block too, or the text ends).
 */
function isItemLine(sentences: Sentence[], i: number): boolean {
  const s = sentences[i];
  const next = sentences[i + 1];
  return (
    s?.line === true &&
    !s.prose &&
    !s.row &&
    s.words <= LIST_ITEM_WORDS &&
    !TYPED_PARAMETER.test(s.text) &&
    !/:$/.test(s.text) &&
    (next === undefined || next.blockStart)
  );
}

/**
 * Whether the line at `index` is an item of a list that stands right under a heading, with no sentence
 * introducing it ("Why choose us", then "Fixed prices agreed before we start", "All work guaranteed
 * for 12 months", each a block of its own): two items at least.
 */
function listItemUnderHeading(sentences: Sentence[], index: number): boolean {
  // A reference entry's name ("DJANGO_SUPERUSER_PASSWORD¶", "--only") is no item either.
  const text = (sentences[index] as Sentence).text;
  if (!isItemLine(sentences, index) || CODE.test(text) || ENTRY_NAME.test(text)) return false;
  let first = index;
  while ((sentences[first] as Sentence).blockStart && first > 0 && isItemLine(sentences, first - 1)) first--;
  if (first === 0) {
    // A passage that opens with a short list, prose after it, has it under its section's heading ("Why
    // customers stay with us", the crawler's section, then "The same cleaner every visit", "No contract:
    // cancel…", then "Rated 4.9 out of 5…"); a passage of such lines to its end is an index.
    let end = 0;
    while (end < sentences.length && isItemLine(sentences, end)) end++;
    return end >= 2 && end <= LIST_ITEMS && sentences[end]?.prose === true;
  }
  if ((sentences[first] as Sentence).blockStart || !isHeadingLine(sentences, first - 1)) return false;
  return isItemLine(sentences, first + 1) || first < index;
}

/**
 * A sentence a command's lines cut in two, ending at `end`: its opening ("you can replace the most
 * recent commit using"), the lines ("$ git commit --amend"), and its lower-case rest ("which will
 * replace the old commit…"). Where it starts and its words, or nothing.
 */
function cutByCommand(sentences: Sentence[], end: number): { start: number; words: number } | undefined {
  const rest = sentences[end];
  if (!rest || rest.prose || !rest.blockStart || !/^\p{Ll}/u.test(rest.text) || !/[.!?]$/.test(rest.text) || rest.words < 4)
    return undefined;
  return openingBefore(sentences, end, /\p{L}$/u);
}

/**
 * A sentence's opening and the command lines that cut it, above its rest at `end`: a capitalised
 * opening ending as `ends` says, the command a block of its own.
 */
function openingBefore(sentences: Sentence[], end: number, ends: RegExp): { start: number; words: number } | undefined {
  let first = end;
  const isCommand = (s: Sentence) => s.line && !s.prose && !s.row && (CODE.test(s.text) || CODE_LIKE.test(s.text));
  while (first > 0 && end - first < CODE_LINES && isCommand(sentences[first - 1] as Sentence)) first--;
  const opening = sentences[first - 1];
  if (first === end || !(sentences[first] as Sentence).blockStart || !opening || opening.words < 4) return undefined;
  if (!/^\p{Lu}/u.test(opening.text) || !ends.test(opening.text)) return undefined;
  return { start: first - 1, words: sentences.slice(first - 1, end + 1).reduce((n, s) => n + s.words, 0) };
}

/**
 * The answering sentence as the rest of one an example cut in two: a paragraph opening in lower case
 * right under a command, under a sentence introducing it ("For example, the following:", then "[[ -f
 * foo ]] && print File exists.", then "tests if either file foo or file bar exists…").
 */
function restAfterExample(sentences: Sentence[], index: number): { start: number; words: number } | undefined {
  const rest = sentences[index];
  if (!rest?.prose || !rest.blockStart || !/^\p{Ll}/u.test(rest.text)) return undefined;
  return openingBefore(sentences, index, /[\p{L}:]$/u);
}

/** Contact lines at most after a sentence that introduces them. */
const CONTACT_LINES = 4;

/**
 * The phone numbers or addresses a sentence ending in a colon introduces ("To book a service, call
 * the workshop:" and "020 123 4567" on the next line): the block of short lines right after it, one
 * of them at least a number or an address, else nothing.
 */
export function contactLinesAt(sentences: Sentence[], index: number): { end: number; lines: string[] } | undefined {
  const block = lineBlockAt(sentences, index);
  if (!block) return undefined;
  const { lines } = block;
  if (
    lines.length > CONTACT_LINES ||
    !lines.some((l) => contactsIn(l).length > 0) ||
    lines.some((l) => l.split(' ').length > 8 || CODE.test(l))
  )
    return undefined;
  return block;
}

/** "Label: value": a short label, a colon, then its value. */
const LABEL_LINE = /^[^:]{1,30}:\s+\S/;

/**
 * A line of its own that is a short "label: value" ("Saturday: 8am–4pm"), not a sentence or code: the
 * label capitalised (a lower-case one is an object's key in an example, "model: 'Intel…',").
 */
function isLabelLine(s: Sentence): boolean {
  return (
    s.line &&
    !s.colonHeading &&
    !s.prose &&
    !s.row &&
    s.words <= 12 &&
    /^\p{Lu}/u.test(s.text) &&
    !/[,;{[(]$/.test(s.text) &&
    LABEL_LINE.test(s.text) &&
    !CODE.test(s.text)
  );
}

/**
 * A parameter line of an API reference (a name and its type in angle brackets), or a cell of its
 * history table (the versions a change came in: "v7.5.0, v6.13.0").
 */
const TYPED_PARAMETER = /^\S+\s+<(?![A-Z]>)[^>]+>|^v?\d+\.\d+(\.\d+)?(,\s*v?\d+\.\d+(\.\d+)?)*$/;

/**
 * Not a section's name: a table's header row ("Version | Changes"), a return or import statement
 * ("return self.title", "from django.db import models"), a line without a letter (a code block's "]"),
 * a bracketed expression ("(subject, message, from_email, recipient_list)": a tuple's format), an API
 * reference's type alone on its line ("<string>", "<Buffer> | <string>": a value's, not a section's), a
 * web address alone on its line ("→ https://www.iana.org/assignments/…", a book's reference).
 */
const NOT_A_HEADING = /\s\|\s|^return\b|^(from\s+\S+\s+)?import\s|^\P{L}*$|^\(|^<[^<>]+>(\s*\|\s*<[^<>]+>)*$|^\P{L}*https?:\/\/\S+$/u;

/** Section names that say nothing about what the section holds. */
const GENERIC_HEADING =
  /^(description|options|overview|introduction|notes?|examples?|synopsis|usage|details|summary|discussion|see also|background|contents|parameters|returns?|history|warning|caution|important|tip|hint|danger|attention|default)$/i;

/** A field whose value is the name of what the entry describes: "Option: Aptitude::Auto-Install", "Name: irsend". */
const NAMING_FIELD = /^(?:option|name|parameter|setting|directive|variable|property|command|field|key):\s+(\S.*)$/i;

/**
 * A heading without the anchor marks documentation generators put on it: "#" (Node), "¶" and "[source]"
 * (Sphinx), and without a colon it ends with ("Suggested Uses For SQLite:"): the answer puts its own.
 */
function bareHeading(text: string): string {
  return (
    text
      .replace(/^#+\s*|\s*#$/g, '')
      .replace(/\s*(\[source\])?\s*¶\s*$/u, '')
      // A reference entry's flag letters after its name ("RPS1 <S>", zsh's special parameters).
      .replace(/(\s+<[A-Z]>)+$/, '')
      .replace(/\s*:$/, '')
      // A heading's full stop ("Overall Configuration Decisions.", "FTDIX driver."), not an abbreviation's ("Acme Inc.").
      .replace(/(\p{L}{4,})\.$/u, '$1')
      .trim()
  );
}

/** A heading's most words. */
const HEADING_WORDS = 10;

/** A line that names a section: short, not prose, not code (nor the tail of a code line, closing a bracket it never opened), a field ("Price: 20 €"), a parameter, a table header or contact details. */
function isHeadingLine(sentences: Sentence[], index: number): boolean {
  const s = sentences[index] as Sentence;
  if (s.colonHeading) return true;
  return (
    s.line &&
    !inCode(sentences, index) &&
    !s.prose &&
    s.words <= HEADING_WORDS &&
    !CODE.test(s.text) &&
    !/[.,;:]$/.test(s.text) &&
    !LABEL_LINE.test(s.text) &&
    !TYPED_PARAMETER.test(s.text) &&
    !NOT_A_HEADING.test(s.text) &&
    !unbalanced(s.text) &&
    // "Telephone 0117 496 0802 · Email hello@…": a contact page's line of details names no section.
    contactsIn(s.text).length === 0
  );
}

/**
 * A line of a code example rather than a section's name ("migrations.AddField(", a REPL's "True", a
 * dict's "'TOKEN'"): indented, opening a bracket it does not close, or in the block of a code line
 * above it.
 */
function inCode(sentences: Sentence[], index: number): boolean {
  const s = sentences[index] as Sentence;
  if (s.indent || OPENS_BRACKET.test(s.text)) return true;
  const before = sentences[index - 1];
  return (
    !s.blockStart && before !== undefined && (before.indent !== undefined || CODE.test(before.text) || OPENS_BRACKET.test(before.text))
  );
}
const OPENS_BRACKET = /[([{,]$/;

const QUESTION_LINE_WORDS = 15;
function isQuestionLine(s: Sentence): boolean {
  return s.line && s.words <= QUESTION_LINE_WORDS && /\?$/.test(s.text);
}

/** The asker's own words: "I", "my" — a FAQ's question, not the page's answer, which says "you". */
const FIRST_PERSON = /(?:^|\s)(?:I|I['’](?:m|ve|d)|[Mm]y|me)\s/;

/**
 * A FAQ's entry that asks by showing what the asker sees: a line of its own opening its block, in the
 * first person, ending with a colon before the output it shows ("When I run irrecord or mode2 I get an
 * error message like this:", then "mode2: Device or resource busy"). It opens an entry as a question
 * line does: the answer above it is another question's.
 */
function reportsProblem(sentences: Sentence[], index: number): boolean {
  const s = sentences[index] as Sentence;
  const next = sentences[index + 1];
  return (
    s.line &&
    s.blockStart &&
    s.words <= QUESTION_LINE_WORDS &&
    /:$/.test(s.text) &&
    FIRST_PERSON.test(s.text) &&
    next !== undefined &&
    next.blockStart &&
    !next.prose
  );
}

/**
 * A sentence in the asker's words ending with a colon before the output it shows — a block of lines
 * that are not prose — with prose after it: a FAQ's or a troubleshooting page's problem as the visitor
 * meets it ("When I run LIRC applications (e.g. irexec) I get this error message:", "irexec: could not
 * connect to socket", "Check the permission of the lircd output socket…"). The index of the prose that
 * answers it and the words of the sentence and the output; undefined for any other sentence.
 */
function shownProblemAt(sentences: Sentence[], index: number): { end: number; words: number } | undefined {
  const s = sentences[index] as Sentence;
  if (!s.prose || !/:$/.test(s.text) || !FIRST_PERSON.test(s.text)) return undefined;
  const output = lineBlockAt(sentences, index + 1);
  if (!output || output.end - index - 1 > CODE_LINES || sentences[output.end]?.prose !== true) return undefined;
  return { end: output.end, words: sentences.slice(index, output.end).reduce((n, x) => n + x.words, 0) };
}

/**
 * The first sentence of the answer the sentence at `index` belongs to, when it stands under a FAQ's
 * question (a question line above it in the passage, or the passage's heading when that is a question
 * and the passage opens its section) and that answer starts before it; undefined when another heading
 * stands between them, or the answer opens with something other than prose (a table, a code example).
 */
function answerOpening(passage: ChatPassage, sentences: Sentence[], index: number): number | undefined {
  // A sentence that asks itself opens its own entry.
  if (reportsProblem(sentences, index)) return undefined;
  // The question the sentence answers: the nearest question line above it, with no heading between them…
  let first: number | undefined;
  for (let i = index - 1; i >= 0 && first === undefined; i--) {
    if (isQuestionLine(sentences[i] as Sentence)) first = i + 1;
    // An entry in the asker's words above it ("When I run mode2 I get…:" and the output) is the question
    // it answers: the answer starts after the output.
    else if (reportsProblem(sentences, i)) first = lineBlockAt(sentences, i + 1)?.end ?? index;
    else if (isHeadingLine(sentences, i)) return undefined;
  }
  // …or the passage's heading, when it asks and the chunk holds the answer's start (not the end of the one before).
  first ??= /\?$/.test(passage.heading ?? '') && passage.continuesSection === false ? 0 : undefined;
  return first !== undefined && first < index && sentences[first]?.prose ? first : undefined;
}

/**
 * What the quoted sentence is about, when the page says it only in a heading: the nearest heading line
 * above it in the passage, else the passage's section heading — "os.cpus()", "--amend", "Refund
 * policy"; for a line under a table's row, what the row names; for a quote about "this command", the
 * page's name. Empty when that is generic, long, or already in the quote.
 */
function topicOf(passage: ChatPassage, sentences: Sentence[], index: number, quoted: string): string {
  let heading = passage.heading ?? '';
  // A line right under a table's row is that row's description (a reference table's "Redirects http:
  // traffic to https: for Managed Domains." under "MDRequireHttps off|temporary|permanent | off | s | X"):
  // about what the row's first cell names, when that is a name — not a version, an empty cell or a
  // field's label ("Module: | mod_remoteip" in a directive's box). So is a paragraph after a row that
  // stands alone (Exim's "reply_transport | Use: redirect | Type: string", then what the option does) or
  // between rows each with its own (Apache's directive index); a paragraph after rows that follow each
  // other, a blank line between, is about the table: "Under-fives swim free with a paying adult." below a
  // pool's price list is not about its last row's "Monthly membership".
  const row = sentences[index - 1];
  const line = sentences[index] as Sentence;
  const afterTable = line.blockStart && sentences[index - 2]?.row === true;
  const cell = row?.row && !line.row && !afterTable ? (cellsOf(row.text)[0] ?? '') : '';
  const rowName = /\p{L}/u.test(cell) && !/:$/.test(cell) && !TYPED_PARAMETER.test(cell) ? cell : '';
  if (rowName) heading = rowName;
  const opensEntry = reportsProblem(sentences, index);
  for (let i = index - 1; i >= 0 && !rowName; i--) {
    const s = sentences[i] as Sentence;
    // A "Label: value" line (Added in: v8.0.0, Returns: <Object[]>, Price: 20 €) is a field of the
    // section, not its name: the search goes on above it.
    // Nor is a parameter with its type ("options <Object>", "err <Error>"): the section it belongs to is above.
    // A generic caption ("History", "Notes") heads a part of the section named above it.
    // A question on a line of its own is a FAQ's heading: what the sentences under it answer.
    // An item of a list under a heading is no heading: the list's is above it.
    if (listItemUnderHeading(sentences, i)) continue;
    // A FAQ's entry that asks by showing what the asker sees is its answer's question, and a quote that
    // opens with one answers no question above it: the search ends at either.
    if (reportsProblem(sentences, i) || (isQuestionLine(s) && opensEntry)) break;
    // A line of a listing or an example ("prune examples/sample?/build", a manifest's last line) names no section.
    if (inListing(sentences, i)) continue;
    // What a sentence ending in a colon introduces ("Add the following line to master.cf…:", then
    // "postlog unix-dgram n - n - 1 postlogd") is its example, not a section's name.
    if (introduced(sentences, i) || itemOfIntroducedList(sentences, i)) continue;
    // A field that names what the fields under it describe ("Option: Aptitude::Auto-Install" above
    // "Default: true" and "Description: If this option is true…", a reference's segmented list).
    const naming = NAMING_FIELD.exec(s.text);
    if (naming && s.line && !s.prose && (naming[1] as string).split(' ').length <= 6) {
      heading = naming[1] as string;
      break;
    }
    if ((isHeadingLine(sentences, i) && !GENERIC_HEADING.test(bareHeading(s.text))) || isQuestionLine(s)) {
      // A reference entry's name ("exception copy.Error", zsh's "%?string") heads its description, its
      // first blocks; prose further down is the section's again, past the entry's list: the section's
      // name is above the entries.
      if (ENTRY_NAME_LINE.test(bareHeading(s.text)) && blocksBetween(sentences, i, index) > ENTRY_BLOCKS) continue;
      heading = s.text;
      // Two names stacked ("django-admin createsuperuser", then its "DJANGO_SUPERUSER_PASSWORD" entry): when
      // the quote names the lower one, the upper one says what it is about.
      const above = sentences[i - 1];
      if (above && isHeadingLine(sentences, i - 1) && includesWords(quoted, bareHeading(s.text))) heading = above.text;
      break;
    }
  }
  heading = bareHeading(heading);
  // A FAQ's question is named as long as a question line is: the quote answers it.
  const named = (name: string) =>
    name !== '' &&
    name.split(/\s+/).length <= (/\?$/.test(name) ? QUESTION_LINE_WORDS : HEADING_WORDS) &&
    !GENERIC_HEADING.test(name) &&
    !includesWords(quoted, name)
      ? name
      : '';
  // A quote that speaks of "this command", "this function" without naming it is about what the page is
  // about: the page's name, when no section names it ("git-credential-cache(1)" for "The point of
  // this helper is to reduce the number of times you must type your password").
  const page = NAMES_ITS_SUBJECT.test(quoted) ? named(pageName(passage.title)) : '';
  if (heading.toLowerCase() === passage.title.trim().toLowerCase()) return page;
  return named(heading) || page;
}

/**
 * A block's first line right under a sentence that ends in a colon, or that runs on into it ("…you
 * should now be able to install your package by running", then "sudo dpkg -i ../*.deb"): what that
 * sentence introduces — unless the page gave the line a permalink ("marshal.dump(value, file[,
 * version])¶" under "The module defines these functions:"): an entry the sentence lists. The sentence
 * may open in lower case ("and change to the source tree:", a step's second half).
 */
function introduced(sentences: Sentence[], index: number): boolean {
  const s = sentences[index] as Sentence;
  const before = sentences[index - 1];
  if (!s.blockStart || /¶$/u.test(s.text) || !before) return false;
  if (/:$/.test(before.text)) return before.prose || (before.line && before.words >= 4 && /^\p{Ll}+\s/u.test(before.text));
  // A sentence of words, not a line of code or a function's signature ("age ( timestamp ) → interval").
  return before.line && before.words > HEADING_WORDS && !ENDS_SENTENCE.test(before.text) && /^\p{Lu}[\p{L}\s,'’-]+$/u.test(before.text);
}

/**
 * An item past the first of a list a sentence ending in a colon introduces ("We work across Leeds …,
 * including:", then "Headingley", …, "Rothwell"): no section's name either. The plumber's "what areas do you
 * cover?" was answered under "Rothwell", the last town listed above the sentence quoted.
 */
function itemOfIntroducedList(sentences: Sentence[], index: number): boolean {
  let first = index;
  while (first > 0 && isItemLine(sentences, first - 1)) first--;
  const before = sentences[first - 1];
  return first < index && before?.prose === true && /:$/.test(before.text) && (listItemsAt(sentences, first)?.end ?? 0) > index;
}

/**
 * Whether a line is one of a listing's or an example's lines: code-like, with another code-like line
 * that is no sentence right above or below it in its block (a manifest's "include *.txt" and
 * "recursive-include examples *.txt *.py", a synopsis' commands). A parameter with its type below an
 * API's name ("options <Object>" under "fs.rm(path[, options], callback)") is the entry's, not a listing's;
 * a name above what it names on a small site ("Ladies cut and blow dry", "From £45") is no code.
 */
function inListing(sentences: Sentence[], index: number): boolean {
  const s = sentences[index] as Sentence;
  if (!CODE_LIKE.test(s.text)) return false;
  const before = sentences[index - 1];
  const after = sentences[index + 1];
  const listed = (t: Sentence) => !t.prose && CODE_LIKE.test(t.text) && !TYPED_PARAMETER.test(t.text);
  return (!s.blockStart && before !== undefined && listed(before)) || (after !== undefined && !after.blockStart && listed(after));
}

/**
 * A name an API or manual reference lists an entry under: code punctuation in it ("copy.Error",
 * "%?string", "HIST_IGNORE_DUPS", "--amend"). Not a small site's heading in capitals ("PRICES"), nor
 * one with a full stop ("Dr. Patel").
 */
const ENTRY_NAME_LINE = /[_%$()[\]<>=]|\w\.\w|^-/;
/**
 * Blocks of an entry's description quoted under its name. At two, Django's Field.null and is_ajax()
 * lost their names on sentences of their descriptions' third block; at three only quotes past the
 * entries lose them (two answers of the nine bench sites).
 */
const ENTRY_BLOCKS = 3;

/** Blocks that start after line `from` up to and with line `to`. */
function blocksBetween(sentences: Sentence[], from: number, to: number): number {
  let n = 0;
  for (let i = from + 1; i <= to; i++) if ((sentences[i] as Sentence).blockStart) n++;
  return n;
}

/** A thing the sentence speaks of without naming it: the page's subject. */
const NAMES_ITS_SUBJECT =
  /\bth(is|ese) (command|helper|function|method|module|class|option|parameter|setting|variable|program|tool|utility|package|library|interface|macro|routine|hook|extension|plugin|feature|service|product)s?\b/i;

function includesWords(text: string, name: string): boolean {
  return text.toLowerCase().includes(name.toLowerCase());
}

/** Whether one text says the other, word for word (case, punctuation and spacing aside). */
function repeats(a: string, b: string): boolean {
  const words = (text: string) => ` ${(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(' ')} `;
  const [x, y] = [words(a), words(b)];
  return x.includes(y) || y.includes(x);
}

/** A line that ends like no sentence ("Jasmine Pearls — £9.00 / 50 g") closed with a full stop, so the next one does not run into it. */
function withFullStop(text: string): string {
  return ENDS_SENTENCE.test(text) ? text : `${text}.`;
}

/** The first `limit` words of a sentence, ending in "…" when cut. */
function clip(text: string, limit: number): string {
  const words = text.split(' ');
  return words.length <= limit ? text : `${words.slice(0, limit).join(' ')}…`;
}

interface Scored {
  passage: number;
  index: number;
  score: number;
}

/**
 * The kinds of answer a question may ask for, first match wins: whether it asks, whether a text
 * states one (a way of paying, an amount, a duration, a time or a date, a default), and whether a main quote stating
 * one answers alone (composeAnswer: no related page's sentence that states none).
 */
const ANSWER_KINDS: [asks: (message: string) => boolean, states: (text: string) => boolean, alone: boolean][] = [
  [asksForPaymentMethod, statesPaymentMethod, true],
  [mayAskForPrice, statesPrice, true],
  [asksForDuration, statesDuration, true],
  [asksForTime, statesTime, true],
  // A question naming a default need not ask for one ("Why do my default argument lists keep values
  // between calls?"): other pages may say why.
  [asksForDefault, statesDefault, false],
];

/** Above any coverage of the question's words: the sentence stating what a stated question asks for is the answer. */
const STATED_WEIGHT = 10;

/** How much more a sentence stating the kind of answer asked for counts (scoredSentences). */
const KIND_LIFT = 1.5;

/** Far below any coverage a word gives: it orders only sentences that hold as much of the question. */
const HEADING_TIE = 1e-3;

/** A table row's first cell that labels the row ("Description:"). */
const LABEL_CELL = /^[^|]{1,40}:\s\|/;

/** The best-scored of a passage's sentences (the first of equals). */
function bestOf(scored: Scored[]): Scored | undefined {
  let best: Scored | undefined;
  for (const s of scored) if (!best || s.score > best.score) best = s;
  return best;
}

/** Every sentence of a passage that may answer, with its score, in page order. */
function scoredSentences(
  terms: QueryTerm[],
  sentences: Sentence[],
  passage: number,
  context: number,
  wanted?: Wanted,
  kind?: (text: string) => boolean,
  /** The passage's section heading: what a table opening the passage is named by (tableAt). */
  sectionHeading?: string | null,
): Scored[] {
  const out: Scored[] = [];
  // How much of the question the heading line above a sentence holds ("Takeaway and delivery" above
  // "Pizza and pasta can be ordered for collection"): it decides only between sentences that hold the
  // same of the question's words — none, when only a heading names the topic, or "lessons" in each
  // course's section, for "Can I have lessons online?" under "Online lessons". (Weighed beside the
  // sentence's own words, it picked worse ones on the documentation sites.)
  let under = 0;
  let heading = sectionHeading ?? '';
  sentences.forEach((s, index) => {
    if (isHeadingLine(sentences, index)) {
      heading = bareHeading(s.text);
      under = coverage(terms, analyze(heading));
    }
    // A table's row counts when it holds a word of the question, unless it is the table's first row
    // (the columns' names, when there are any).
    // A first row whose first cell is a label ("Description: | Redirects http: traffic to https:", an
    // Apache directive's table) is a row of data too: columns' names end with no colon.
    const dataRow = s.row && ((index > 0 && (sentences[index - 1] as Sentence).row) || LABEL_CELL.test(s.text));
    // The columns' names count for the whole table when the question asks about it as a whole (tableAt).
    const table = s.row && !dataRow ? tableAt(sentences, index, terms, sectionHeading) : undefined;
    // So does a line that states what a contact question asks for, sentence or not (a footer's
    // "42 Dale Street, Sheffield S1 4GH · Tel 0114 496 0321").
    const contactLine = s.line && !s.prose && !isHeadingLine(sentences, index) && wanted?.states(s.text) === true;
    // And a bare price right under the name it prices ("The Grand" and "£60" on a shop's page), by the name's words.
    const priced =
      !s.prose && !s.row && s.line && s.words <= 6 && under > 0 && index > 0 && isHeadingLine(sentences, index - 1) && statesPrice(s.text);
    // And a "label: value" line that holds a word of the question ("Saturday: 8am–4pm"), as a row of two cells.
    const labelled = isLabelLine(s);
    // And an item of a list under a heading, no sentence introducing it ("Why choose us" and "All work
    // guaranteed for 12 months"), as a label line.
    const item = !s.prose && listItemUnderHeading(sentences, index);
    // And a line of a business's details, a footer's ("… · Registered in England no. 08812345 · Regulated by the ICAEW").
    const details = detailsLine(s);
    if (!s.prose && !dataRow && !contactLine && !priced && !labelled && !item && !table && !details) return;
    // A sentence introducing a list holds its items ("We work across Leeds, including:" and "Otley"):
    // they are quoted after its colon.
    const list = s.prose && /:$/.test(s.text) ? listItemsAt(sentences, index + 1) : undefined;
    // Long sentences cover more words by being long: a mild penalty past 40 words. A passage whose
    // title or heading names the topic lifts its sentences a little. A sentence stating what a
    // contact question asks for (the address, the phone number) is the answer, whatever its words.
    const covered = priced ? under : coverage(terms, analyze(table ? table.names : list ? `${s.text} ${list.lines.join(' ')}` : s.text));
    if (!contactLine && (s.row || labelled || item || details) && covered === 0) return;
    // A sentence stating the kind of answer the question asks for (an amount for "how much", a
    // duration for "how long") and holding a word of it counts as if it held half as much again.
    // A table states it when one of its rows does, read under the columns' names ("Per night" above "from £110").
    const states = (test: ((text: string) => boolean) | undefined) =>
      test !== undefined && (table ? sentences.slice(index + 1, table.end).some((r) => test(`${s.text}\n${r.text}`)) : test(s.text));
    const lift = covered > 0 && states(kind) ? KIND_LIFT : 1;
    // What is wanted may be said by the sentence under its heading ("Join our team" above "We are always
    // looking for reliable cleaners"), half as surely as by the sentence itself ("Takeaway and delivery"
    // above "Pizza and pasta can be ordered for collection", beside "We deliver through Deliveroo") — as
    // surely by a table's row (the "Delivery" table's "USA and Canada — 5–8 working days; £22").
    const wantedShare =
      wanted === undefined
        ? 0
        : states(wanted.states)
          ? 1
          : wanted.underHeading === true && heading !== '' && wanted.states(`${heading}: ${s.text}`)
            ? s.row
              ? 1
              : 0.5
            : 0;
    const score =
      (lift * covered * (1 + 0.25 * context)) / (1 + Math.max(0, s.words - 40) / 40) +
      wantedShare * (wanted?.weight ?? 0) +
      HEADING_TIE * under;
    out.push({ passage, index, score });
  });
  return out;
}

/**
 * What a question asks a sentence to state, whatever its words (a contact question's details, how the
 * business is paid…), and how much a sentence stating it counts beside the question's words.
 */
interface Wanted {
  states: (text: string) => boolean;
  weight: number;
  /** Whether a sentence states it together with the heading it stands under. */
  underHeading?: boolean;
}

/** What separates a footer's details ("Fenwick & Hale Ltd · 3 Market Row, Norwich NR2 1NB · Regulated by the ICAEW"). */
const DETAILS_SEPARATOR = ' · ';

/** A line of three or more details, a footer's: not prose, each of its parts a fact of the business. */
function detailsLine(s: Sentence): boolean {
  return !s.prose && s.line && !s.row && s.text.split(DETAILS_SEPARATOR).length >= 3;
}

/** Rows at most of a table quoted whole (tableAt). */
const TABLE_ROWS = 8;

/**
 * The rows under a table's first row (the index after them) and what names the table (that row and the
 * heading line right above it), when that row names the columns (namesColumns; no label) and none of
 * the two to TABLE_ROWS rows under it holds a word of the question the names do not: a question about
 * the table as a whole — "How much is a ticket?" of "Ticket | Price" above "Adult | £9.50" and "Child
 * (5–16) | £4.50", "What are the opening times?" of the table under "Opening times", "What are your room
 * rates?" of "Room | Per night" above "Family room | £120". A row that holds one answers alone
 * ("How much is a double room?": rowSentence).
 */
function tableAt(
  sentences: Sentence[],
  index: number,
  terms: QueryTerm[],
  sectionHeading?: string | null,
): { end: number; names: string } | undefined {
  const s = sentences[index] as Sentence;
  if (!s.row || sentences[index - 1]?.row || LABEL_CELL.test(s.text) || !namesColumns(sentences, index)) return undefined;
  let end = index + 1;
  while (sentences[end]?.row) end++;
  const rows = sentences.slice(index + 1, end);
  // The heading line above it, or the section's heading when the table opens the passage.
  const above = index > 0 ? (isHeadingLine(sentences, index - 1) ? (sentences[index - 1] as Sentence).text : '') : (sectionHeading ?? '');
  const names = `${above} ${s.text}`;
  const named = new Set(analyze(names).map((t) => t.stem));
  const rest = terms.filter((t) => !named.has(t.stem));
  if (rows.length < 2 || rows.length > TABLE_ROWS || rows.some((r) => coverage(rest, analyze(r.text)) > 0)) return undefined;
  // As many words as an answer beside a related page's sentence holds: quoted whole, or not at all.
  const words = rows.reduce((n, _, k) => n + rowSentence(sentences, index + 1 + k).split(' ').length, 0);
  return words <= MAIN_WORDS_WITH_RELATED ? { end, names } : undefined;
}

/** The sentences a quote from `index` may go on with: to the next heading, within what a quote holds beside related pages. */
function quotedSection(sentences: Sentence[], index: number): string[] {
  const out: string[] = [];
  for (let i = index, words = 0; i < sentences.length && words < MAIN_WORDS_WITH_RELATED; i++) {
    if (i > index && isHeadingLine(sentences, i)) break;
    const s = sentences[i] as Sentence;
    out.push(s.text);
    words += s.words;
  }
  return out;
}

/** The sentence of `best`'s paragraph just before it, when it states the kind of answer asked for and `best` does not (composeAnswer), scored as `best`. */
function statedBefore(best: Scored, sentences: Sentence[], scored: Scored[], kind: (text: string) => boolean): Scored | undefined {
  const at = sentences[best.index] as Sentence;
  const before = sentences[best.index - 1];
  if (at.blockStart || !at.prose || kind(at.text) || !before?.prose || !kind(before.text)) return undefined;
  const held = scored.find((s) => s.index === best.index - 1);
  return held ? { ...held, score: best.score } : undefined;
}

/**
 * Whether a related page's sentence can be quoted alone: not one that leans on the one before it or
 * introduces what follows it, nor a table's row (out of its table a keyboard shortcut "doesn't work on
 * Linux"), nor a question (a FAQ's: it asks, it does not answer), nor a numbered heading or a table of
 * contents' entry ("3.2.2. I installed Knoppix… on my hard disk."), nor what the answer already says (a
 * directive's description on its module's page and again in the quick reference).
 */
function standsAlone(sentence: Sentence, said: string[]): boolean {
  return !(
    sentence.words < 6 ||
    sentence.row ||
    detailsLine(sentence) ||
    sentence.numbered ||
    POINTS_BACK.test(sentence.text) ||
    POINTS_AROUND.test(sentence.text) ||
    /[:?]$/.test(sentence.text) ||
    said.some((text) => repeats(text, sentence.text))
  );
}

/** Words of the home page's opening quoted for "what do you do?" (chat/about-question.ts). */
const OPENING_WORDS = 60;
/** An opening paragraph this short ("Time tracking for small teams.") goes on into the next one. */
const OPENING_PARAGRAPH_WORDS = 20;
/** A manual's front matter says what may be done with it, not what it is about. */
const LICENCE =
  /\b(?:permission is (?:hereby )?granted|free software|redistribut\w*|licen[cs]e[ds]?|verbatim cop\w*|all rights reserved|without (?:any )?warranty)\b/i;

/** A name in lower case and what it is: "aptitude is a…", "git is the…". */
const DEFINED_NAME = /^\p{Ll}[\p{L}\p{N}._-]* (?:is|are) (?:a|an|the)\b/u;

/**
 * What the business says of itself, for "what do you do?", "what is Oakfield Yoga?": the first prose of
 * its home page — the paragraph under its name or headline, not the menu, a heading or a question —
 * under what names it ("Oakfield Yoga: A small, friendly studio above the bakery…"). Empty text when the
 * passages hold no whole sentence.
 */
export function openingOf(passages: ChatPassage[]): ExtractiveAnswer {
  const says = (s: Sentence) => s.prose && !/\?$/.test(s.text) && !LICENCE.test(s.text);
  // It opens with a statement: a capital, a full stop at its end — not a link's words ("RPM-based Systems (Red
  // Hat / CentOS / Fedora)"), a list of figures' entry ("2.5. Save screen when…") or a footnote ("[a] unless…").
  // A name written in lower case opens one when it says what the name is ("aptitude is a featureful package
  // manager for Debian…").
  const opens = (s: Sentence) =>
    says(s) && s.words >= 4 && !s.numbered && (/^[\p{Lu}\p{N}"“]/u.test(s.text) || DEFINED_NAME.test(s.text)) && /[.!]$/.test(s.text);
  for (const [k, passage] of passages.entries()) {
    // The chunks are each page's first ones, in order (db/pages.ts): a page's first opens it.
    const sentences = sentencesOf(passage.content, passages.findIndex((p) => p.url === passage.url) === k);
    const first = sentences.findIndex(opens);
    if (first < 0) continue;
    const picked: string[] = [];
    let words = 0;
    for (let i = first; i < sentences.length; i++) {
      const s = sentences[i] as Sentence;
      if (!says(s)) break;
      if (picked.length > 0 && (words + s.words > OPENING_WORDS || (s.blockStart && words >= OPENING_PARAGRAPH_WORDS))) break;
      picked.push(withFullStop(s.text));
      words += s.words;
    }
    return underItsName(passage, sentences, first, picked.join(' '), k);
  }
  return { text: '', used: [], score: 0 };
}

/**
 * The client's prices, for "what are your prices?": of the price list's passage (db/pages.ts
 * priceListChunks), its lines stating an amount in page order — a table's rows read as sentences with
 * their columns' names, a price list's lines, sentences — under what names it, within a quote's words
 * ("Prices — Consultation (15 minutes) — Price: £52. Repeat consultation within 7 days — Price: £28. …").
 */
export function priceListOf(passages: ChatPassage[]): ExtractiveAnswer {
  const passage = passages[0];
  if (!passage) return { text: '', used: [], score: 0 };
  const sentences = sentencesOf(passage.content);
  const picked: string[] = [];
  let first = -1;
  let words = 0;
  for (const [i, s] of sentences.entries()) {
    if (!statesPrice(s.text) || (!s.prose && !s.line && !s.row)) continue;
    // Each ends with its full stop: a row's "(minimum 2 hours)" ran into the next row's name.
    const stated = (s.row ? keepTogether(rowSentence(sentences, i)) : s.text).replace(/(?<![.!?])$/, '.');
    // An amount alone at the end ("Soft lambswool scarf, 180 cm long, in twelve colours. £45.") prices
    // what its section names: "Lambswool scarf: £45."
    const bare = s.row ? undefined : BARE_AMOUNT.exec(stated)?.[1];
    const name = bare ? sectionNameOf(passage, sentences, i) : undefined;
    const text = bare && name ? `${name}: ${bare}` : stated;
    const count = text.split(/\s+/).length;
    if (picked.length > 0 && words + count > MAIN_WORDS) break;
    if (first < 0) first = i;
    picked.push(text);
    words += count;
  }
  if (first < 0) return { text: '', used: [], score: 0 };
  return underItsName(passage, sentences, first, picked.join(' '), 0, (sentences[first] as Sentence).row ? ' — ' : ': ');
}

/** An amount alone, or alone after a sentence's end: "£129.", "From £35.", "… in twelve colours. £45." */
const BARE_AMOUNT = /(?:^|[.!?]\s+)((?:from\s+)?(?:[$€£¥₹]\s?\d[\d.,]*|\d[\d.,]*\s?[€£¥₹])(?:\s?\/\s?[\w ]{1,8})?\.?)$/i;

/**
 * The name of the section the sentence at `index` is in: the heading line opening it ("Leith cardigan",
 * then "Lightweight merino… £145."), or the passage's heading for its first section. None when another
 * price stands between them: it is that one's.
 */
function sectionNameOf(passage: ChatPassage, sentences: Sentence[], index: number): string | undefined {
  for (let k = index - 1; k >= 0; k--) {
    const s = sentences[k] as Sentence;
    if (statesPrice(s.text)) return undefined;
    if (s.line && !s.prose && !s.row && s.blockStart && !/:$/.test(s.text)) return s.text;
  }
  return passage.heading ?? undefined;
}

/** A quote of the k-th passage under what names it; a headline of sentences ("Track time. Send invoices. Get paid.") names nothing. */
function underItsName(passage: ChatPassage, sentences: Sentence[], index: number, said: string, k: number, colon = ': '): ExtractiveAnswer {
  const quote = stripCitationMarks(said);
  const topic = topicOf(passage, sentences, index, quote);
  return { text: `${/[.!?]\s/.test(topic) ? '' : topicLead(topic, colon)}${quote} [1]`, used: [k], score: 1 };
}

/**
 * What stands before a quote named by `topic`: a FAQ's question as on the page ("Are your teas organic?
 * About half…"), a topic with a colon of its own under a dash ("Coming next: Boats of the Swale — Opens
 * 14 June."), else the topic and `colon`. Nothing without a topic.
 */
function topicLead(topic: string, colon: string): string {
  if (!topic) return '';
  return /\?$/.test(topic) ? `${topic} ` : `${topic}${topic.includes(':') ? ' — ' : colon}`;
}

export interface ExtractiveAnswer {
  text: string;
  /** Passages quoted (one per page), in the order quoted: [k] cites the k-th. */
  used: number[];
  /** The main sentence's share of the question's words (0 when nothing matched). */
  score: number;
}

/**
 * The answer from passages ranked best first (the retrieval keeps a page's chunks together, best
 * page first). Empty text when no passage has a whole sentence to quote.
 */
export function composeAnswer(
  query: string,
  passages: ChatPassage[],
  site?: SiteSpecificity,
  message?: string,
  /** The client's chunks: how far its word statistics mean anything (ranking.ts siteSize). */
  siteChunks?: number,
): ExtractiveAnswer {
  // The words the retrieval searched beside the visitor's (a contact page's words, "weekend" for a
  // Saturday) weigh as context words here too: "We are closed at weekends" answers "open on Saturday?".
  const terms = queryTerms(searchedQuery(query, message).query, site, message ?? query);
  const split = passages.map((p) => sentencesOf(p.content));
  const contact = asksForContact(message ?? query);
  const asked = message ?? query;
  // What a contact question or one answered by a page stating it (stated-questions.ts: how the business is
  // paid, whether it delivers…) asks for is the answer, whatever its words ("We accept cards and bank
  // transfers" for "do you take cash?"). A contact detail counts as one word of the question more (a footer's
  // line may state it beside better sentences); a stated question's answer is a sentence that states it,
  // alone or under its heading, above any other.
  const stated = contact ? undefined : statedQuestion(asked);
  const wanted: Wanted | undefined = contact
    ? { states: (text: string) => statesContact(text, contact), weight: 1 }
    : stated && { states: stated.states, weight: STATED_WEIGHT, underHeading: true };
  // A price asked per a unit is stated per that unit ("£19 an hour" for "how much do you charge per hour").
  const unit = rateUnitAsked(asked);
  const [, kind, kindAlone] = unit
    ? [undefined, (text: string) => statesRate(text, unit), true]
    : (ANSWER_KINDS.find(([asks]) => asks(asked)) ?? []);
  const scored = passages.map((p, i) =>
    scoredSentences(terms, split[i] as Sentence[], i, coverage(terms, analyze(`${p.title} ${p.heading ?? ''}`)), wanted, kind, p.heading),
  );
  const best = scored.map(bestOf);
  const pageOf = (i: number) => (passages[i] as ChatPassage).url;
  const topPage = passages[0]?.url;

  // The main answer: the best sentence of the best page (the retrieval ranks pages: measured on the
  // bench, letting another page's better-covering sentence lead cost recall@1). Another page leads
  // only when the best page has no whole sentence, or none with a word of the question.
  const onTop = best.filter((b): b is Scored => b !== undefined && pageOf(b.passage) === topPage);
  const elsewhere = best.filter((b): b is Scored => b !== undefined && pageOf(b.passage) !== topPage);
  const byScoreDesc = (a: Scored, b: Scored) => b.score - a.score || a.passage - b.passage;
  let main: Scored | undefined = onTop.sort(byScoreDesc)[0];
  if (!main || main.score === 0) main = elsewhere.sort(byScoreDesc).find((b) => b.score > 0) ?? main ?? elsewhere[0];
  if (!main) return { text: '', used: [], score: 0 };
  const sentences = withIntroduced(split[main.passage] as Sentence[], (passages[main.passage] as ChatPassage).continuation);
  // A question for a kind of answer (an amount, a duration, a time, a default) whose best sentence states
  // none, right after a sentence of its paragraph that states one: that one answers, and the quote goes
  // on with the best ("Defaults to … (normally 5432)." before "If you specify a port other than the
  // default port…", for "whats the default port"; "Until 31 May." before what the exhibition shows, for
  // "When does the diving exhibition end?").
  const chosen = kind ? (statedBefore(main, sentences, scored[main.passage] as Scored[], kind) ?? main) : main;
  const mainPage = pageOf(chosen.passage);

  // Related pages: their best sentence, when it is about the question too.
  const related: { passage: number; text: string; words: number }[] = [];
  const seenPages = new Set([mainPage]);
  const floor = siteChunks === undefined ? 0 : RELATED_SMALL_SITE_COVERAGE * (1 - siteSize(siteChunks));
  // Each page's first passage whose best sentence can stand alone gives it; when none's can, the best of
  // the others that can ("In order to remove whole directory trees, shutil.rmtree() can be used." below
  // a best sentence that points back), if it is about the question too.
  const fallback = new Map<string, Scored>();
  // A main quote that states the kind of answer asked for (an amount, a duration…) is the answer; a
  // related page's sentence that states none only shares a word with the question ("How long does a
  // divorce take?": "The process takes at least 26 weeks.", not the fees page's "an uncontested divorce").
  const kindStated = kindAlone === true && kind !== undefined && quotedSection(sentences, chosen.index).some((t) => kind(t));
  const eligible = (b: Scored) =>
    b.score >= RELATED_SHARE * chosen.score &&
    b.score >= floor &&
    sentenceAt(b).words <= RELATED_WORDS &&
    (!kindStated || kind(sentenceAt(b).text));
  // What the answer says: the answering sentence and those the quote may go on with (as many words as
  // a quote holds), and the related sentences already chosen.
  const quotable: string[] = [];
  for (let i = chosen.index, words = 0; i < sentences.length && words < MAIN_WORDS; i++) {
    const next = sentences[i] as Sentence;
    if (next.prose || i === chosen.index) quotable.push(next.text);
    words += next.words;
  }
  const said = () => [...quotable, ...related.map((r) => r.text)];
  const sentenceAt = (b: Scored) => (split[b.passage] as Sentence[])[b.index] as Sentence;
  best.forEach((b, i) => {
    const url = pageOf(i);
    if (seenPages.has(url) || chosen.score === 0) return;
    if (b && eligible(b) && standsAlone(sentenceAt(b), said())) {
      seenPages.add(url);
      related.push({ passage: i, text: sentenceAt(b).text, words: sentenceAt(b).words });
      return;
    }
    const other = (scored[i] as Scored[])
      .filter(eligible)
      .sort((x, y) => y.score - x.score || x.index - y.index)
      .find((x) => standsAlone(sentenceAt(x), said()));
    const kept = fallback.get(url);
    if (other && (!kept || other.score > kept.score)) fallback.set(url, other);
  });
  for (const [url, b] of fallback) {
    if (seenPages.has(url) || !standsAlone(sentenceAt(b), said())) continue;
    seenPages.add(url);
    related.push({ passage: b.passage, text: sentenceAt(b).text, words: sentenceAt(b).words });
  }
  // Cited in the order the retrieval ranked their pages.
  related.sort((a, b) => a.passage - b.passage);

  // The main quote has what the related sentences leave of the answer's words, and its answering sentence whole.
  const relatedWords = related.reduce((n, r) => n + r.words, 0);
  const budget =
    related.length > 0
      ? Math.min(MAIN_WORDS, Math.max(MAIN_WORDS_BESIDE_RELATED, ANSWER_WORDS - relatedWords, (sentences[chosen.index] as Sentence).words))
      : MAIN_WORDS;
  // The main quote under what it is about, then the related pages' sentences, each cited.
  const answerWith = (said: string, from: number, titled = true, colon = ': '): ExtractiveAnswer => {
    const named = titled ? topicOf(passages[chosen.passage] as ChatPassage, sentences, from, said) : '';
    // Contact details quoted under a section that is not about them (a footer folded into the home page's
    // last section, "Gift cards"): the details say what they are.
    const topic = named && contact && wanted?.states(said) && !namesContactSection(named) ? '' : named;
    // A field's label that only says it describes ("Description: If this option is true…") goes when the
    // topic names the entry; a warning's or a note's stays.
    const label = /^([^:]{1,30}):\s+/.exec(said);
    const quoted = topic && label && /^(?:description|details|summary)$/i.test(label[1] as string) ? said.slice(label[0].length) : said;
    // A "Saturday: 8am–4pm" line under its topic with a dash (`colon`), not a second colon.
    const lead = topicLead(topic, colon);
    // An opening fence stands at a line's start (Markdown's rule): the topic ends its own line.
    const opening = quoted.startsWith(CODE_FENCE) && lead ? `${lead.trimEnd()}\n` : lead;
    // A closing fence stands alone on its line (Markdown's rule, and the widget's): the marker goes below it.
    const mark = quoted.endsWith(CODE_FENCE) ? '\n[1]' : ' [1]';
    const parts = [`${opening}${quoted}${mark}`, ...related.map((r, k) => `${stripCitationMarks(r.text)} [${k + 2}]`)];
    return { text: parts.join('\n\n'), used: [chosen.passage, ...related.map((r) => r.passage)], score: chosen.score };
  };
  // A table's row, a line of contact details or a bare price answers alone, read as a sentence: what follows it is other things.
  const alone = sentences[chosen.index] as Sentence;
  // A table the question asks about as a whole: its rows, each read as a sentence, under its name.
  const table = alone.row ? tableAt(sentences, chosen.index, terms, (passages[chosen.passage] as ChatPassage).heading) : undefined;
  if (table) {
    const rows = sentences.slice(chosen.index + 1, table.end).map((_, k) => keepTogether(rowSentence(sentences, chosen.index + 1 + k)));
    return answerWith(stripCitationMarks(rows.join(' ')), chosen.index, true, ' — ');
  }
  if (!alone.prose) {
    // A line of contact details says what it is; the section it sits in (a footer under the home page's last heading) does not.
    // Of a line of other details, the parts that hold the question's words: "Regulated by the ICAEW", not the address.
    const parts = detailsLine(alone) && !wanted?.states(alone.text) ? alone.text.split(DETAILS_SEPARATOR) : undefined;
    if (parts) {
      const held = parts.filter((p) => coverage(terms, analyze(p)) > 0).join(DETAILS_SEPARATOR);
      return answerWith(stripCitationMarks(keepTogether(withFullStop(held))), chosen.index, false);
    }
    const line = alone.row ? rowSentence(sentences, chosen.index) : withFullStop(alone.text);
    return answerWith(stripCitationMarks(keepTogether(line)), chosen.index, !wanted?.states(alone.text), isLabelLine(alone) ? ' — ' : ': ');
  }
  // The sentence most like the question may be a question itself — a FAQ's, or the page asking what it
  // answers next: the answer is what follows it.
  const asks = /\?$/.test((sentences[chosen.index] as Sentence).text) && sentences[chosen.index + 1]?.prose === true;
  // So may a sentence in the asker's words that shows what they see ("When I run irexec I get this
  // error message:", the output below it): the answer follows the output, and the quote opens with both.
  const shown = asks ? undefined : shownProblemAt(sentences, chosen.index);
  const answering = asks ? chosen.index + 1 : (shown?.end ?? chosen.index);
  let start = answering;
  // A sentence that points back brings what it points at: the sentence, or the command or code
  // line, just before it ("ALTER TABLE products ADD COLUMN description text; That will cause…"),
  // and that one's own antecedent when it points back too (two at most).
  let leading = (sentences[start] as Sentence).words;
  // Lines of code the quote brings along, fenced: the command that cut a sentence in two (the sentence
  // comes whole: its opening, the command on its lines, and the rest), a statement "this" points back at.
  const commandLines = new Set<number>();
  if (shown && leading + shown.words <= budget) {
    for (let i = chosen.index + 1; i < shown.end; i++) commandLines.add(i);
    start = chosen.index;
    leading += shown.words;
  }
  const cutAbove = answering === chosen.index ? restAfterExample(sentences, start) : undefined;
  if (cutAbove && cutAbove.words <= budget) {
    for (let i = cutAbove.start + 1; i < start; i++) commandLines.add(i);
    start = cutAbove.start;
    leading = cutAbove.words;
  }
  for (let step = 0; step < 2 && answering === chosen.index; step++) {
    const opener = sentences[start] as Sentence;
    const before = sentences[start - 1];
    if (!leansBack(opener.text) || !before) break;
    const cut = cutByCommand(sentences, start - 1);
    if (cut) {
      if (leading + cut.words > budget) break;
      for (let i = cut.start + 1; i < start - 1; i++) commandLines.add(i);
      start = cut.start;
      leading += cut.words;
      continue;
    }
    if (!(before.prose || CODE.test(before.text)) || leading + before.words > budget) break;
    // A statement it points back at ("CREATE INDEX ex2 ON tab2(b,c) WHERE c IS NOT NULL;", then "Then
    // any query that uses…") is a line of code: fenced, not closed with a full stop.
    if (!before.prose) commandLines.add(start - 1);
    start--;
    leading += before.words;
  }
  // A sentence of a FAQ's answer is quoted from the answer's start ("Yes. You can use cron-apt; …" before
  // "By default it just updates the package list…"), when the start is close enough to quote it too.
  const opening = answering === chosen.index ? answerOpening(passages[chosen.passage] as ChatPassage, sentences, start) : undefined;
  if (opening !== undefined) {
    const before = sentences.slice(opening, start).reduce((n, s) => n + s.words, 0);
    if (leading + before <= budget) {
      start = opening;
      leading += before;
    }
  }
  // Prose sentences, and a code example where a sentence introduces one: its lines stay lines.
  const picked: { text: string; code: boolean }[] = [];
  // A page that says the same sentence twice (a summary, then the section) is quoted saying it once.
  const seen = new Set<string>();
  let words = 0;
  let answeringAt = 0;
  for (let i = start; i < sentences.length; i++) {
    const s = sentences[i] as Sentence;
    const lead = i < answering;
    // A question opening a block past the answer is the page's next question (a FAQ's): another topic.
    if (i > answering && s.blockStart && /\?$/.test(s.text)) break;
    const last = picked.at(-1);
    if (!s.prose && !lead) {
      const introduced = last && !last.code && /:$/.test(last.text);
      // Contact details it introduces are part of the sentence: quoted after its colon, on its line.
      const contact = introduced ? contactLinesAt(sentences, i) : undefined;
      if (contact && last) {
        const contactWords = contact.lines.join(' ').split(' ').length;
        if (words + contactWords > budget) break;
        // Closed with a full stop, as the sentence it ends (a number or address runs into the next one otherwise).
        last.text = `${last.text} ${contact.lines.map(keepTogether).join('; ')}`.replace(/(?<![.!?])$/, '.');
        words += contactWords;
        i = contact.end - 1;
        continue;
      }
      const list = introduced ? listItemsAt(sentences, i) : undefined;
      if (list && last) {
        const listWords = list.lines.join(' ').split(' ').length;
        if (words + listWords > budget) break;
        // Commands, each a block of its own ("run the following commands:", then "$ python manage.py
        // runserver" and its Windows twin), are lines of code, fenced, not items joined with commas.
        if (list.lines.every((line) => CODE.test(line))) picked.push({ text: codeLines(sentences, i, list.end).join('\n'), code: true });
        else last.text = `${last.text} ${list.lines.join(', ')}.`;
        words += listWords;
        i = list.end - 1;
        continue;
      }
      // So is a block of code the sentence before it illustrates, colon or not.
      const block = last && !last.code && (introduced || s.blockStart) ? codeExampleAt(sentences, i) : undefined;
      const example = block && (introduced || illustrates((last as { text: string }).text, block.lines)) ? block : undefined;
      // Else the lines of one block it introduces, an option and what it does on each.
      const lines = introduced && !example ? blockLinesAt(sentences, i) : undefined;
      if (lines && last) {
        // As many of the lines as the answer has room for, two at least, joined by semicolons.
        const fit: string[] = [];
        let lineWords = 0;
        for (const line of lines.lines) {
          const n = line.split(' ').length;
          if (words + lineWords + n > budget) break;
          fit.push(line.replace(/[.;,]$/, ''));
          lineWords += n;
        }
        if (fit.length < 2) break;
        last.text = `${last.text} ${fit.join('; ')}${fit.length < lines.lines.length ? '; …' : '.'}`;
        words += lineWords;
        i = fit.length < lines.lines.length ? sentences.length : lines.end - 1;
        continue;
      }
      const exampleWords = example ? example.lines.join(' ').split(' ').length : 0;
      if (!example || words + exampleWords > budget) break;
      // "…URLs such as the following" ends with the colon the page left out.
      if (last && !introduced && INTRODUCES.test(last.text)) last.text = last.text.replace(/\.$/, ':');
      picked.push({ text: example.lines.join('\n'), code: true });
      words += exampleWords;
      i = example.end - 1;
      continue;
    }
    if (commandLines.has(i)) {
      // Its lines stay lines, fenced: the sentence's opening ends where they start and goes on after them.
      let end = i + 1;
      while (commandLines.has(end)) end++;
      const lines = codeLines(sentences, i, end);
      i = end - 1;
      picked.push({ text: lines.join('\n'), code: true });
      words += lines.join(' ').split(' ').length;
      continue;
    }
    if (picked.length > 0 && words + s.words > budget) break;
    const key = s.text.toLowerCase().replace(/\s+/g, ' ');
    if (seen.has(key)) continue;
    seen.add(key);
    if (i === answering) answeringAt = picked.length;
    // A price list's line ends with no full stop: it gets one, or the next sentence runs into it. The
    // one that answers is quoted alone: the lines after it price other things.
    const unended = !ENDS_SENTENCE.test(s.text);
    const text = commandLines.has(i + 1) ? s.text : withFullStop(s.text);
    picked.push({ text: picked.length === 0 ? clip(text, budget) : text, code: false });
    words += s.words;
    if (unended && i === answering && statesPrice(s.text)) break;
  }
  // A sentence ending in a colon that points at what follows it ("…with the following restrictions:",
  // "The properties of each object include:") reads cut off last: dropped after the answering sentence.
  // One that says a thing of its own ("…setMaxListeners() can be used to avoid this warning:") and the
  // answering sentence itself end with a full stop instead.
  const endsNeedingMore = () => {
    const text = (picked.at(-1) as { text: string }).text;
    return (
      /:$/.test(text) &&
      needsWhatFollows(
        text,
        picked
          .slice(0, -1)
          .map((p) => p.text)
          .join(' '),
      )
    );
  };
  while (picked.length > answeringAt + 1 && endsNeedingMore()) picked.pop();
  const last = picked.at(-1);
  if (last && !last.code && /:$/.test(last.text)) last.text = `${last.text.slice(0, -1)}.`;
  // The page's own footnote marks would read as citations with no source: only ours stay. A code
  // example stands on lines of its own, fenced as Markdown does (the widget shows it as code).
  const quoted = picked
    .map((p, k) =>
      p.code ? `\n${CODE_FENCE}\n${p.text}\n${CODE_FENCE}\n` : `${k > 0 && !picked[k - 1]?.code ? ' ' : ''}${stripCitationMarks(p.text)}`,
    )
    .join('')
    .trim();
  return answerWith(quoted, start);
}
