import { describe, expect, it } from 'vitest';
import { asksForPrice, mayAskForPrice, rateUnitAsked, statesPrice, statesRate } from './price-question.ts';

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

  it('reads the unit a price is asked per, and finds an amount stated per it', () => {
    const asked: [string, string | undefined][] = [
      ['how much do you charge per hour', 'hour'],
      ['hourly rate?', 'hour'],
      ['how much per month?', 'month'],
      ['How much is a room a night?', 'night'],
      ['What is the daily rate?', 'day'],
      // The price of one, not a rate: "a lesson", "a room".
      ['How much is a lesson?', undefined],
      ['How much does it cost?', undefined],
      ['How long is a night shift?', undefined],
    ];
    for (const [message, unit] of asked) expect(rateUnitAsked(message), message).toBe(unit);
    const stated: [string, string, boolean][] = [
      ['Regular cleaning: £19 an hour (minimum 2 hours)', 'hour', true],
      ['charged at £65 for the first hour and £45 for each hour after that', 'hour', true],
      ['Per night, low season: £95', 'night', true],
      ['From £95/night in winter.', 'night', true],
      ['Room | Sleeps | Per night\nCosy double (no view) | 2 | from £110', 'night', true],
      // A duration beside a price, or a rate of another unit.
      ['An air-con regas costs £59 and takes about an hour.', 'hour', false],
      ['A pack of 10 classes costs £100 and is valid for four months.', 'month', false],
      ['Unlimited classes for £75 a month.', 'hour', false],
      ['Tell us within 24 hours and we will put it right at no charge.', 'hour', false],
    ];
    for (const [text, unit, states] of stated) expect(statesRate(text, unit), text).toBe(states);
  });
});
