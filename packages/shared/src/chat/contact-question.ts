import { emailsIn, listedPhonesIn } from '../contact-details.ts';
import { foldForIntent } from '../intent/classifier.ts';
import { pageName } from './ranking.ts';
import { statesTime } from './time-question.ts';

/**
 * A question for the business's own contact details — "where are you located", "what's your phone
 * number", "how can I reach you" — is answered by the page that states them (docs/retrieval.md,
 * "Contact questions"). Its words are rarely the page's: a contact page says "Where to find us" and
 * "Call us on 023 9200 0000", not "located" or "number", so on a small site the absent-words rule
 * declined the questions visitors ask most. The evidence is instead whether a page of the client
 * states what is asked — a phone number, an e-mail address, a street address — which means the same
 * on every site: a documentation site that prints none declines them.
 */
export type ContactKind = 'phone' | 'email' | 'address' | 'hours' | 'any';

// English, Spanish, French, German and Portuguese (the lead classifier's languages), accents folded.
// Each asks for the business's own details ("your", "you"): "how do I validate an email address" does not.
/** "your", as chat also writes it. */
const YOUR = '(?:your|ur)';
const ASKS: [ContactKind, RegExp][] = [
  [
    'phone',
    new RegExp(
      [
        String.raw`\b${YOUR} (?:tele)?phone\b|\bthe (?:tele)?phone number\b|\b${YOUR} (?:mobile|whatsapp|number)\b|\bnumber (?:to|i can|can i) call\b`,
        // The words alone, as a chat box is typed into: "phone number?", "contact number".
        String.raw`^\W*(?:(?:tele)?phone|contact)(?: (?:number|no))?\W*$`,
        String.raw`\bhow (?:can|do|could|should) i (?:call|phone|ring) (?:you|u)\b`,
        String.raw`\b(?:su|tu|vuestro) (?:numero de )?telefono\b|\bel (?:numero de )?telefono\b`,
        String.raw`\b(?:votre|ton) (?:numero de )?telephone\b|\ble numero de telephone\b`,
        String.raw`\b(?:ihre|deine|eure) (?:telefonnummer|telefon|nummer)\b|\bdie telefonnummer\b`,
        String.raw`\b(?:seu|teu) (?:numero de )?telefone\b|\bo (?:numero de )?telefone\b`,
      ].join('|'),
    ),
  ],
  [
    'email',
    new RegExp(
      [
        String.raw`^\W*e-?mail(?: address)?\W*$|\b${YOUR} e-?mail\b|\b(?:can|do|could|should) i e-?mail (?:you|u)\b|\bthe e-?mail (?:address )?(?:of|for) (?:you|the (?:shop|store|office|company|business))\b`,
        String.raw`\b(?:su|tu|vuestro) (?:correo|e-?mail)\b|\b(?:votre|ton) (?:adresse )?(?:e-?mail|courriel)\b`,
        String.raw`\b(?:ihre|deine|eure) e-?mail\b|\b(?:seu|teu) e-?mail\b`,
      ].join('|'),
    ),
  ],
  [
    'address',
    new RegExp(
      [
        String.raw`\bwhere (?:are|r) (?:you|u|ya)(?: guys)? (?:located|based|situated)\b|\bwhere (?:are|r) (?:you|u|ya)(?: guys)?\s*[?!.]*$`,
        String.raw`\bwhere (?:is|are) (?:your|the) (?:shop|store|office|offices|workshop|studio|clinic|practice|surgery|restaurant|hotel|salon|garage|showroom|location|premises|branch|branches|headquarters|building|warehouse)\b`,
        String.raw`\bwhere can i find (?:you|u)\b|^\W*(?:address|location)\W*$`,
        String.raw`\b${YOUR} (?:address|location|premises)\b|\bwhat(?:'?s| is) the (?:address|location)\b(?!\s+(?:of|for|to|in|on|that|which|where)\b)|\bhow (?:do|can) i get to (?:you|your)\b|\bdirections to (?:you|your)\b`,
        // "How do I get there?", "how to get here", "getting there": the way to the business, which its address
        // gives — asked alone ("how do I get there by bus?" asks for the bus, and is searched).
        String.raw`\bhow (?:do|can|could|would|should) (?:i|we) (?:get|find) (?:there|here|you|u)\W*$|\bhow to (?:get|find) (?:there|here|you)\W*$|^\W*(?:getting|directions) (?:there|here)\W*$|^\W*directions\W*$`,
        String.raw`\bcomo (?:llego|llegar|se llega)\b|\bcomment (?:venir|vous trouver|y aller|s'y rendre)\b|\bwie komme ich (?:zu (?:ihnen|euch|dir)|hin|dahin)\b|\bcomo (?:chego|chegar)\b`,
        String.raw`\bdonde (?:estan|estais|esta (?:la|el|su|tu)|se encuentran|os encontramos|queda)\b|\b(?:su|tu|vuestra) (?:direccion|ubicacion)\b`,
        String.raw`\bou (?:etes[- ]vous|es[- ]tu|se trouve|vous trouver)\b|\b(?:votre|ton) adresse\b`,
        String.raw`\bwo (?:sind sie|seid ihr|bist du|finde ich (?:sie|euch|dich)|befindet sich|liegt (?:ihr|euer|dein))\b|\b(?:ihre|deine|eure) (?:adresse|anschrift)\b`,
        String.raw`\bonde (?:fica|ficam|estao|voces estao|esta (?:a|o) (?:loja|escritorio|oficina))\b|\b(?:seu|teu) endereco\b`,
      ].join('|'),
    ),
  ],
  // The opening hours, asked of no day in particular: a day named ("Are you open on Saturday?") is
  // searched with what pages call it (searched-query.ts) and answered like any question.
  [
    'hours',
    new RegExp(
      [
        String.raw`^(?!.*\b(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|week-?(?:days?|ends?))\b).*(?:\b(?:opening|business|office|shop|store) (?:hours|times)\b|\b${YOUR} (?:opening )?hours\b|^\W*hours\W*$|\bwhen (?:are|r) (?:you|u) open\b|\b(?:when|what time) do (?:you|u) (?:open|close)\b)`,
        // "Are you open now?", "is the shop open today?": the hours, which say it (the service does not know the visitor's clock).
        String.raw`\b(?:(?:are|r) (?:you|u)|is (?:it|the (?:shop|store|office|museum|clinic|practice|surgery|studio|salon|restaurant|cafe|pool|gym|garage))) open (?:now|right now|today|tonight|tomorrow|at the moment|currently)\b`,
        String.raw`\bhorarios?\b|\ba que hora (?:abr|cierr)\w*\b|\bhoraires?\b|\bheures d'ouverture\b|\boffnungszeiten\b|\bwann (?:habt ihr|haben sie) (?:auf|geoffnet)\b|\bhorario de funcionamento\b`,
      ].join('|'),
    ),
  ],
  [
    'any',
    new RegExp(
      [
        String.raw`\bhow (?:can|do|could|should) i (?:contact|reach|get in touch with) (?:you|u)\b|\b${YOUR} contact (?:details|info|information)\b`,
        String.raw`\bcomo (?:puedo )?(?:contactar(?:os|les|te)?|comunicarme con (?:ustedes|vosotros))\b|\bcomment (?:puis-je )?(?:vous )?(?:contacter|joindre)\b`,
        String.raw`\bwie (?:kann ich sie|erreiche ich (?:sie|euch|dich))\b|\bcomo (?:posso )?(?:contactar|entrar em contato com|falar com) (?:voces|vos|a loja)\b`,
      ].join('|'),
    ),
  ],
];

