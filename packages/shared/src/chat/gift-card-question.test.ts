import { describe, expect, it } from 'vitest';
import { asksForGiftCard, statesGiftCard } from './gift-card-question.ts';

describe('gift card questions', () => {
  it.each([
    'Do you sell gift cards?',
    'do you do gift vouchers',
    'How long is a gift card valid?',
    'Can I buy a giftcard online?',
    '¿Tenéis tarjetas regalo?',
    'Vendez-vous des bons cadeaux ?',
    'Haben Sie Gutscheine?',
    'Vocês vendem vale-presente?',
  ])('%j asks about gift cards', (message) => {
    expect(asksForGiftCard(message)).toBe(true);
  });

  it.each(['Can I pay by card?', '¿Aceptáis tarjeta?', 'Is there a gift shop?', 'Do you wrap gifts?'])('%j does not', (message) => {
    expect(asksForGiftCard(message)).toBe(false);
  });

  it('finds a text that names them, not one that names cards taken in payment', () => {
    expect(statesGiftCard('Gift vouchers: Vouchers of £25, £50 and £100 can be bought at the restaurant.')).toBe(true);
    expect(statesGiftCard('Digital gift cards from £25 to £250, sent by email.')).toBe(true);
    expect(statesGiftCard('Aceptamos tarjeta, efectivo y Bizum.')).toBe(false);
  });
});
