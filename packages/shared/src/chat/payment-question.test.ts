import { describe, expect, it } from 'vitest';
import { asksForPaymentMethod, paymentMethodsUnsaid, statesOwnPaymentMethod, statesPaymentMethod } from './payment-question.ts';

describe('payment-method questions', () => {
  it.each([
    'Can I pay by card?',
    'can i pay with paypal',
    'Do you take cash?',
    'do u accept credit cards?',
    'Can I pay in bitcoin?',
    'What payment methods do you accept?',
    'how can I pay?',
    'cards accepted?',
    '¿Puedo pagar con tarjeta?',
    'Acceptez-vous les cartes ?',
    'Kann ich mit Karte bezahlen?',
    'Posso pagar com cartão?',
  ])('%j asks how the business is paid', (message) => {
    expect(asksForPaymentMethod(message)).toBe(true);
  });

  it.each([
    'How much does it cost?',
    'Can I pay in instalments?',
    'Can I pay monthly?',
    'Do you sell gift cards?',
    'How do I pay for parking with the payments API?',
    'How do I take a card payment with Stripe in Django?',
  ])('%j does not', (message) => {
    expect(asksForPaymentMethod(message)).toBe(false);
  });

  it('finds a way of paying stated with a word of paying or accepting', () => {
    for (const text of [
      'Paying: We accept cards, cash and Apple Pay.',
      'You can pay by card, bank transfer or cash when the job is finished.',
      'One-off cleans are paid by card or bank transfer when we book.',
      'Aceptamos tarjeta, efectivo y Bizum.',
    ])
      expect(statesPaymentMethod(text), text).toBe(true);
    for (const text of [
      'Pay-and-display parking is available on King Street.',
      'You pay one fixed fee each month, agreed before we start.',
      'Can I buy gift cards? Yes, digital gift cards from £10 to £100 are sent by email.',
      'Under-fives swim free with a paying adult.',
      'Students can study for up to 6 months with a Standard Visitor visa once you have paid your deposit.',
      'Dogs are welcome in the bar; pay at the bar.',
      'Webhooks notify your server when an invoice is created, sent or paid.',
    ])
      expect(statesPaymentMethod(text), text).toBe(false);
  });

  it('tells the business’s own payments from a product feature about payments', () => {
    for (const text of [
      'Payment: We accept Visa, Mastercard, American Express and PayPal.',
      'You can pay by card, bank transfer or cash when the job is finished.',
      'One-off cleans are paid by card or bank transfer when we book.',
      'Our fees are fixed and paid monthly by direct debit.',
    ])
      expect(statesOwnPaymentMethod(text), text).toBe(true);
    for (const text of [
      'Set up recurring invoices, and let clients pay online by card.',
      'Let clients pay invoices online with Stripe or PayPal.',
      // A feature's section headed as a business's own payments are.
      'Payments: Let clients pay invoices online with Stripe or PayPal.',
    ])
      expect(statesOwnPaymentMethod(text), text).toBe(false);
  });

  it('names the ways of paying a question asks about that a text does not say, as typed', () => {
    const page = 'Paying: We accept cards, cash and Apple Pay. Treatment checks are free.';
    expect(paymentMethodsUnsaid('Can I pay in Bitcoin?', page)).toEqual(['Bitcoin']);
    expect(paymentMethodsUnsaid('Do you take Amex?', page)).toEqual(['Amex']);
    // A cheque is not a health check.
    expect(paymentMethodsUnsaid('Do you accept cheques?', page)).toEqual(['cheques']);
    expect(paymentMethodsUnsaid('¿Puedo pagar con Bizum?', page)).toEqual(['Bizum']);
    // Said in other words: "Visa" and "contactless" are cards; "contactless" takes Apple Pay; a page in Spanish its "tarjeta".
    for (const [question, text] of [
      ['Can I pay by credit card?', 'We accept Visa and Mastercard.'],
      ['Can I pay with Google Pay?', 'We take cash and contactless payments.'],
      ['Do you take cash?', page],
      ['Can I pay by card?', 'Aceptamos tarjeta, efectivo y Bizum.'],
      ['Can I pay by check?', 'We accept personal checks and cash.'],
    ])
      expect(paymentMethodsUnsaid(question as string, text as string), question).toEqual([]);
    // "Direct debit" says nothing of cards.
    expect(paymentMethodsUnsaid('Can I pay by card?', 'Our fees are paid monthly by direct debit.')).toEqual(['card']);
    // Only of a question how the business is paid.
    expect(paymentMethodsUnsaid('What is bitcoin?', page)).toEqual([]);
  });
});
