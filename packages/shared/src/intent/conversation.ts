import { detectLeadIntent, foldForIntent } from './classifier.ts';

/**
 * Lead intent that needs the conversation, or that must win over retrieval (docs/providers.md,
 * "Lead intent in a conversation"), in the classifier's five languages:
 *  - `offersContact(reply)`: an assistant turn that ends by asking whether someone should contact
 *    the visitor (the "I don't know" reply does, in every language; a model's own offer too);
 *  - `acceptsContactOffer(message, history)`: the visitor says yes to that offer ("yes please",
 *    "sure", "oui", "ja gerne", "sí", "sim") — and only right after it, and never with a "no";
 *  - `isContactRequestOnly(message)`: a lead message with no other question in it ("call me about a
 *    quote"): the contact offer is the whole answer, and retrieval has nothing to add.
 */

type Turn = { role: 'user' | 'assistant'; content: string };

// Stems of "contact / call / get in touch / reach" as an offer words them, folded (no accents).
const CONTACT_WORDS =
  /\b(contact\w*|call\w*|phone|reach( out)?|get in touch|get back to|follow up|email you|contacto|contactar\w*|comunique\w*|llam\w*|contacte\w*|recontacte\w*|rappel\w*|appel\w*|joindre|meldet|melden|kontaktier\w*|anruf\w*|anrufen|zuruckruf\w*|contato|contatar\w*|contactar|ligar|ligue\w*|retorn\w*)\b/;

/** True when the reply ends with a question that offers contact ("Would you like someone … to contact you?"). */
export function offersContact(reply: string): boolean {
  const t = foldForIntent(reply);
  const end = t.lastIndexOf('?');
  // The question must close the reply (an emoji or a few characters may follow).
  if (end < 0 || t.length - end > 4) return false;
  const start = Math.max(
    t.lastIndexOf('.', end - 1),
    t.lastIndexOf('!', end - 1),
    t.lastIndexOf('?', end - 1),
    t.lastIndexOf('\n', end - 1),
  );
  return CONTACT_WORDS.test(t.slice(start + 1, end));
}

// Words that say yes (folded), per language; a message must contain one of these…
const YES = new Set(
  [
    // en
    'yes yeah yea yep yup ya sure ok okay k alright absolutely definitely certainly please great perfect fine good',
    // es
    'si claro vale dale bueno perfecto genial porfa',
    // fr
    "oui ouais volontiers d'accord daccord parfait super",
    // de
    'ja jawohl gerne gern bitte klar naturlich einverstanden prima super',
    // pt
    'sim claro pode beleza otimo perfeito quero gostaria',
  ]
    .join(' ')
    .split(' '),
);
// …and may otherwise hold only these: thanks, "that would be great", "of course", "bien sûr", "sehr gerne".
const FILLER = new Set(
  [
    "thanks thank you thx that that's thats would be great nice helpful do it i i'd id like love to sounds right",
    // "yes, call me", "sure, have someone email us": more of the same request
    'call contact email me us someone have get touch back',
    'gracias muchas por favor supuesto de acuerdo me gustaria seria estaria bien eso que',
    "merci beaucoup bien sur avec plaisir je veux s'il vous plait svp ce serait c'est tres oui",
    'danke vielen sehr auf jeden fall das ware toll gut schon',
    'obrigado obrigada muito por favor com certeza ser seria isso',
  ]
    .join(' ')
    .split(' '),
);
// Any of these makes it a refusal (or not an answer): "no thanks", "nein danke", "non merci", "não".
const NO = new Set("no nope nah not never dont don't later non pas nein nicht kein keine nao nunca jamais".split(' '));

// Yes said in several words: joined into one before the words are looked up.
const YES_PHRASES: [RegExp, string][] = [
  /of course|go ahead|sounds good|i'?d like that|i would like that|that would be (great|nice|helpful|good)|please do/,
  /por supuesto|me gustaria|de acuerdo/,
  /bien sur|avec plaisir|je veux bien|ce serait (bien|super|parfait)/,
  /auf jeden fall|sehr gerne?|das ware (toll|gut|super|nett)/,
  /com certeza|pode ser|por favor sim/,
].map((re) => [new RegExp(`\\b(${re.source})\\b`, 'g'), 'yes']);

/** True when the message is a short yes (and nothing else) in one of the five languages. */
export function isAcceptance(message: string): boolean {
  let text = foldForIntent(message).replace(/[^\p{L}\p{N}' ]+/gu, ' ');
  for (const [re, word] of YES_PHRASES) text = text.replace(re, word);
  const words = text.split(' ').filter((w) => w.length > 0);
  if (words.length === 0 || words.length > 8) return false;
  if (words.some((w) => NO.has(w))) return false;
  return words.some((w) => YES.has(w)) && words.every((w) => YES.has(w) || FILLER.has(w));
}

/** The visitor accepts the contact offer the assistant's last turn ended with. */
export function acceptsContactOffer(message: string, history: readonly Turn[]): boolean {
  const last = history.at(-1);
  return last?.role === 'assistant' && offersContact(last.content) && isAcceptance(message);
}

// A sentence opening like a question, in the five languages (folded).
const QUESTION_OPENER =
  /^(how|what|why|where|when|which|who|whose|is|are|do|does|did|can|could|should|will|would|como|que|cual|cuales|donde|cuando|cuanto|cuanta|quien|comment|quoi|pourquoi|ou|quand|quel|quelle|quels|quelles|combien|est-ce|wie|was|warum|wo|wann|welche|welcher|welches|wer|wieviel|o que|qual|quais|onde|quanto|quem|por que|porque)\b/;

/**
 * A lead message that asks nothing else: each of its sentences (and clauses joined by ", and") is
 * either a lead request itself or not a question. "Call me about a quote" is; "How much is the
 * premium plan? Please call me." is not — that one is answered, with the contact offer after it.
 */
export function isContactRequestOnly(message: string): boolean {
  if (!detectLeadIntent(message)) return false;
  const parts = message
    .split(/(?<=[.?!;])\s+|\n+|,\s*(?:and|but|also|y|pero|et|mais|und|aber|e|mas)\s+/i)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  return parts.every((s) => detectLeadIntent(s) || !(s.endsWith('?') || QUESTION_OPENER.test(foldForIntent(s))));
}
