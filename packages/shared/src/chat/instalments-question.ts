import { foldForIntent } from '../intent/classifier.ts';

/**
 * A question whether the bill can be paid over time ("can I pay in instalments?", "can I pay monthly?",
 * "do you offer finance?", "¿puedo pagar a plazos?") is answered by a page that says it can: "Treatment
 * over £1,000 can be spread over 12 months interest-free", "payment plans through a finance partner",
 * "£14.50 a month", "paid monthly by direct debit" — and declined where none does. Its own words are in
 * other senses on most sites, or on none: a dental practice answered "Can I pay in instalments?" with its
 * "Pay-and-display parking". Like the ways of paying (payment-question.ts), what the answer must state
 * means the same on every site. English, Spanish, French, German and Portuguese, accents folded.
 */
const ASKS_FOR_INSTALMENTS = new RegExp(
  [
    String.raw`\bpay(?:ing)? (?:it |for it |the bill )?(?:in|by) (?:monthly )?(?:instal?lments?|stages|parts)\b`,
    String.raw`\bpay(?:ing)? (?:it |for it |the bill )?(?:monthly|per month|each month|every month|over (?:time|a few months|several months|\d+ months))\b`,
    String.raw`\bmonthly (?:payments?|instal?lments?)\b|\bpayment plans?\b|\bspread (?:the )?(?:cost|payments?|bill)\b|\bpay later\b|\binstal?lments?\W*$`,
    String.raw`\b(?:offer|have|any|got|is there|provide)\s+(?:any\s+)?finance\b|\bfinance (?:options?|available|plans?|deals?)\b|\bon finance\b|\binterest[- ]free\b`,
    String.raw`\ba plazos\b|\ben cuotas\b|\bfinanciacion\b|\bpago (?:aplazado|fraccionado|mensual)\b`,
    String.raw`\ben plusieurs fois\b|\bpaiement (?:echelonne|mensuel)\b|\bfacilites de paiement\b|\bmensualites\b`,
    String.raw`\bratenzahlung\b|\bin raten\b|\bfinanzierung\b|\bmonatlich (?:be)?zahlen\b`,
    String.raw`\bparcelar\b|\bparcelad[oa]\b|\bprestacoes\b|\bem (?:\d+ )?(?:vezes|parcelas)\b`,
  ].join('|'),
);

/** Said of credit: instalments, a payment plan, finance, interest-free, paying later. */
const STATES_CREDIT = String.raw`\binstal?lments?\b|\bpayment plans?\b|\bspread (?:the )?(?:cost|payments?|bill)\b|\bspreads the cost\b|\bspread over\b|\binterest[- ]free\b|\b0\s?% finance\b|\bfinance (?:is |are )?(?:available|partners?|options?|plans?)\b|\bpay later\b|\bmonthly (?:payments?|instal?lments?)\b|\bklarna\b|\ba plazos\b|\bfinanciacion\b|\ben plusieurs fois\b|\bpaiement echelonne\b|\bmensualites\b|\bratenzahlung\b|\bin raten\b|\bfinanzierung\b|\bparcelas\b|\bprestacoes\b|\bparcelad[oa]\b`;
/** Said of paying by the month: a price or a fee a month, paid monthly. */
const STATES_MONTHLY = String.raw`\bmonthly direct debit\b|\bpa(?:y|id) monthly\b|\b(?:pay|pays|paid|payable|cost|costs|fee|fees)\b[^.]{0,40}\b(?:a|per|each|every) month\b|[£$€]\s?\d+(?:[.,]\d+)?\s?(?:a|per|/) ?month\b|\bcuotas mensuales\b|\bal mes\b|\bpar mois\b|\bpro monat\b|\bpor mes\b`;
const STATES = { credit: new RegExp(STATES_CREDIT), monthly: new RegExp(`${STATES_CREDIT}|${STATES_MONTHLY}`) };
/** A question that asks to pay by the month ("can I pay monthly?", "spread the cost"), not for credit as such ("instalments", "finance"). */
const ASKS_MONTHLY = /\b(?:monthly|per month|each month|every month|spread)\b|\bpago mensual\b|\bpaiement mensuel\b|\bmonatlich\b/;

/** Whether the question asks to pay over time: by the month, or on credit (instalments, finance); undefined when not. */
export function instalmentsAsked(message: string): 'monthly' | 'credit' | undefined {
  const folded = foldForIntent(message);
  if (!ASKS_FOR_INSTALMENTS.test(folded)) return undefined;
  return ASKS_MONTHLY.test(folded) ? 'monthly' : 'credit';
}

/**
 * A text that says the bill can be paid as asked: on credit (instalments, a payment plan, finance) — or,
 * asked to pay by the month, so much a month too ("£75 a month" answers "can I pay monthly?", not "do you
 * offer finance?").
 */
export function statesInstalments(text: string, asked: 'monthly' | 'credit'): boolean {
  return STATES[asked].test(foldForIntent(text));
}

/** The words searched beside such a question's own (as context words). */
export const INSTALMENTS_SEARCH_WORDS = 'instalments installments monthly month spread finance plan interest';
