import { foldForIntent } from '../intent/classifier.ts';

/**
 * A question for how the business is paid ("can I pay by card?", "do you take cash?", "payment
 * methods?") is answered by a page that says how: a way of paying ("card", "cash", "bank transfer",
 * "Apple Pay") with a word of paying or accepting ("We accept cards, cash and Apple Pay", "You can pay
 * by card, bank transfer or cash"). Its own words are everywhere else: "pay" in "pay-and-display
 * parking" and "you pay one fixed fee", "card" in "gift cards" — a pool, an accountancy, a solicitor and a
 * tea shop whose pages say nothing of it answered with those. Like a price (price-question.ts), what the
 * answer must state means the same on every site. English, Spanish, French, German and Portuguese (the
 * lead classifier's languages), accents folded.
 */
const METHOD = String.raw`(?:credit |debit |bank )?cards?|cash|contactless|(?:bank )?transfers?|paypal|apple ?pay|google ?pay|bizum|cheques?|checks?|direct debit|amex|american express|visa|mastercard|klarna|bitcoin|crypto(?:currenc(?:y|ies))?|invoice`;
const ASKS_FOR_PAYMENT_METHOD = new RegExp(
  [
    String.raw`\b(?:can|could|may|do|does) (?:i|we|you|u) pay (?:by|with|using|via|through|on) `,
    String.raw`\b(?:can|could|may|do) (?:i|we) pay (?:in )?(?:${METHOD})\b`,
    String.raw`\bdo (?:you|u) (?:take|accept) (?:${METHOD})\b`,
    String.raw`\b(?:(?:${METHOD}) (?:accepted|ok|okay))\W*$`,
    String.raw`\bpayment (?:methods?|options?|types?)\b|\b(?:methods?|ways?|forms?) of payment\b|\bhow (?:can|do|could) (?:i|we) pay(?: (?:you|u|for (?:it|this|that|my \w+)))?\W*$`,
    String.raw`\bpuedo pagar (?:con|en|por) |\b(?:aceptan|aceptais|acepta) (?:tarjeta|efectivo|bizum|paypal)|\b(?:formas?|metodos?) de pago\b`,
    String.raw`\bpuis-je payer (?:par|en|avec) |\b(?:acceptez-vous|prenez-vous) (?:la carte|les cartes|les especes|paypal)|\bmoyens? de paiement\b`,
    String.raw`\bkann ich (?:mit|per|in) \S+ (?:be)?zahlen\b|\bnehmen sie (?:karte|kreditkarte|ec-karte)|\b(?:zahlungsmethoden|zahlungsarten|zahlungsmoglichkeiten)\b`,
    String.raw`\bposso pagar (?:com|em|por) |\b(?:aceitam|aceita) (?:cartao|dinheiro|pix|mb way)|\b(?:formas?|metodos?) de pagamento\b`,
  ].join('|'),
);

const PAYS = String.raw`pay|pays|paid|paying|payment|payments|accept|accepts|accepted|we take|take cards|pago|pagar|pagos|aceptamos|payer|paiement|acceptons|zahlen|bezahlen|zahlung|akzeptieren|pagamento|aceitamos`;
// As a page states it: not "visa" (a student's), "checks" (a garage's) or "transfer" alone (an airport's), which say other things.
const METHOD_STATED = String.raw`(?:credit |debit )?cards?|cash|contactless|bank transfers?|paypal|apple ?pay|google ?pay|bizum|cheques?|direct debit|amex|american express|mastercard|klarna|bitcoin|tarjetas?|efectivo|transferencia bancaria|carte bancaire|cartes? bleues?|especes|virement|ec-karte|kreditkarte|barzahlung|in bar|uberweisung|cartao|dinheiro|transferencia|multibanco|pix|mb way`;
const STATES_PAY = new RegExp(String.raw`\b(?:${PAYS})\b`);
const STATES_METHOD = new RegExp(String.raw`\b(?:${METHOD_STATED})\b`);

export function asksForPaymentMethod(message: string): boolean {
  return ASKS_FOR_PAYMENT_METHOD.test(foldForIntent(message));
}

/** A text that says how the business is paid: a way of paying with a word of paying or accepting. */
export function statesPaymentMethod(text: string): boolean {
  const folded = foldForIntent(text);
  return STATES_PAY.test(folded) && STATES_METHOD.test(folded);
}

// Said of the business's own payments: "we accept", "you can pay", "are paid by", "Payment: …" — not an
// invoicing product's feature ("let clients pay online by card"), which a software company's pages state too.
const OWN_PAYMENT =
  /\b(?:we|you can|you may|you will|you'll)\b[^.]{0,40}\b(?:accept|take|pay|paid)\b|\b(?:accepted|payable)\b|\b(?:are|is|be)\s+(?:\w+\s+){0,3}paid\b|^\W*(?:paying|payments?)\b|\b(?:aceptamos|acceptons|akzeptieren wir|aceitamos)\b/;

/** A text that says how the business itself is paid (statesPaymentMethod, in the words of its own payments). */
export function statesOwnPaymentMethod(text: string): boolean {
  return (
    statesPaymentMethod(text) &&
    foldForIntent(text)
      .split(/(?<=[.!?])\s+|\n+/)
      .some((part) => OWN_PAYMENT.test(part) && statesPaymentMethod(part))
  );
}
