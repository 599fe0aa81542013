import { foldForIntent } from '../intent/classifier.ts';

/**
 * Yes-or-no questions about the business itself that its pages state in few words or not at all, and
 * whose words are on most sites in other senses: "Do you offer free quotes?" (a garage answered with its
 * "free collection and delivery", a B&B with parking "free for guests"), "Are you family run?" (an inn
 * with its family room, a pool with its family swim), "Are you insured?" (a vet with "we can claim
 * directly from most pet insurers"), "How long have you been in business?" (a year it dates from). Each is
 * answered by a sentence that states it (stated-questions.ts) and declined where none does. English only:
 * the words are the visitor's and a page's in English (but a year a page dates itself from in the
 * classifier's other languages: "desde 2009").
 */
export interface BusinessFact {
  asks: RegExp;
  states: RegExp;
  /** Words searched beside the visitor's (as context words). */
  searchWords: string;
}

const YEAR = String.raw`(?:1[5-9]\d\d|20[0-4]\d)`;

export const BUSINESS_FACTS: Record<'quotes' | 'family-run' | 'insured' | 'established', BusinessFact> = {
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
  // "How long have you been in business?" was answered with the home page's opening, which says since
  // when on most sites and not on all: a hotel's "17th-century pub", a tea shop's what it sells (its about
  // page: "Leafline was started in 2018 by two friends…").
  established: {
    asks: new RegExp(
      [
        // "long" may be gone: the search drops a measure's adjective ("how long" → "how", searched-query.ts).
        String.raw`\bhow (?:long )?(?:have|has) (?:you|u|y'all|the (?:business|company|shop|practice|firm|school)|your (?:business|company|shop|practice|firm)) been (?:in business|around|going|open|trading|running|operating|established)\b`,
        String.raw`\bwhen (?:were|was) (?:you|u|the (?:business|company|shop|practice|firm|restaurant|museum|school|studio|garage)|it|your (?:business|company)) (?:founded|established|started|set up)\b`,
        String.raw`\bwhen did (?:you|u|the (?:business|company|firm)|your (?:business|company)) (?:start|open|begin|set up)(?: (?:trading|business|the business))?\W*$`,
        String.raw`\bhow old is (?:the|your) (?:business|company|firm)\b|\bhow many years (?:have you been|in business)\b`,
        // By the business's name: "How long has Oakfield Yoga been around?", "When was Fenwick & Hale founded?".
        String.raw`\bhow (?:long )?(?:has|have) (?:[\w&'.-]+\s+){1,4}been (?:in business|around|trading|operating)\b|\bwhen (?:was|were) (?:[\w&'.-]+\s+){1,4}(?:founded|established|set up)\b`,
      ].join('|'),
    ),
    states: new RegExp(
      [
        String.raw`\b(?:since|founded in|established in|est\.?|started in|opened in|set up in|trading since|in business since)\s+(?:the\s+)?${YEAR}\b`,
        String.raw`\b(?:founded|established|started|opened|set up)\b[^.]{0,60}\b(?:in|since)\s+${YEAR}\b`,
        String.raw`\bfor (?:over |more than |almost |nearly |well over )?(?:\d+|twenty|thirty|forty|fifty|sixty) years\b`,
        String.raw`\b(?:desde|depuis|seit|fondee? en|fundad[oa] en)\s+(?:el\s+|l'an\s+)?${YEAR}\b`,
      ].join('|'),
    ),
    searchWords: 'since founded established started years',
  },
};

/** Which of the business facts the question asks for, if any. */
export function businessFactAsked(message: string): keyof typeof BUSINESS_FACTS | undefined {
  const folded = foldForIntent(message);
  return (Object.keys(BUSINESS_FACTS) as (keyof typeof BUSINESS_FACTS)[]).find((k) => BUSINESS_FACTS[k].asks.test(folded));
}
