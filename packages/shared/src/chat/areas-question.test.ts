import { describe, expect, it } from 'vitest';
import { asksForAreas, statesAreas } from './areas-question.ts';

describe('questions for the areas a business covers', () => {
  it.each([
    'What areas do you cover?',
    'which areas?',
    'how far do you travel?',
    'Do you cover my area?',
    'what postcodes do you serve',
    'Is there a service area?',
    '¿Qué zonas cubrís?',
    'Quelles zones couvrez-vous ?',
  ])('%j asks for them', (message) => {
    expect(asksForAreas(message)).toBe(true);
  });

  it.each(['Do you cover Otley?', 'Is there a play area?', 'What does the insurance cover?', 'Where are you?', 'How do I get there?'])(
    '%j does not',
    (message) => {
      expect(asksForAreas(message)).toBe(false);
    },
  );

  it('finds a sentence that says where the business works, not one that shares a word', () => {
    for (const text of [
      'We work across Leeds and within about 15 miles of the city centre.',
      'Since 2014 our teams have cleaned homes across Didsbury, Chorlton, Withington, Sale and Stockport.',
      'We offer free collection and delivery within 5 miles.',
      'We cover North London and Hertfordshire.',
    ])
      expect(statesAreas(text), text).toBe(true);
    for (const text of [
      'We hold £5 million public liability insurance, and breakages are covered.',
      'Twelve bedrooms above a 17th-century pub, most with views across the harbour.',
      'Not sure if we cover your postcode?',
      '20 lessons a week, covering speaking, listening, reading and writing.',
    ])
      expect(statesAreas(text), text).toBe(false);
  });
});
