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

// How a product lets its users be paid: "Payments: Let clients pay invoices online with Stripe or PayPal".
const OTHERS_PAYMENT =
  /\b(?:let|lets|allow|allows|enable|enables|help|helps)\s+(?:your\s+)?(?:clients|customers|users|guests|buyers|members)\b|\bfrom (?:your )?(?:clients|customers)\b/;

/** A text that says how the business itself is paid (statesPaymentMethod, in the words of its own payments). */
export function statesOwnPaymentMethod(text: string): boolean {
  return (
    statesPaymentMethod(text) &&
    foldForIntent(text)
      .split(/(?<=[.!?])\s+|\n+/)
      .some((part) => OWN_PAYMENT.test(part) && !OTHERS_PAYMENT.test(part) && statesPaymentMethod(part))
  );
}

/**
 * Ways of paying as a question names them, each with the words a page says it with: a page that says
 * "Visa, Mastercard" or "contactless" says it takes cards, one that says "contactless" takes Apple Pay.
 */
const METHOD_NAMES: [asked: RegExp, said: RegExp][] = [
  [
    /\b(?:(?:credit|debit) )?cards?\b|\btarjetas?(?! regalo)\b|\bcartes? (?:bancaires?|bleues?|de credit)\b|\b(?:kredit|ec-)?karten?\b|\bcart(?:ao|oes)(?! presente)\b/,
    /\bcards?\b|\bvisa\b|\bmastercard\b|\bmaestro\b|\bamex\b|\bamerican express\b|\bcontactless\b|\btarjetas?\b|\bcartes?\b|\bkarten?\b|\bkreditkarten?\b|\bcart(?:ao|oes)\b/,
  ],
  [
    /\bcash\b|\befectivo\b|\bespeces\b|\bbargeld\b|\bdinheiro\b/,
    /\bcash\b|\befectivo\b|\bespeces\b|\bbargeld\b|\bin bar\b|\bbarzahlung\b|\bdinheiro\b/,
  ],
  [
    /\b(?:bank )?transfers?\b|\btransferencia\b|\bvirement\b|\buberweisung\b|\bbacs\b/,
    /\btransfers?\b|\bbacs\b|\btransferencia\b|\bvirement\b|\buberweisung\b/,
  ],
  [/\bapple ?pay\b/, /\bapple ?pay\b|\bcontactless\b|\bsin contacto\b|\bsans contact\b|\bkontaktlos\b/],
  [/\bgoogle ?pay\b/, /\bgoogle ?pay\b|\bcontactless\b|\bsin contacto\b|\bsans contact\b|\bkontaktlos\b/],
  // A page's "checks" are health checks and safety checks: a cheque it takes is "cheque", or a check paid with.
  [/\bcheques?\b|\bchecks?\b/, /\bcheques?\b|\b(?:by|personal|bank) checks?\b|\bchecks? (?:payable|accepted)\b/],
  [/\bamex\b|\bamerican express\b/, /\bamex\b|\bamerican express\b/],
  [/\bbitcoin\b|\bcrypto(?:currenc(?:y|ies))?\b/, /\bbitcoin\b|\bcrypto/],
  ...['paypal', 'bizum', 'klarna', 'visa', 'mastercard', 'contactless', 'direct debit', 'pix', 'mb way', 'invoice'].map(
    (name): [RegExp, RegExp] => [new RegExp(String.raw`\b${name}\b`), new RegExp(String.raw`\b${name}`)],
  ),
];

/**
 * The ways of paying a question how the business is paid names ("Can I pay in *bitcoin*?") that a text
 * — the passages found for it — does not say, as typed: the page that says how it is paid answers (the
 * ways it takes), which the visitor should read as what the site says, not as a yes.
 */
export function paymentMethodsUnsaid(message: string, text: string): string[] {
  if (!asksForPaymentMethod(message)) return [];
  // Accents and case folded as foldForIntent does, keeping every character's place: the name as typed is cut from the message.
  const unaccented = message.normalize('NFKD').replace(/\p{M}/gu, '');
  const folded = unaccented
    .toLowerCase()
    .replace(/[\u2018\u2019\u00b4`]/g, "'")
    .replace(/\s/g, ' ');
  const said = foldForIntent(text);
  const unsaid: string[] = [];
  for (const [asked, sayings] of METHOD_NAMES) {
    const found = asked.exec(folded);
    if (found && !sayings.test(said)) unsaid.push(unaccented.slice(found.index, found.index + found[0].length));
  }
  return unsaid;
}
