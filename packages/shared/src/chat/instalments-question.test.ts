import { describe, expect, it } from 'vitest';
import { instalmentsAsked, statesInstalments } from './instalments-question.ts';

describe('questions whether the bill can be paid over time', () => {
  it.each([
    ['Can I pay in instalments?', 'credit'],
    ['can i pay in installments', 'credit'],
    ['Do you offer finance?', 'credit'],
    ['Is there a payment plan?', 'credit'],
    ['Can I pay monthly?', 'monthly'],
    ['Can I spread the cost?', 'monthly'],
    ['¿Puedo pagar a plazos?', 'credit'],
    ['Puis-je payer en plusieurs fois ?', 'credit'],
    ['Ist Ratenzahlung möglich?', 'credit'],
    ['Posso parcelar?', 'credit'],
  ])('%j asks to pay over time (%s)', (message, asked) => {
    expect(instalmentsAsked(message)).toBe(asked);
  });

  it.each([
    'Can I pay by card?',
    'How much is the monthly membership?',
    'Do you do company finance and accounts?',
    'What does a check-up cost?',
    'When is the monthly quiz?',
  ])('%j does not', (message) => {
    expect(instalmentsAsked(message)).toBeUndefined();
  });

  it('finds a text that says so: on credit, or so much a month when asked to pay monthly', () => {
    for (const text of [
      'Treatment over £1,000 can be spread over 12 months interest-free.',
      'For unexpected bills over £500 we offer payment plans through a finance partner.',
      'Finance is available on new boiler installations.',
      'Pay in 3 interest-free instalments with Klarna.',
      'Puede pagar a plazos sin intereses.',
    ])
      for (const asked of ['credit', 'monthly'] as const) expect(statesInstalments(text, asked), `${asked}: ${text}`).toBe(true);
    for (const text of [
      'Unlimited classes for £75 a month.',
      'You pay one fixed fee each month.',
      'Our fees are paid monthly by direct debit.',
    ]) {
      expect(statesInstalments(text, 'monthly'), text).toBe(true);
      expect(statesInstalments(text, 'credit'), text).toBe(false);
    }
    for (const text of ['Pay-and-display parking is on King Street.', 'We accept cards and cash.', 'Our monthly newsletter has offers.'])
      expect(statesInstalments(text, 'monthly'), text).toBe(false);
  });
});
