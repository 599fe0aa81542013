import { PRICE_STEMS, TIME_STEMS } from '../../chat/ranking.ts';
import { foldForIntent } from '../../intent/classifier.ts';
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

// "…and how do I undo that?": the visitor asks for the inverse of what the previous question did.
const UNDO =
  /\b(undo|revert|reverse|roll ?back|take (it|that|this) back|get rid of (it|that|this)|deshacer|revertir|annuler|defaire|ruckgangig|desfazer)\b/;
/**
 * Actions and their inverses (stems, as analyze() gives them): searching the previous question's
 * action again finds the page that does it, not the one that undoes it. A word of making something
 * new ("new", "fresh") goes with the action.
 */
const INVERSE: Record<string, string[]> = {
  creat: ['drop', 'delete', 'remove'],
  add: ['remove', 'drop', 'delete'],
  make: ['delete', 'remove'],
  insert: ['delete', 'remove'],
  instal: ['uninstall', 'remove'],
  enabl: ['disable'],
  start: ['stop'],
  grant: ['revoke'],
  allow: ['deny', 'revoke'],
  lock: ['unlock'],
  block: ['unblock'],
  attach: ['detach'],
  connect: ['disconnect'],
  mount: ['unmount'],
  regist: ['unregister'],
  subscrib: ['unsubscribe', 'cancel'],
  stage: ['unstage'],
  set: ['unset', 'reset'],
  encrypt: ['decrypt'],
  compress: ['decompress'],
  hide: ['show', 'unhide'],
  open: ['close'],
  book: ['cancel'],
  order: ['cancel'],
  commit: ['revert', 'reset'],
  appli: ['revert'],
};
const CREATION = new Set(['new', 'fresh']);

function contentTerms(text: string) {
  return analyze(text).filter((t) => !t.stop && !t.part);
}

// A question word opening the message: with two words of its own it asks a whole question
// ("How do I book a service?"), where two words alone ("SSL too?", "windows then") lean on the last one.
const ASKS =
  /^(how|what|when|where|why|who|which|can|could|do|does|did|is|are|will|would|should|como|cuando|donde|comment|quand|wie|wann|wo|quando|onde)\b/;

export function looksLikeFollowUp(message: string): boolean {
  const folded = foldForIntent(message);
  const content = contentTerms(message).length;
  if (CONTINUATION.test(folded)) return true;
  if (content <= 1 || (content === 2 && !ASKS.test(folded))) return true;
  return ANAPHORA.test(folded) && content <= 6;
}

// A question about what "it" is like, when or where it is, how often it runs: it names no topic of its own.
const ASKS_ABOUT_IT = new RegExp(
  String.raw`^(?:(?:and|but|so|ok|okay)\s+)?(?:` +
    [
      String.raw`(?:is|are|was|were)\s+(?:it|that|this|they|those|these)\s+(?:\w+\s+)?\w+`,
      String.raw`(?:when|what time)\s+(?:does|do|is|are|will)\s+(?:it|that|they)\s+(?:open|close|start|end|finish|run|leave|arrive|begin)`,
      String.raw`how\s+(?:often|long|late|early|far)\s+(?:does|do|is|are|will)\s+(?:it|that|they)(?:\s+\w+)?`,
      String.raw`how\s+much\s+(?:is|are|does|do|will)\s+(?:it|that|they)(?:\s+cost)?`,
      String.raw`where\s+(?:is|are)\s+(?:it|that|they)`,
    ].join('|') +
    String.raw`)\s*(?:too|then|though)?\s*[?!.]*$`,
);

/**
 * A follow-up that asks what the topic before it is like and names none of its own: "is it free?" after
 * "do you have parking?", "when does it open?", "how often does it run?". What it asks about is the
 * topic it points back at: the words put in front of it are the question's focus, its own words the
 * twist ("free" alone found "we keep emergency slots free"; on a site without parking it is declined).
 * "Does it have wifi?" names a topic ("wifi"), and is not one.
 */
export function namesNoTopic(message: string): boolean {
  return ASKS_ABOUT_IT.test(foldForIntent(message).trim());
}

/**
 * Words (stems, as analyze() makes them: the ranking's lists are the search's lexemes) that ask something
 * of a topic and name none: a price, a time, a measure. Not a day: "and on Sundays?" after the opening
 * hours asks for a page naming Sundays, not one holding the hours' words ("Phone: … during opening hours").
 */
const ASKS_OF_A_TOPIC: ReadonlySet<string> = new Set(
  [...PRICE_STEMS, ...TIME_STEMS, ...'long far often soon early late old big age'.split(' ')].flatMap((word) =>
    analyze(word).map((t) => t.stem),
  ),
);

/**
 * The words of a follow-up's rewrite (`query`, the message behind the words put in front of it) the
 * answer is about: the visitor's own message, or of a follow-up naming no topic (namesNoTopic) the words
 * put in front of it that are the last topic's — the last question that names one ("bus" of "is there a
 * bus?" for "how often does it run?", not the "free" asked before it); all of them when none is.
 */
export function followUpFocus(message: string, query: string, history: ChatTurn[]): string {
  if (query === message || !query.endsWith(message)) return message;
  // A follow-up of no word of its own ("how much?", "when?"), or only of words asking a price, a time or a
  // measure ("what time?", "how far?", "is there a charge?"), asks it of the topic: the topic's words and
  // its own are the focus.
  const ownless = contentTerms(message).every((t) => ASKS_OF_A_TOPIC.has(t.stem));
  if (!ownless && !namesNoTopic(message)) return message;
  const context = query.slice(0, -message.length).split(/\s+/).filter(Boolean);
  const asked = history.filter((t) => t.role === 'user').map((t) => t.content);
  const named = new Set(analyze(asked.findLast((q) => !namesNoTopic(q)) ?? asked.at(-1) ?? '').map((t) => t.stem));
  const topic = context.filter((w) => analyze(w).some((t) => named.has(t.stem)));
  const words = (topic.length > 0 ? topic : context).join(' ');
  return ownless ? `${words} ${message}` : words;
}

/** The message with the previous user turn's key terms in front when it is a follow-up. */
export function rewriteFollowUp(message: string, history: ChatTurn[]): string {
  const previous = history.filter((t) => t.role === 'user' && t.content.trim().length > 0).reverse();
  if (previous.length === 0 || !looksLikeFollowUp(message)) return message;
  const undone = UNDO.test(foldForIntent(message)) ? inverseOf((previous[0] as ChatTurn).content) : undefined;
  if (undone) return undone;
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

/**
 * The previous question with its action inverted ("create a new database" → "drop delete remove
 * database"), or undefined when it names no action we know the inverse of. The visitor's own words
 * ("undo that") are left out: they name no topic, and the search would find pages about undoing.
 */
function inverseOf(question: string): string | undefined {
  const terms = contentTerms(question);
  // The action is the question's first word of content ("How do I *create* a new database?").
  const action = terms[0];
  if (!action || !INVERSE[action.stem]) return undefined;
  const rest = terms.filter((t) => t !== action && !CREATION.has(t.stem)).map((t) => t.surface);
  return [...(INVERSE[action.stem] as string[]), ...rest].join(' ');
}
