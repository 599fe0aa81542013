import { describe, expect, it } from 'vitest';
import { asksAboutOrder, asksForBookingChange, statesBookingChange } from './booking-change-question.ts';
import { inOneSentence } from './stated-questions.ts';

describe('booking-change questions', () => {
  it.each([
    'Can I change my appointment?',
    'I need to reschedule my booking',
    'can we move our reservation to Friday?',
    'Can I cancel my booking?',
    'can I postpone?',
    "what's your cancellation policy",
    '¿Puedo cambiar mi cita?',
    'Puis-je modifier ma réservation ?',
    'Kann ich den Termin verschieben?',
    'Posso remarcar a minha consulta?',
  ])('%j asks whether a booking can be changed or cancelled', (message) => {
    expect(asksForBookingChange(message)).toBe(true);
  });

  it.each([
    'Do you have changing rooms?',
    'Where do I change trains?',
    'Can I change my password?',
    'How do I cancel a running query?',
    'Can I cancel my subscription?',
    'How do I move a table to another schema?',
    'How do I change the class of an object?',
    'change the time zone of my session',
  ])('%j does not', (message) => {
    expect(asksForBookingChange(message)).toBe(false);
  });

  it('finds a sentence saying how a booking is changed or cancelled', () => {
    for (const text of [
      'Phone 0117 496 0456 or email reception@example.org to book or change an appointment.',
      'Cancel up to 7 days before arrival for a full refund of your deposit.',
      'You can cancel up to 12 hours before class without losing the credit.',
    ])
      expect(statesBookingChange(text), text).toBe(true);
    for (const text of ['By train: Change at St Erth for the branch line.', 'Changing rooms have lockers.', 'Book at least a day ahead.'])
      expect(statesBookingChange(text), text).toBe(false);
    // In one sentence: a passage's words of changing and of booking in two sentences say nothing of it.
    expect(inOneSentence((text) => statesBookingChange(text))('Change at St Erth for the branch line. Book your room online.')).toBe(false);
  });

  it('asks an order of a sentence about orders', () => {
    expect(asksForBookingChange('Can I change my order?')).toBe(true);
    expect(asksForBookingChange('Can I cancel my order?')).toBe(true);
    expect(statesBookingChange('Cancel up to 7 days before arrival for a full refund.', asksAboutOrder('Can I cancel my order?'))).toBe(
      false,
    );
    expect(statesBookingChange('You can cancel an order until it has been dispatched.', asksAboutOrder('Can I cancel my order?'))).toBe(
      true,
    );
    expect(statesBookingChange('Cancel up to 7 days before arrival for a full refund.', asksAboutOrder('Can I cancel my booking?'))).toBe(
      true,
    );
  });
});
