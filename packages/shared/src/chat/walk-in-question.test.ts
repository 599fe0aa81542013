import { describe, expect, it } from 'vitest';
import { asksForWalkIn, statesWalkIn } from './walk-in-question.ts';

describe('questions whether visitors can come without booking', () => {
  it.each([
    'Do you accept walk-ins?',
    'walk ins ok?',
    'can I just turn up?',
    'Can we just drop in?',
    '¿Atendéis sin cita?',
    'Geht es auch ohne Termin?',
  ])('%j asks it', (message) => {
    expect(asksForWalkIn(message)).toBe(true);
  });

  it.each(['Do the rooms have walk-in showers?', 'How far is it to walk?', 'Do I need an appointment for a check-up?'])(
    '%j does not',
    (message) => {
      expect(asksForWalkIn(message)).toBe(false);
    },
  );

  it('finds a sentence that says whether, not one about walking', () => {
    for (const text of [
      'We keep a few tables free for walk-ins every evening.',
      'Tickets can be bought at the door; there is no need to book except for groups of 10 or more.',
      'Emergencies are seen without an appointment.',
      'Atendemos sin cita solo si hay hueco libre.',
    ])
      expect(statesWalkIn(text), text).toBe(true);
    for (const text of ['We are a five-minute walk from the station.', 'Book your place on our app or at the desk.'])
      expect(statesWalkIn(text), text).toBe(false);
  });
});
