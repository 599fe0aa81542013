import { foldForIntent } from '../intent/classifier.ts';

/**
 * A question for a default ("whats the default port", "which socket does lircd listen on by
 * default?"): its answer says what holds when nothing is set ("Defaults to … (normally 5432)",
 * "Default: 10240000", "By default, the socket is /var/run/lirc/lircd"). Like a price or a duration
 * (price-question.ts, duration-question.ts), the kind of answer asked for means the same on every
 * site. The question in the lead classifier's languages, accents folded; the statement in English,
 * as the reference pages that state defaults are. A "default" of the visitor's own code
 * ("default=uuid.uuid4", "get_default()") asks for none.
 */
const ASKS_FOR_DEFAULT =
  /(?<![._])\bdefault\b(?!\s*[=(_.])|\bpor (?:defecto|omision)\b|\bpar defaut\b|\bstandardma(?:ss|ß)ig\b|\bvoreingestellt\b|\bpor padrao\b/;

const STATES_DEFAULT = /\bdefaults?\s+(?:to|is|was|value\s+is)\b|\bdefault(?:\s+value)?\s*[:=]|\(default\b|\bby default\b/i;

export function asksForDefault(message: string): boolean {
  return ASKS_FOR_DEFAULT.test(foldForIntent(message));
}

export function statesDefault(text: string): boolean {
  return STATES_DEFAULT.test(text);
}
