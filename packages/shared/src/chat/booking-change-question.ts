import { foldForIntent } from '../intent/classifier.ts';

/**
 * A question whether a booking can be changed ("can I change my appointment?", "I need to reschedule my
 * booking", "can we move our reservation to Friday?") is answered by a page that says how a booking is
 * changed or cancelled ("Phone us to book or change an appointment", "Cancel up to 7 days before arrival
 * for a full refund"). Its verb means other things on most sites — a hotel answered it with "Change at St
 * Erth for the branch line", a yoga studio with its changing rooms, a cleaning company with "changes the
 * beds" — so, as for how the business is paid (payment-question.ts), the answer must state it, and a site
 * that says nothing of it declines; so is one whether it can be cancelled ("can I cancel my booking?": an
 * accountant answered with "we will move your books online", a garage with "Book at least a day ahead"),
 * and one whether an order can ("Can I change my order?": a hotel quoted "Change at St Erth", a shop its next-day delivery).
 * English, Spanish, French, German and Portuguese, accents folded.
 */
const BOOKING = String.raw`appointments?|appt|bookings?|reservations?|orders?|booked (?:class|session|lesson|table|room|slot)|class|lesson|session|slot|table|visit|stay|dates?|time`;
const CHANGE_VERB = String.raw`change|changing|move|moving|reschedule|rescheduling|rearrange|amend|modify|postpone|push back|bring forward|switch|cancel|cancelling|canceling`;
const ASKS_FOR_CHANGE = new RegExp(
  [
    // "my table", "our class" are a booking; "a table", "the class" may be a database's or a program's.
    String.raw`\b(?:${CHANGE_VERB}) (?:my|our) (?:${BOOKING})\b`,
    String.raw`\b(?:${CHANGE_VERB}) (?:the|a|an|this|that) (?:appointments?|appt|bookings?|reservations?)\b`,
    String.raw`\bcancell?ation (?:policy|fees?|charges?)\b`,
    String.raw`\b(?:reschedule|rearrange|postpone)\b`,
    String.raw`\b(?:change|move|amend|modify) (?:it|the date|the time|the day)\b.{0,30}\b(?:appointment|booking|reservation)\b`,
    String.raw`\b(?:cambiar|mover|aplazar) (?:mi|la|nuestra) (?:cita|reserva)\b`,
    String.raw`\b(?:changer|modifier|deplacer|reporter) (?:mon|ma|notre) (?:rendez-vous|reservation)\b`,
    String.raw`\b(?:termin|buchung|reservierung) (?:andern|verschieben|umbuchen)\b|\bumbuchen\b`,
    String.raw`\b(?:mudar|alterar|remarcar|adiar) (?:a minha|minha|a nossa|nossa|o meu|meu) (?:marcacao|consulta|reserva)\b`,
  ].join('|'),
);

const CHANGES = String.raw`chang(?:e|es|ed|ing)|cancel(?:s|led|ed|ling|ing|lations?)?|reschedul(?:e|es|ed|ing)|rearrang(?:e|es|ed|ing)|amend(?:s|ed|ing)?|mov(?:e|es|ed|ing)|postpon(?:e|es|ed|ing)|refund|cambiar|cancelar|cancelacion|anular|changer|annuler|annulation|andern|absagen|stornieren|stornierung|alterar|cancelamento|desmarcar`;
const BOOKED = String.raw`appointments?|bookings?|book|booked|reservations?|orders?|arrival|class|classes|lesson|lessons|sessions?|visit|notice|(?:hours|days|weeks) (?:before|ahead|notice)|cita|reserva|rendez-vous|reservation|termin|buchung|consulta|marcacao`;
const STATES_CHANGE = new RegExp(String.raw`\b(?:${CHANGES})\b`);
const STATES_BOOKED = new RegExp(String.raw`\b(?:${BOOKED})\b`);

export function asksForBookingChange(message: string): boolean {
  return ASKS_FOR_CHANGE.test(foldForIntent(message));
}

const ORDER = /\borders?\b/;

/** Whether the question asks about an order ("Can I change my order?") rather than a booking. */
export function asksAboutOrder(message: string): boolean {
  return ORDER.test(foldForIntent(message));
}

/**
 * A text that says how a booking is changed or cancelled: a word of changing with one of booking — of an
 * order when the question asks about one (`order`: a hotel's "Cancel up to 7 days before arrival" is no
 * answer to "Can I cancel my order?").
 */
export function statesBookingChange(text: string, order = false): boolean {
  const folded = foldForIntent(text);
  return STATES_CHANGE.test(folded) && STATES_BOOKED.test(folded) && (!order || ORDER.test(folded));
}

/** The words searched beside such a question's own (as context words). */
export const BOOKING_CHANGE_SEARCH_WORDS = 'change cancel cancellation reschedule appointment booking';
