import { detectLeadIntent } from '../intent/classifier.ts';
import { contactOfferReply, dontKnowReply, guessLanguage } from './canned-replies.ts';
import type { ChatInput, ChatOutput, ChatPassage, ChatProvider } from './chat-provider.ts';
import { rewriteFollowUp } from './follow-up.ts';
import { termRarity } from './local-embedder.ts';
import { analyze, type Term } from './text-analysis.ts';

/**
 * The offline answerer: no model, so it answers with the site's own words. Sentences of the
 * retrieved passages are scored by how much of the question they cover (words matched through the
 * same tokenizer and stemmer as the local embedder, rare words counting more, one-letter typos
 * forgiven), the best 2–4 are kept in the order they appear on the page, and each passage's
 * sentences end with its citation [k] (k = position in usedPassageIds).
 */
export const EXTRACTIVE_MODEL = 'extractive-v1';

const MAX_SENTENCES = 4;
const MIN_SENTENCES = 2;
const MAX_ANSWER_CHARS = 900;
const MAX_SENTENCE_CHARS = 400;
/** Sentences scoring below this share of the best one are not worth adding. */
const RELATIVE_FLOOR = 0.4;
/** A lead request whose question part covers less than this gets only the contact offer. */
const LEAD_ONLY_COVERAGE = 0.3;

interface QueryTerm {
  stem: string;
  surface: string;
  weight: number;
}

interface Sentence {
  passage: number;
  index: number;
  text: string;
  score: number;
}

function queryTerms(query: string): QueryTerm[] {
  const byStem = new Map<string, QueryTerm>();
  for (const t of analyze(query)) {
    if (t.stop) continue;
    const weight = termRarity(t.surface) * (t.part ? 0.5 : 1);
    const seen = byStem.get(t.stem);
    if (!seen || seen.weight < weight) byStem.set(t.stem, { stem: t.stem, surface: t.surface, weight });
  }
  return [...byStem.values()];
}

/** True when a and b differ by one edit (insert, delete, substitute, swap): "strng" ≈ "string". */
function oneEditApart(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1 || a === b) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/** Share of the query's weight a text covers, in [0, 1]. */
function coverage(terms: QueryTerm[], textTerms: Term[]): number {
  const total = terms.reduce((n, t) => n + t.weight, 0);
  if (total === 0) return 0;
  const stems = new Set(textTerms.map((t) => t.stem));
  let hit = 0;
  for (const q of terms) {
    if (stems.has(q.stem)) hit += q.weight;
    else if (q.surface.length >= 5 && textTerms.some((t) => t.surface.length >= 4 && oneEditApart(q.surface, t.surface)))
      hit += 0.7 * q.weight;
  }
  return hit / total;
}

// Latin-style ends need a space and a capital after them ("e.g. foo" is not an end); CJK ends
// are followed by no space at all.
const UNSPACED_TEXT = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Thai}]/u;
const SENTENCE_END = /(?<=[。！？])\s*|(?<=[.!?])\s+(?=[\p{Lu}\p{N}"'“(¿¡])/u;

export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\n+/)) {
    for (const raw of line.split(SENTENCE_END)) {
      let s = raw.trim();
      // Headings and fragments; CJK packs a sentence into fewer characters.
      if (s.length < (UNSPACED_TEXT.test(s) ? 6 : 15)) continue;
      if (s.length > MAX_SENTENCE_CHARS) {
        const cut = s.lastIndexOf(' ', MAX_SENTENCE_CHARS);
        s = `${s.slice(0, cut > MAX_SENTENCE_CHARS / 2 ? cut : MAX_SENTENCE_CHARS)}…`;
      }
      out.push(s);
    }
  }
  return out;
}