/** What the visitor asks for of the business's contact details, if anything. */
export function asksForContact(message: string): ContactKind | undefined {
  const folded = foldForIntent(message);
  return ASKS.find(([, pattern]) => pattern.test(folded))?.[0];
}

/**
 * A street address as pages write them: a house number and a street named as a street ("14 Clarence
 * Esplanade", "350 Fifth Avenue", "12 rue de la Paix"), a street and its number ("Hauptstraße 5",
 * "Calle Mayor 3", "Rua Augusta 24"), or a postcode written the UK's way ("PO5 3PB") or the US's
 * (", NY 10118"). Documentation's numbers ("1 in a Value(),", "SELECT 55 AS") are none of these.
 */
const ADDRESS = new RegExp(
  [
    String.raw`\b\d{1,5}[a-z]?,?\s+(?:\p{Lu}[\p{L}'’.-]*\s+){0,3}(?:Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Drive|Dr|Way|Boulevard|Blvd|Place|Pl|Square|Sq|Court|Ct|Terrace|Esplanade|Parade|Crescent|Close|Row|Highway|Hwy|Parkway|Pkwy|Walk|Quay|Wharf|Broadway|Plaza|Mews|Green|Gardens)\b`,
    String.raw`\b\d{1,4}(?:\s?(?:bis|ter))?,?\s+(?:rue|avenue|boulevard|bd|place|chemin|allée|impasse|quai|route|cours)\s`,
    String.raw`\p{Lu}[\p{L}-]*(?:straße|strasse|str\.|weg|gasse|platz|allee|damm|ufer)\s+\d{1,4}[a-z]?\b`,
    String.raw`\b(?:Calle|C/|Avenida|Avda\.|Av\.|Plaza|Paseo|Carrer|Rua|Travessa|Largo|Praça|Via|Viale|Piazza|Corso)\s+(?:[\p{L}'’.]+\s+){0,4}\d{1,4}\b`,
    String.raw`\b[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}\b`,
    String.raw`,\s*[A-Z]{2}\s\d{5}(?:-\d{4})?\b`,
  ].join('|'),
  'u',
);

// What stands before a phone number or an e-mail address a page gives for visitors ("Call us on",
// "Phone:", "email", "Write to"), in the classifier's languages, accents folded.
const PHONE_WORD =
  /\b(?:call|phone|tel|telephone|mobile|whatsapp|ring|llame|llamar|llamenos|telefono|movil|appelez|appeler|telephonez|anrufen|rufen|telefon|mobil|ligue|ligar|telefone|celular)\b(?:\W+\w+){0,3}\W*$/;
