import { foldForIntent } from '../intent/classifier.ts';

/**
 * A question for the areas a business covers ("What areas do you cover?", "how far do you travel?", "do
 * you cover my postcode?", "¿Qué zonas cubrís?") is answered by a sentence that says where it works: "We
 * work across Leeds and within about 15 miles of the city centre", "our teams have cleaned homes across
 * Didsbury, Chorlton…", "free collection and delivery within 5 miles", a section named "Areas we cover" —
 * and declined where none does: a cleaning company answered it with "breakages are covered", a language
 * school with its course "covering speaking, listening…". A place the visitor names ("do you cover
 * Otley?") is a word the search finds, and is asked as any question. English, Spanish, French, German and
 * Portuguese, accents folded.
 */
const ASKS_FOR_AREAS = new RegExp(
  [
    String.raw`\b(?:what|which) (?:areas?|places|towns|postcodes?|post codes?|locations?|regions?|parts of [\w-]+) (?:do|can) (?:you|u)(?: guys)? (?:cover|serve|work in|operate in|go to|travel to|visit)\b`,
    String.raw`\b(?:what|which) areas?\W*$|\bwhat areas? (?:is|are) covered\b|\b(?:service|coverage|catchment) areas?\b|\bareas? (?:you )?(?:covered|served|cover|serve)\W*$`,
    String.raw`\bwhere do (?:you|u)(?: guys)? (?:cover|operate|serve)\b|\bhow (?:far )?(?:do|will|would) (?:you|u) travel\b`,
    String.raw`\bdo (?:you|u) (?:cover|serve|come to|work in) (?:my|our|this|the|your local) (?:area|postcode|post code|town|city|village|region|county)\b`,
    String.raw`\bque (?:zonas?|areas?) (?:cubris|cubren|cubre|atendeis|atienden)\b|\bquelles? (?:zones?|secteurs?|regions?) (?:couvrez|desservez)[- ]vous\b|\bin welchen? (?:gebieten?|regionen?|orten?) (?:arbeiten|sind) sie\b|\bwelche (?:gebiete|regionen) (?:decken sie ab|bedienen sie)\b|\bquais (?:areas?|zonas?|regioes) (?:voces )?(?:atendem|cobrem)\b`,
  ].join('|'),
);

/** Said of where the business works, in words (folded). */
const STATES_AREAS =
  /\b(?:areas? (?:we )?(?:cover|serve)|(?<!\bif )we (?:cover|serve)\b(?! (?:the cost|costs|it|this|that))|we (?:work|operate) (?:across|throughout|within|all over)|within (?:about |around |roughly )?(?:\d+|one|two|three|four|five|ten|fifteen|twenty) (?:miles?|km|kilometres?|kilometers?)\b|zonas? que cubrimos|nous intervenons|wir sind in)/;
/** …or as a list of places it works across, by their names (capitalised, as written: not "across the harbour"). */
const ACROSS_PLACES = /\b(?:across|throughout|serving|covering)\s+(?:the\s+)?\p{Lu}[\p{L}'-]+/u;

export function asksForAreas(message: string): boolean {
  return ASKS_FOR_AREAS.test(foldForIntent(message));
}

/** A text that says where the business works. */
export function statesAreas(text: string): boolean {
  return STATES_AREAS.test(foldForIntent(text)) || ACROSS_PLACES.test(text);
}

/** The words searched beside such a question's own (as context words). */
export const AREAS_SEARCH_WORDS = 'areas area cover across miles serve';
