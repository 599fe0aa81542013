import { describe, expect, it } from 'vitest';
import { asksForDuration, statesDuration } from './duration-question.ts';

describe('duration questions', () => {
  it('asks for a duration in the five languages, not for an amount', () => {
    for (const q of [
      'how long is a lesson',
      'How long will my order take to arrive?',
      'how many days does shipping take',
      '¿Cuánto tiempo dura?',
      'combien de temps dure le cours',
      'Wie lange dauert die Lieferung?',
      'quanto tempo demora',
    ])
      expect(asksForDuration(q), q).toBe(true);
    for (const q of ['how much is a lesson', 'how many students in a class', 'long hair cut price'])
      expect(asksForDuration(q), q).toBe(false);
  });

  it('states one as a number and a unit of time', () => {
    for (const t of [
      'A lesson is 50 minutes.',
      'Standard delivery (2–3 working days)',
      'usually with you within two hours',
      'a 10-minute walk',
      'La clase dura 60 minutos.',
    ])
      expect(statesDuration(t), t).toBe(true);
    for (const t of ['A 30-lesson course', 'Open 9am to 5pm', 'costs £12', 'two classes a week']) expect(statesDuration(t), t).toBe(false);
  });
});