const EMAIL_WORD =
  /\b(?:e-?mail|mail|write|contact|correo|escribenos|escriba|courriel|ecrivez|schreiben|kontakt|contato|escreva)\b(?:\W+\w+){0,3}\W*$/;
// RFC 2606 / 6761 names are placeholders ("bob@example.com" in a tutorial), not the business's own.
const PLACEHOLDER_DOMAIN = /@([a-z0-9-]+\.)*(example\.(com|net|org)|[a-z0-9-]+\.(test|invalid|localhost))$/i;

function introduced(text: string, index: number, words: RegExp): boolean {
  return words.test(foldForIntent(text.slice(Math.max(0, index - 40), index)));
}

function statesPhone(text: string): boolean {
  return listedPhonesIn(text).some((p) => introduced(text, p.index, PHONE_WORD) || detailsPart(text, p.index, p.text));
}

/**
 * Whether the number opens a part of its own in a line of details: a footer's "The Harbour Inn, Quay
 * Street, St Ives TR26 1LT · 01736 496 210 · stay@…" or "care@… · 0131 496 0455 (Mon–Fri 9am–5pm)"
 * gives it with no word before it, and the line says what it is.
 */
function detailsPart(text: string, index: number, found: string): boolean {
  const start = text.lastIndexOf('\n', index) + 1;
  const end = text.indexOf('\n', index);
  const parts = text.slice(start, end < 0 ? undefined : end).split(/\s+[·•|]\s+/);
  return parts.length >= 2 && parts.some((part) => part.trim().startsWith(found));
}

function statesEmail(text: string): boolean {
  return emailsIn(text).some((e) => !PLACEHOLDER_DOMAIN.test(e.text) && introduced(text, e.index, EMAIL_WORD));
}

/** Opening hours: a clock time beside a day, "daily" or an opening word ("Open Mon–Fri 8am–5:30pm"). */
const HOURS_WORD =
  /\b(?:open|opens|opening|closed?|daily|every day|weekdays?|weekends?|mon|tue|wed|thu|fri|sat|sun|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|abierto|abrimos|lunes|martes|viernes|sabados?|domingos?|ouvert|lundi|samedi|dimanche|geoffnet|montag|samstag|sonntag|aberto|segunda|sabado)\b/i;

function statesHours(text: string): boolean {
  return statesTime(text) && HOURS_WORD.test(foldForIntent(text));
}

/** Whether a text states what was asked for: a phone number, an e-mail address, an address, the opening hours, or any of the first three. */
export function statesContact(text: string, kind: ContactKind): boolean {
  switch (kind) {
    case 'phone':
      return statesPhone(text);
    case 'email':
      return statesEmail(text);
    case 'address':
      return ADDRESS.test(text);
    case 'hours':
      return statesHours(text);
    case 'any':
      return statesPhone(text) || statesEmail(text) || ADDRESS.test(text);
  }
}

/**
 * A page given to the business's own details, by its address or its name ("/contact", "Find us",
 * "Visit", "Kontakt", "Location"): where a site states its address, not a partner's — a vet's
 * out-of-hours page names the emergency clinic's address and number.
 */
const CONTACT_PAGE =
  /\b(?:contact(?:[-_ ]?us)?|contacto|contato|kontakt|find[-_ ]?us|visit(?:[-_ ]?us)?|locations?|directions|getting[-_ ]here|how[-_ ]to[-_ ]find[-_ ]us|impressum)\b/i;

export function isContactPage(url: string, title: string): boolean {
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {}
  return CONTACT_PAGE.test(path.replace(/\.[a-z]+$/i, '')) || CONTACT_PAGE.test(pageName(title));
}

/** A section about opening hours, by its name ("Opening hours", "Horarios", "Öffnungszeiten"). */
const HOURS_SECTION = /\b(?:hours|opening|times|horarios?|horaires?|öffnungszeiten)\b/i;

/** Whether a section's name says it gives the business's details or its hours ("Contact us", "Find us", "Opening hours"). */
export function namesContactSection(name: string): boolean {
  return CONTACT_PAGE.test(name) || HOURS_SECTION.test(name);
}

/**
 * Words searched beside a contact question's own, weighed as a follow-up's context words (half, and
 * never counted as absent): what a contact page says in the site's language.
 */
const CONTACT_SEARCH_WORDS =
  'contact call phone tel email address find visit us contacto llamar teléfono dirección correo appeler téléphone adresse kontakt anrufen telefon contato telefone endereço';
/** …and for the opening hours. */
const HOURS_SEARCH_WORDS = 'open opening hours times closed horario abierto horaires ouvert öffnungszeiten geöffnet aberto';

/** The words searched beside a question for the business's `kind` of details. */
export function contactSearchWords(kind: ContactKind): string {
  return kind === 'hours' ? HOURS_SEARCH_WORDS : CONTACT_SEARCH_WORDS;
}
