import { foldForIntent } from '../intent/classifier.ts';

/**
 * A question about gift cards or vouchers ("Do you sell gift vouchers?", "How long is a gift card
 * valid?", "¿Tenéis tarjetas regalo?") is answered by a page that names them, and declined where none
 * does: its words are on pages in other senses — a hairdresser that says "Aceptamos tarjeta" (cards
 * taken in payment) answered "¿Tenéis tarjetas regalo?" with it. A page names them in the words the
 * visitor asks with, in every language. English, Spanish, French, German and Portuguese, accents folded.
 */
const GIFT_CARD = String.raw`gift ?(?:cards?|vouchers?|certificates?|cheques?|checks?|boxes?|experiences?)|(?:tarjetas?|cheques?|vales?|bonos?) (?:de )?regalo|(?:bons?|cartes?|cheques?) cadeaux?|(?:geschenk)?gutscheine?|geschenkkarten?|(?:vales?|cart(?:ao|oes)|cheques?)[- ](?:de )?presentes?`;
const NAMES_GIFT_CARD = new RegExp(String.raw`\b(?:${GIFT_CARD})\b`);

export function asksForGiftCard(message: string): boolean {
  return NAMES_GIFT_CARD.test(foldForIntent(message));
}

/** A text that names gift cards or vouchers. */
export function statesGiftCard(text: string): boolean {
  return NAMES_GIFT_CARD.test(foldForIntent(text));
}

/** The words searched beside such a question's own (as context words). */
export const GIFT_CARD_SEARCH_WORDS = 'gift voucher vouchers card cards';
