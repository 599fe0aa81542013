import { describe, expect, it } from 'vitest';
import { asksForTime, statesTime } from './time-question.ts';

describe('time questions', () => {
  it('asks for a time or a date in the five languages, not in the visitor’s own "when" clause', () => {
    for (const q of [
      'What time is breakfast?',
      'When does the diving exhibition end?',
      'when are you open',
      'how late is the bar open',
      '¿A qué hora abren?',
      'À quelle heure ouvrez-vous ?',
      'Wann öffnet das Museum?',
      'A que horas abre?',
    ])
      expect(asksForTime(q), q).toBe(true);
    for (const q of ['When I run mode2 I get an error', 'when do I need to book', 'how long is a lesson', 'how much is a ticket'])
      expect(asksForTime(q), q).toBe(false);
  });

  it('states one as a clock time or a day of a month', () => {
    for (const t of ['Breakfast is served from 8am to 9:30am.', 'Open until 17:30.', 'Until 31 May.', 'Opens June 14th.', 'at noon'])
      expect(statesTime(t), t).toBe(true);
    for (const t of ['A lesson is 50 minutes.', 'Version 3.14 adds pragmas.', 'We are open every day.', 'May I bring a friend?'])
      expect(statesTime(t), t).toBe(false);
  });
});
