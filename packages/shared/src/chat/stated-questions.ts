import { foldForIntent } from '../intent/classifier.ts';
import { AREAS_SEARCH_WORDS, asksForAreas, statesAreas } from './areas-question.ts';
import { asksAboutOrder, asksForBookingChange, BOOKING_CHANGE_SEARCH_WORDS, statesBookingChange } from './booking-change-question.ts';
import { BUSINESS_FACTS } from './business-facts-question.ts';
import { asksForDelivery, DELIVERY_NAME, DELIVERY_SEARCH_WORDS, statesDelivery } from './delivery-question.ts';
import { asksForDiscount, DISCOUNT_SEARCH_WORDS, discountGroupAsked, statesDiscount } from './discount-question.ts';
import { asksForGiftCard, GIFT_CARD_SEARCH_WORDS, statesGiftCard } from './gift-card-question.ts';
import { INSTALMENTS_SEARCH_WORDS, instalmentsAsked, statesInstalments } from './instalments-question.ts';
import { asksForJobs, JOBS_NAME, JOBS_SEARCH_WORDS, statesJobs } from './jobs-question.ts';
import { asksForPaymentMethod, statesOwnPaymentMethod, statesPaymentMethod } from './payment-question.ts';
import { asksForWalkIn, statesWalkIn, WALK_IN_SEARCH_WORDS } from './walk-in-question.ts';

/** A passage as the answer's pages hold it. */
type Passage = { content: string; url: string; title: string; heading?: string | null };

/**
 * Questions answered by the page that states what they ask for, in whatever words, and declined where no
 * page states it (docs/retrieval.md): how the business is paid, whether it delivers, whether a booking
 * can be changed, whether it gives a discount, whether it takes people on, facts about the business itself
 * (free quotes, family-run, insured), whether the bill can be paid over time, gift cards, the areas it covers, whether visitors can come without booking. Their own words are on most sites in other senses ("pay-and-display
 * parking", "venue hire", "when the job is finished") or on none ("deliver" of a shop that says
 * "delivery"), so neither their presence nor their absence decides; what the answer must state means the
 * same on every site.
 */
export interface StatedQuestion {
  /** Whether a text states what the question asks for. */
  states: (text: string) => boolean;
  /** Of the passages that state it, those to quote first: the business's own payments, a page named for delivery. */
  preferred: (passage: Passage) => boolean;
  /** Words searched beside the visitor's, as context words: what pages say it with. */
  searchWords?: string;
}

/**
 * A test that one sentence of a text passes: a passage's sentences may hold one word each in other senses
 * ("Change at St Erth" and "Book your room online"; "We offer evening classes" and "Students live with…").
 */
export function inOneSentence(states: (text: string) => boolean): (text: string) => boolean {
  return (text) => text.split(/(?<=[.!?])\s+|\n+/).some(states);
}

/** Whether a passage's page or section is named for it: its address' words, its title or its heading. */
export function namedFor(name: RegExp): (passage: Omit<Passage, 'content'>) => boolean {
  return ({ url, title, heading }) => {
    let path = url;
    try {
      path = new URL(url).pathname;
    } catch {}
    return name.test(foldForIntent(`${path.replace(/[-_/.]+/g, ' ')} ${title} ${heading ?? ''}`));
  };
}

const namesDelivery = namedFor(DELIVERY_NAME);
const namesJobs = namedFor(JOBS_NAME);
const givesDiscount = inOneSentence(statesDiscount);

/** A question any passage stating it answers as well as another: none preferred. */
function anyStating(states: (text: string) => boolean, searchWords: string): StatedQuestion {
  return { states, preferred: (p) => states(p.content), searchWords };
}

/** …stated by one sentence of a passage (inOneSentence). */
function sentenceStating(states: (text: string) => boolean, searchWords: string): StatedQuestion {
  return anyStating(inOneSentence(states), searchWords);
}

/** A kind asked in one way, the same question whatever else the message says. */
const when =
  (asks: (message: string) => boolean, question: StatedQuestion) =>
  (message: string): StatedQuestion | undefined =>
    asks(message) ? question : undefined;

/** Each kind: what a page must state for the message, or undefined when the message is not of the kind; the first that is decides. */
const KINDS: ((message: string) => StatedQuestion | undefined)[] = [
  // Gift cards before the ways of paying ("Can I pay with a gift card?"), paying over time before them too
  // ("can I pay monthly by direct debit?"): each names a way of paying.
  when(asksForGiftCard, sentenceStating(statesGiftCard, GIFT_CARD_SEARCH_WORDS)),
  (message) => {
    const asked = instalmentsAsked(message);
    return asked && sentenceStating((text) => statesInstalments(text, asked), INSTALMENTS_SEARCH_WORDS);
  },
  when(asksForPaymentMethod, { states: statesPaymentMethod, preferred: (p) => statesOwnPaymentMethod(p.content) }),
  when(asksForDelivery, {
    states: statesDelivery,
    preferred: (p) => statesDelivery(p.content) && namesDelivery(p),
    searchWords: DELIVERY_SEARCH_WORDS,
  }),
  (message) => {
    if (!asksForBookingChange(message)) return undefined;
    const order = asksAboutOrder(message);
    return sentenceStating((text) => statesBookingChange(text, order), BOOKING_CHANGE_SEARCH_WORDS);
  },
  (message) => {
    if (!asksForDiscount(message)) return undefined;
    // A discount for the group asked about ("students"), when it names one.
    const group = discountGroupAsked(message);
    return anyStating((text) => givesDiscount(text) && (!group || group.test(foldForIntent(text))), DISCOUNT_SEARCH_WORDS);
  },
  when(asksForAreas, sentenceStating(statesAreas, AREAS_SEARCH_WORDS)),
  when(asksForWalkIn, sentenceStating(statesWalkIn, WALK_IN_SEARCH_WORDS)),
  when(asksForJobs, { states: statesJobs, preferred: (p) => statesJobs(p.content) && namesJobs(p), searchWords: JOBS_SEARCH_WORDS }),
  // Facts about the business itself (business-facts-question.ts: free quotes, family-run, insured, since when).
  ...Object.values(BUSINESS_FACTS).map(({ asks, states, searchWords }) =>
    when(
      (message) => asks.test(foldForIntent(message)),
      sentenceStating((text) => states.test(foldForIntent(text)), searchWords),
    ),
  ),
];

/** What the question asks a page to state, when it is such a question. */
export function statedQuestion(message: string): StatedQuestion | undefined {
  for (const kind of KINDS) {
    const question = kind(message);
    if (question) return question;
  }
  return undefined;
}