function scoreSentences(terms: QueryTerm[], passages: ChatPassage[]): Sentence[] {
  const out: Sentence[] = [];
  passages.forEach((p, passage) => {
    // A passage whose title or heading names the topic lifts all its sentences a little.
    const context = coverage(terms, analyze(`${p.title} ${p.heading ?? ''}`));
    const rankBoost = 1 / (1 + 0.1 * passage);
    splitSentences(p.content).forEach((text, index) => {
      const words = analyze(text);
      const lengthPenalty = 1 / (1 + Math.max(0, words.length - 40) / 40);
      const score = coverage(terms, words) * lengthPenalty * rankBoost * (1 + 0.25 * context);
      out.push({ passage, index, text, score });
    });
  });
  return out;
}

function choose(sentences: Sentence[]): Sentence[] {
  const ranked = [...sentences].sort((a, b) => b.score - a.score || a.passage - b.passage || a.index - b.index);
  const best = ranked[0];
  if (!best) return [];
  if (best.score === 0) {
    // Retrieval found these passages but no word matches (a semantic match): open the top passage.
    return sentences.filter((s) => s.passage === 0).slice(0, MIN_SENTENCES);
  }
  const chosen: Sentence[] = [];
  let chars = 0;
  for (const s of ranked) {
    if (chosen.length >= MAX_SENTENCES || s.score === 0) break;
    if (chosen.length >= MIN_SENTENCES && s.score < RELATIVE_FLOOR * best.score) break;
    if (chosen.length > 0 && chars + s.text.length > MAX_ANSWER_CHARS) continue;
    chosen.push(s);
    chars += s.text.length;
  }
  if (chosen.length === 1) {
    // One good sentence reads better with the one after it on the page.
    const next = sentences.find((s) => s.passage === best.passage && s.index === best.index + 1);
    if (next && chars + next.text.length <= MAX_ANSWER_CHARS) chosen.push(next);
  }
  return chosen;
}

export function composeExtractiveAnswer(input: ChatInput): ChatOutput {
  const lang = guessLanguage(input.message);
  const leadCaptureIntent = detectLeadIntent(input.message);
  if (input.passages.length === 0) {
    return {
      answer: leadCaptureIntent ? contactOfferReply(input.clientName, lang) : dontKnowReply(input.clientName, lang),
      usedPassageIds: [],
      leadCaptureIntent,
    };
  }
  const terms = queryTerms(input.query || input.message);
  const sentences = scoreSentences(terms, input.passages);
  const bestScore = Math.max(0, ...sentences.map((s) => s.score));
  if (leadCaptureIntent && bestScore < LEAD_ONLY_COVERAGE) {
    return { answer: contactOfferReply(input.clientName, lang), usedPassageIds: [], leadCaptureIntent };
  }
  const chosen = choose(sentences);
  // Passages in the order of their best sentence; within a passage, page order.
  const passageOrder: number[] = [];
  for (const s of [...chosen].sort((a, b) => b.score - a.score)) if (!passageOrder.includes(s.passage)) passageOrder.push(s.passage);
  const parts = passageOrder.map((passage, k) => {
    const text = chosen
      .filter((s) => s.passage === passage)
      .sort((a, b) => a.index - b.index)
      .map((s) => s.text)
      .join(' ');
    return `${text} [${k + 1}]`;
  });
  let answer = parts.join(' ');
  if (leadCaptureIntent) answer += `\n\n${contactOfferReply(input.clientName, lang)}`;
  return { answer, usedPassageIds: passageOrder.map((i) => input.passages[i]!.id), leadCaptureIntent };
}

export function createExtractiveChatProvider(): ChatProvider {
  return {
    kind: 'extractive',
    model: EXTRACTIVE_MODEL,
    async answer(input) {
      input.signal?.throwIfAborted();
      return composeExtractiveAnswer(input);
    },
    async *stream(input) {
      input.signal?.throwIfAborted();
      const output = composeExtractiveAnswer(input);
      // Word by word, like a model would, so the widget's streaming path is the same for both.
      for (const piece of output.answer.match(/\S+\s*|\s+/g) ?? []) yield { type: 'token', text: piece };
      yield { type: 'done', output };
    },
    async rewriteQuery(message, history) {
      return { query: rewriteFollowUp(message, history) };
    },
  };
}
