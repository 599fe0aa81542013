import { termRarity } from '../embeddings/local-embedder.ts';
import { analyze } from '../text/text-analysis.ts';
import type { ChatTurn } from './chat-provider.ts';

/**
 * The offline stand-in for "ask the model to rewrite the follow-up": when a message leans on the
 * conversation ("that works, but…", "and over SSL?", "what about Windows?"), the key words of the
 * previous question are put in front of it, so retrieval searches the topic as well as the twist.
 * A message that stands alone is returned unchanged.
 */

// Openers that continue a conversation, in the widget's five languages (accents folded).
const CONTINUATION =
  /^(and|but|also|so|then|what about|how about|ok|okay|cool|great|nice|thanks|thank you|done|that works|same|y|pero|tambien|entonces|y si|vale|et|mais|aussi|alors|et si|d'accord|und|aber|auch|dann|und wenn|ok danke|e|mas|tambem|entao|e se|beleza)\b/;
// Words that point back at something said before.
const ANAPHORA =
  /\b(it|its|that|this|they|them|those|these|there|one|ones|eso|esto|ese|esa|ello|ca|cela|ceci|celui|celle|das|dies|dieser|diese|isso|isto|esse|essa|ele|ela)\b/;

const MAX_PREPENDED_TERMS = 6;

function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .trim();
}

function contentTerms(text: string) {
  return analyze(text).filter((t) => !t.stop && !t.part);
}

export function looksLikeFollowUp(message: string): boolean {
  const folded = fold(message);
  const content = contentTerms(message).length;
  if (CONTINUATION.test(folded)) return true;
  if (content <= 2) return true;
  return ANAPHORA.test(folded) && content <= 6;
}

/** The message with the previous user turn's key terms in front when it is a follow-up. */
export function rewriteFollowUp(message: string, history: ChatTurn[]): string {
  const previous = history.filter((t) => t.role === 'user' && t.content.trim().length > 0).reverse();
  if (previous.length === 0 || !looksLikeFollowUp(message)) return message;
  const present = new Set(contentTerms(message).map((t) => t.stem));
  const picked: { surface: string; rarity: number; order: number }[] = [];
  // The last question first; the one before only when the last was itself too thin to name a topic.
  for (const turn of previous.slice(0, 2)) {
    for (const t of contentTerms(turn.content)) {
      if (present.has(t.stem)) continue;
      present.add(t.stem);
      picked.push({ surface: t.surface, rarity: termRarity(t.surface), order: picked.length });
    }
    if (picked.length >= 3) break;
  }
  if (picked.length === 0) return message;
  const terms = picked
    .sort((a, b) => b.rarity - a.rarity || a.order - b.order)
    .slice(0, MAX_PREPENDED_TERMS)
    .sort((a, b) => a.order - b.order)
    .map((t) => t.surface);
  return `${terms.join(' ')} ${message}`;
}
