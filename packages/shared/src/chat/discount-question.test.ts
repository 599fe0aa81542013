import { describe, expect, it } from 'vitest';
import { asksForDiscount, discountGroupAsked, statesDiscount } from './discount-question.ts';
import { inOneSentence } from './stated-questions.ts';

describe('discount questions', () => {
  it.each([
    'Is there a student discount?',
    'do you have any offers?',
    'any deals on?',
    'Do you do concessions?',
    'Do you offer a discount for pensioners?',
    'do you do discounts for groups',
    'is there a discount if I pay yearly',
    'Is it cheaper for kids?',
    '¿Hay descuento para estudiantes?',
    'Avez-vous des réductions ?',
    'Gibt es Rabatt für Studenten?',
    'Tem desconto para estudantes?',
  ])('%j asks for a discount or an offer', (message) => {
    expect(asksForDiscount(message)).toBe(true);
  });

  it.each(['Do you offer private lessons?', 'What do you offer?', 'How much is a student visa?', 'Can I make an offer on a house?'])(
    '%j does not',
    (message) => {
      expect(asksForDiscount(message)).toBe(false);
    },
  );

  it('finds a discount stated in its own words', () => {
    for (const text of [
      'Concession (over 65, student): £7.50.',
      'Students and over-65s pay £55.',
      'Registered non-profit organisations and schools get 50% off any paid plan.',
      'Groups of 10 or more get £1 off each adult ticket.',
      'Choose annual billing and you get two months free.',
      'Under-fives swim free with a paying adult.',
    ])
      expect(statesDiscount(text), text).toBe(true);
    for (const text of ['We offer NHS and private dentistry.', 'The residence costs £320 a week and is open to students aged 18 and over.'])
      expect(statesDiscount(text), text).toBe(false);
    // In one sentence: a passage's "offer" and "students" in two sentences state none.
    expect(inOneSentence(statesDiscount)('We offer evening classes. Students live with host families.')).toBe(false);
  });

  it('names the group asked about, and a page must name it too', () => {
    expect(discountGroupAsked('Is there a student discount?')?.test('concession (over 65, student)')).toBe(true);
    expect(discountGroupAsked('Is there a student discount?')?.test('children under three stay free')).toBe(false);
    expect(discountGroupAsked('Do you offer a discount for pensioners?')?.test('students and over-65s pay £55')).toBe(true);
    expect(discountGroupAsked('do you have any offers?')).toBeUndefined();
  });
});
