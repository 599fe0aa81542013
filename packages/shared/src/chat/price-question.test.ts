import { describe, expect, it } from 'vitest';
import { asksForPrice, mayAskForPrice, statesPrice } from './price-question.ts';

describe('price questions', () => {
  it.each([
    'How much does a private repository cost per month?',
    'how much do tickets cost',
    'What is the price of the premium plan?',
    "what's your pricing for teams",
    '¿Cuánto cuesta el plan premium?',
    'Combien coûte la livraison ?',
    'Was kostet die Wartung?',
    'Quanto custa a entrega?',
  ])('%j asks for a price', (message) => {
    expect(asksForPrice(message)).toBe(true);
  });

  it.each([
    'How much memory does a worker thread use?',
    'I want the database to compute total = price * quantity on my Order model.',
    'How do I add a price field to my model?',
    'How much is a tune-up?',
  ])('%j does not', (message) => {
    expect(asksForPrice(message)).toBe(false);
  });

  it('takes "how much is/to/for" as maybe a price: preferred where stated, never declined for it', () => {
    for (const message of [
      'How much is a tune-up?',
      'how much to rent a bike for a day',
      '¿Cuánto es la reparación?',
      'How much does it cost?',
      // A follow-up's surcharge: "Can we bring our dog?", then "how much extra?".
      'how much extra?',
    ])
      expect(mayAskForPrice(message), message).toBe(true);
    for (const message of ['How much memory does a worker thread use?', 'Is a tune-up included?'])
      expect(mayAskForPrice(message), message).toBe(false);
  });

  it('finds an amount with its currency, or "free of charge"', () => {
    for (const text of [
      'Plans start at $49 a month.',
      'Lieferung 4,90 € pro Paket',
      'costs 49 dollars per month',
      'It is free of charge.',
      'EUR: 20 EUR',
    ])
      expect(statesPrice(text), text).toBe(true);
    for (const text of ['The cost of a sequential scan is estimated per page.', 'Billed monthly.', 'Version 2.4 costs less memory.'])
      expect(statesPrice(text), text).toBe(false);
  });
});
