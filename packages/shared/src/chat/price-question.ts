import { foldForIntent } from '../intent/classifier.ts';
import { boundedMemo } from '../memo.ts';

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
    String.raw`\b(?:hourly|nightly|daily|weekly|monthly|day|hour|night) (?:rates?|price|cost)\b|\brates? (?:per|an?) (?:hour|night|day|week|month)\b`,
    String.raw`\bhow much (?:\w+ ){0,3}(?:per|a|an|each) (?:hour|night|day|week|month|year|person|session|lesson|class)\b`,
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

// The unit a price is asked per ("per hour", "a night", "hourly", "monthly"), in English: the amount that
// answers is one per that unit.
// "a"/"an" only before a time ("a night"): "how much is a lesson?" asks the price of one, not a rate.
const TIMES = 'hour|night|day|week|month|year';
const RATE_ASKED = new RegExp(
  String.raw`\b(?:per|each|every|by the)\s+(${TIMES}|person|head|session|lesson|class|visit|room)\b|\ban?\s+(${TIMES})\b|\b(hour|night|dai|week|month|year)ly\b`,
);
const ADJECTIVE_UNIT: Record<string, string> = { dai: 'day' };

/** Of a question for a price, the unit it asks the price per ("how much do you charge per hour" → "hour"). */
export function rateUnitAsked(message: string): string | undefined {
  if (!mayAskForPrice(message)) return undefined;
  const m = RATE_ASKED.exec(foldForIntent(message));
  const unit = m?.[1] ?? m?.[2] ?? m?.[3];
  return unit === undefined ? undefined : (ADJECTIVE_UNIT[unit] ?? unit);
}

// An amount with its currency, whole ("£1,350", "28 €"): beside a unit, what a rate states.
const RATE_AMOUNT = String.raw`(?:[$€£¥₹]\s?\d[\d.,]*|\d[\d.,]*\s?(?:[$€£¥₹]|eur\b|euros?\b|dollars?\b|pounds\b))`;
const RATE_AMOUNT_RE = new RegExp(RATE_AMOUNT);

/** Per unit: the unit as a rate is written ("per hour", "an hour", "/hour", "hourly"), and it beside an amount. */
const ratePatterns = boundedMemo(64, (unit: string) => {
  const adjective = unit === 'day' ? 'daily' : `${unit}ly`;
  const per = String.raw`(?:(?:per|a|an|each|every)\s|/\s?)${unit}s?\b|\b${adjective}\b`;
  // The unit beside the amount, two words apart at most ("£45 for each hour", "Per night, low season: £95"),
  // not "costs £59 and takes about an hour".
  const beside = new RegExp(String.raw`${RATE_AMOUNT}\s*(?:\S+\s+){0,2}?(?:${per})|(?:${per})[\s,:]*(?:\S+\s+){0,3}?${RATE_AMOUNT}`, 'i');
  return { per: new RegExp(per, 'i'), beside };
});

/**
 * A text stating an amount per `unit`: "£19 an hour", "Per night, low season: £95", "£45 for each hour
 * after that", "£12 a day" — not a FAQ's "at no charge within 24 hours", which states no amount.
 */
export function statesRate(text: string, unit: string): boolean {
  const { per, beside } = ratePatterns(unit);
  if (beside.test(text)) return true;
  // Or a table whose columns' names say it ("Room | Per night, low season | Per night, summer") and whose rows state amounts.
  const rows = text.split('\n').filter((line) => line.includes(' | '));
  return rows.length > 1 && per.test(rows[0] as string) && rows.slice(1).some((row) => RATE_AMOUNT_RE.test(row));
}
