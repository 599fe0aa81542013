import { foldForIntent } from '../intent/classifier.ts';

/**
 * Yes-or-no questions about the business itself that its pages state in few words or not at all, and
 * whose words are on most sites in other senses: "Do you offer free quotes?" (a garage answered with its
 * "free collection and delivery", a B&B with parking "free for guests"), "Are you family run?" (an inn
 * with its family room, a pool with its family swim), "Are you insured?" (a vet with "we can claim
 * directly from most pet insurers"). Each is answered by a sentence that states it (stated-questions.ts)
 * and declined where none does. English only: the words are the visitor's and a page's in English.
 */
export interface BusinessFact {
  asks: RegExp;
  states: RegExp;
  /** Words searched beside the visitor's (as context words). */
  searchWords: string;
}

export const BUSINESS_FACTS: Record<'quotes' | 'family-run' | 'insured', BusinessFact> = {
  quotes: {
    asks: /\b(?:do|can|will|would) (?:you|u) (?:do|offer|give|provide|charge for|charge) (?:a |any )?(?:free |written |no[- ]obligation )?(?:quotes?|estimates?|quotations?)\b|\b(?:are|is) (?:your |the )?(?:quotes?|estimates?|quotations?) free\b|\bfree (?:quotes?|estimates?)\W*$|\bhow much (?:is|for|does it cost to get) a (?:quote|estimate)\b/,
    states:
      /\b(?:quotes?|estimates?|quotations?)\b[^.]{0,60}\b(?:free|no obligation|without obligation|no charge|within|by|reply|send|give|fixed|agreed)\b|\b(?:free|fixed|written|no-obligation)\s+(?:quotes?|estimates?|quotations?)\b|\bget a (?:quote|estimate)\b|\bwe (?:will |'ll )?(?:quote|reply with a price)\b/,
    searchWords: 'quote quotes estimate estimates free obligation price',
  },
  'family-run': {
    asks: /\b(?:are|r) (?:you|u)(?: a)? family[- ]?(?:run|owned|business)\b|\b(?:is|are) (?:it|this|the (?:business|shop|restaurant|hotel|practice|garage|company)) (?:a )?family[- ]?(?:run|owned|business)\b|\bwho (?:owns|runs) (?:the |this |your )?(?:business|shop|place|company|restaurant|hotel|practice|garage)\b/,
    states: /\bfamily[- ](?:run|owned)\b|\bfamily business\b|\b(?:run|owned|founded|started)(?: in \d{4})? by\b|\bour family\b/,
    searchWords: 'family run owned founded started',
  },
  insured: {
    asks: /\b(?:are|r) (?:you|u|your (?:staff|cleaners|engineers|drivers|teachers|instructors|staff members)) (?:fully )?(?:insured|covered by insurance|bonded)\b|\bdo (?:you|u) have (?:public )?(?:liability )?insurance\b/,
    states:
      /\b(?:we are|we're|fully|are) (?:fully )?insured\b|\bpublic liability\b|\bliability insurance\b|\binsurance (?:cover|covers|policy)\b|\binsured (?:for|up to|against)\b/,
    searchWords: 'insured insurance liability cover',
  },
};

/** Which of the business facts the question asks for, if any. */
export function businessFactAsked(message: string): keyof typeof BUSINESS_FACTS | undefined {
  const folded = foldForIntent(message);
  return (Object.keys(BUSINESS_FACTS) as (keyof typeof BUSINESS_FACTS)[]).find((k) => BUSINESS_FACTS[k].asks.test(folded));
}
