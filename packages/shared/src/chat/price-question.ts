import { foldForIntent } from '../intent/classifier.ts';

/**
 * A question for a price is answered only by a passage that states one (docs/retrieval.md,
 * "Declining"). "How much does hosting cost per month?" on a documentation site finds pages about
 * query costs and months; none of them names an amount, so the honest answer is "I don't know" —
 * on a site with a pricing page, the passage holds the amount and the question is answered. The
 * evidence is the site's own text, so it means the same on every site.
 */

// English, Spanish, French, German and Portuguese (the lead classifier's languages), accents folded.
const ASKS_FOR_PRICE = new RegExp(
  [
    String.raw`\bhow much (?:\w+ ){0,6}(?:cost|costs|charge|charged|pay|fee)\b`,
    String.raw`\bhow much is (?:it|that|this|a|an|the)\b(?:\s\w+){0,4}\s(?:per|a) (?:month|year|week|day|night|hour)\b`,
    String.raw`\bwhat(?:'s| is| are) (?:the|your) (?:price|prices|pricing|cost|costs|fee|fees|rates?)\b`,
    String.raw`\b(?:price|prices) (?:of|for)\b|\bpricing\b`,
    String.raw`\b(?:cost|costs)\b.{0,30}\bper (?:month|year|user|seat)\b`,
    String.raw`\bcuanto (?:cuesta|cuestan|vale|valen|cobran|cobras)\b|\bprecio (?:de|del)\b`,
    String.raw`\bcombien (?:coute|coutent|ca coute)\b|\bprix (?:de|du|des)\b`,
    String.raw`\bwas kostet\b|\bwie ?viel kostet\b|\bpreis (?:fur|von)\b`,
    String.raw`\bquanto (?:custa|custam|cobra|cobram)\b|\bpreco (?:de|do|da)\b`,
  ].join('|'),
);

/** An amount with its currency ("$49", "€ 9.99", "49 €", "20 EUR", "12,50 euros"), or "free of charge". */
const STATES_PRICE =
  /[$€£¥₹]\s?\d|\d\s?[$€£¥₹]|\b\d+(?:[.,]\d+)?\s?(?:eur|euros?|usd|dollars?|gbp|pounds|chf|francs?|yen|reais|brl|mxn|cad|aud)\b|\bfree of charge\b|\bno charge\b|\bkostenlos\b|\bgratuit\b|\bgratis\b/i;

export function asksForPrice(message: string): boolean {
  return ASKS_FOR_PRICE.test(foldForIntent(message));
}

/**
 * "How much is a tune-up?", "how much to rent a bike": most likely a price, but "how much is the
 * default heap size?" is not one. Not declined without an amount — only answered, when the best page
 * states none, from the answer page that states one and holds every word of the question the best
 * page holds (retrieval.ts).
 */
const MAY_ASK_FOR_PRICE =
  /\bhow much (?:is|are|for|to|would|will|do|does|did|extra|more)\b|\bcuanto (?:es|son|por)\b|\bcombien (?:pour|est)\b|\bwie ?viel (?:ist|fur)\b|\bquanto (?:e|sao|por)\b/;

export function mayAskForPrice(message: string): boolean {
  const folded = foldForIntent(message);
  return ASKS_FOR_PRICE.test(folded) || MAY_ASK_FOR_PRICE.test(folded);
}

export function statesPrice(text: string): boolean {
  return STATES_PRICE.test(text);
}
