import { DELIVERY_WORDS } from '../db/pages.ts';
import { foldForIntent } from '../intent/classifier.ts';

/**
 * A question whether or where the business delivers ("do you deliver?", "do you ship abroad?", "is there
 * free delivery?", "¿hacéis envíos?") is answered by a page that says how it delivers ("Free UK
 * delivery on orders over £60", "We deliver through Deliveroo within three miles", "We ship to the EU,
 * the USA and Canada") — in whatever words: a shop whose every page says "delivery" declined "do you
 * deliver?" for the verb it never uses, and a tea shop declined "do you ship abroad?" beside its
 * "International: We ship to the EU". A business that says nothing of delivering declines it. Asked
 * of a thing or a place the page does not name ("to Ireland", "on Saturday"), the page that says how
 * it delivers is still the answer. English, Spanish, French, German and Portuguese (the lead
 * classifier's languages), accents folded. A price or a time of delivery ("how much is delivery?",
 * "how long does shipping take?") is asked for an amount or a duration (price-question.ts,
 * time-question.ts), not here.
 */
const WHERE = String.raw`abroad|overseas|internationally|international|worldwide|outside (?:the )?(?:uk|us|usa|eu|country)|nationwide|everywhere|anywhere`;
const ASKS_FOR_DELIVERY = new RegExp(
  [
    // "do you deliver?", "can u ship to Canada?" — not "can you send me a quote?"
    String.raw`\b(?:do|can|will|would|could) (?:you|u|ya)(?: guys| also)? (?:deliver|ship)\b`,
    String.raw`\b(?:do|can|will|would|could) (?:you|u|ya)(?: guys| also)? (?:send|post) (?:(?:it|them|orders?|parcels?|things) )?(?:${WHERE}|to (?!me\b|us\b|you\b)\w+)`,
    String.raw`\b(?:where|which countries|what countries|what areas|how far) (?:do|can|will) (?:you|u) (?:deliver|ship|post)\b`,
    String.raw`\b(?:is there|do (?:you|u) (?:do|have|offer)|any|offer) (?:free |home |local |international |next[- ]day |same[- ]day )?(?:delivery|deliveries|shipping)\b`,
    String.raw`\b(?:delivery|deliveries|shipping) (?:options?|available|${WHERE}|areas?|zones?|countries|policy|info|information|details)\b`,
    String.raw`\b(?:deliver|ship)(?:ping)? (?:${WHERE})\b`,
    String.raw`^\W*(?:free )?(?:home )?(?:delivery|deliveries|shipping)\W*$`,
    String.raw`\b(?:haceis|hacen|hace|teneis|tienen|tiene|ofreceis|ofrecen) (?:envios?|entregas?|reparto|servicio a domicilio)\b|\b(?:enviais|envian|envia|entregais|entregan|repartis|reparten) (?:a |al |fuera|a domicilio|internacional)|\b(?:envio|entrega) a domicilio\b`,
    String.raw`\blivrez[- ]vous\b|\bexpediez[- ]vous\b|\b(?:faites|proposez)[- ]vous (?:la |des )?livraisons?\b|\blivraison (?:a domicile|a l'etranger|internationale)\b`,
    String.raw`\b(?:liefern|versenden|verschicken) sie\b|\bgibt es (?:eine[n]? )?(?:lieferung|lieferservice|versand)\b|\b(?:lieferung|versand) ins ausland\b`,
    String.raw`\b(?:entregam|enviam|fazem entregas?|tem entrega)\b|\bentrega (?:ao|a) domicilio\b`,
  ].join('|'),
);

/** Words a page says how it delivers with: the nouns, or a verb of delivering said of the business or with where to. */
const STATES_DELIVERY = new RegExp(
  [
    String.raw`\b(?:delivery|deliveries|shipping|postage|courier|royal mail|parcelforce|dpd|dhl|fedex|click and collect|deliveroo|just eat|uber eats)\b`,
    String.raw`\bwe (?:\w+ )?(?:deliver|ship)\b|\b(?:deliver|delivers|delivered|ship|ships|shipped) (?:to|within|across|free|${WHERE})\b|\bdelivered\b`,
    String.raw`\b(?:envios?|enviamos|entregas?|entregamos|reparto|repartimos|a domicilio|livraisons?|livrons|expedions|expedition|lieferung|liefern|versand|versenden|lieferservice|portes)\b`,
  ].join('|'),
);

export function asksForDelivery(message: string): boolean {
  return ASKS_FOR_DELIVERY.test(foldForIntent(message));
}

/** A text that says how (or where) the business delivers. */
export function statesDelivery(text: string): boolean {
  return STATES_DELIVERY.test(foldForIntent(text));
}

/**
 * What names a page or section for delivery ("/delivery.html", "Shipping", "Takeaway and delivery"): of the
 * pages that mention delivering, the one about it ("returns from abroad" on a returns page names Royal
 * Mail's label). Read by stated-questions.ts namedFor.
 */
export const DELIVERY_NAME = new RegExp(String.raw`\b(?:${DELIVERY_WORDS})\b`);

/** The words searched beside a delivery question's own (as context words): what pages say it with. */
export const DELIVERY_SEARCH_WORDS = 'delivery deliver shipping ship postage envio entrega livraison lieferung versand';
