import { foldForIntent } from '../intent/classifier.ts';

/**
 * A question for a discount or an offer ("is there a student discount?", "do you do concessions?", "any
 * offers on at the moment?", "¿hay descuento para estudiantes?") is answered by a page that states one
 * ("Concession (over 65, student): £7.50", "Students and over-65s pay £55", "schools get 50% off",
 * "Introductory offer: …"), and declined where none does: its words are on pages in other senses — a
 * language school answered "Is there a student discount?" with its student residence, a dental practice
 * "do you have any offers?" with "We offer NHS and private dentistry". Any discount answers a question
 * naming no group ("any offers?"): it says what there is; one for another group than a group the question names is not ("Children under three stay free"
 * for "Is there a student discount?"). English, Spanish, French, German and Portuguese, accents folded.
 */
const GROUP = String.raw`student|students|senior|seniors|pensioner|pensioners|oap|child|children|kids?|family|group|military|nhs|staff|teacher|loyalty|multi-buy|bulk|early[- ]bird|first[- ]time|introductory|new customer|returning customer|charity|non-?profit`;
const ASKS_FOR_DISCOUNT = new RegExp(
  [
    String.raw`\b(?:${GROUP})\s+(?:discounts?|concessions?|rates?|prices?|deals?|offers?)\b`,
    String.raw`\b(?:any|is there a|are there|do (?:you|u) (?:do|have|offer|give)(?: any)?|got any|can i get a)\s+(?:\w+\s+)?(?:discounts?|concessions?|deals|promotions|promo codes?|discount codes?|special offers?|offers)\b`,
    String.raw`\bdiscounts?\W*$|\b(?:special offers?|deals|promotions)\W*$|\bcheaper for (?:${GROUP})\b`,
    String.raw`\b(?:hay|tienen|teneis|hacen|haceis) (?:algun )?(?:descuentos?|ofertas?|promociones?)\b|\bdescuentos? para\b`,
    String.raw`\b(?:avez-vous|y a-t-il|faites-vous) (?:des |une |un )?(?:reductions?|remises?|promotions?|offres?)\b|\b(?:reduction|tarif reduit) pour\b`,
    String.raw`\b(?:gibt es|haben sie) (?:einen |eine )?(?:rabatt|ermassigung|ermassigungen|angebote|sonderangebote)\b|\b(?:rabatt|ermassigung) fur\b`,
    String.raw`\b(?:tem|tem algum|ha|fazem) (?:descontos?|promocoes?|ofertas?)\b|\bdescontos? para\b`,
  ].join('|'),
);

const STATES_DISCOUNT = new RegExp(
  [
    String.raw`\b(?:discounts?|discounted|concessions?|half[- ]price|reduced (?:rate|price|fee)s?|special offers?|introductory offer|trial offer|promo(?:tion)? codes?)\b`,
    String.raw`\band save\b|\bsave (?:up to )?[£$€\d]|\bmonths? free\b|\d+\s?%\s?off\b|[£$€]\s?\d+(?:[.,]\d+)? off\b|\b(?:go|swim|stay|travel|enter|eat) free\b|\bfree for (?:${GROUP}|under|over)`,
    String.raw`\b(?:${GROUP}|over-?\d+s?|under-?\w+s?)\b(?: and [\w-]+)? (?:pay|get|receive|save)\b`,
    String.raw`\b(?:descuentos?|ofertas?|promocion|reduccion|reductions?|remises?|tarif reduit|rabatt|ermassigung|ermassigt|desconto|promocao)\b`,
  ].join('|'),
);

export function asksForDiscount(message: string): boolean {
  return ASKS_FOR_DISCOUNT.test(foldForIntent(message));
}

/** A text that states a discount or an offer. */
export function statesDiscount(text: string): boolean {
  return STATES_DISCOUNT.test(foldForIntent(text));
}

/** Who a discount is for, in the words pages name them with: "students" asked, "student" or "students" stated. */
const GROUPS: [asked: RegExp, stated: RegExp][] = [
  [/\bstudents?\b/, /\bstudents?\b|\bestudiantes?\b|\betudiants?\b|\bstudenten\b|\bestudantes?\b/],
  [
    /\b(?:seniors?|pensioners?|oaps?|elderly|retired|over-?(?:60|65)s?)\b/,
    /\b(?:seniors?|pensioners?|oaps?|over-?(?:60|65)s?|over (?:60|65)|60\+|65\+|jubilados|retraites|rentner|senioren|aposentados)\b/,
  ],
  [
    /\b(?:child|children|kids?|under-?\w+s)\b/,
    /\b(?:child|children|kids?|under-?\w+s|under (?:\d+|three|five|twelve)|infants?|ninos|enfants|kinder|criancas)\b/,
  ],
  [/\bfamil(?:y|ies)\b/, /\bfamil(?:y|ies|ia|le|ie)\b/],
  [/\bgroups?\b/, /\bgroups?\b|\bgrupos?\b|\bgroupes?\b|\bgruppen?\b/],
  [/\b(?:military|forces|veterans?)\b/, /\b(?:military|forces|veterans?)\b/],
  [/\bnhs\b/, /\bnhs\b/],
  [/\bteachers?\b/, /\bteachers?\b/],
  [/\b(?:charit(?:y|ies)|non-?profits?)\b/, /\b(?:charit(?:y|ies)|non-?profits?)\b/],
];

/**
 * The words a page must name the group asked about with ("Is there a *student* discount?"), when the
 * question names one: "Children under three stay free" is no answer to it. None when it names none ("any
 * offers?").
 */
export function discountGroupAsked(message: string): RegExp | undefined {
  const folded = foldForIntent(message);
  return GROUPS.find(([asked]) => asked.test(folded))?.[1];
}

/** The words searched beside such a question's own (as context words). */
export const DISCOUNT_SEARCH_WORDS = 'discount discounts concession concessions offer off reduced';
