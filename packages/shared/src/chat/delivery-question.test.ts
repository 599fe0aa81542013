import { describe, expect, it } from 'vitest';
import { asksForDelivery, DELIVERY_NAME, statesDelivery } from './delivery-question.ts';
import { namedFor } from './stated-questions.ts';

describe('delivery questions', () => {
  it.each([
    'do you deliver?',
    'Do you deliver to Ireland?',
    'can u ship to canada',
    'Do you ship abroad?',
    'do you do delivery?',
    'Is there free delivery?',
    'delivery?',
    'shipping options?',
    'Where do you deliver?',
    'Can you post it to France?',
    '¿Hacéis envíos a domicilio?',
    'Livrez-vous en Belgique ?',
    'Liefern Sie nach Österreich?',
    'Vocês entregam em casa?',
  ])('%j asks whether the business delivers', (message) => {
    expect(asksForDelivery(message)).toBe(true);
  });

  it.each([
    'How much is delivery?',
    'How long does delivery take?',
    'Can you send me a quote?',
    'Can you send it to me by email?',
    'How long does Exim keep retrying a message it cannot deliver?',
    'How do I send all outgoing mail through my ISP’s mail server instead of delivering it directly?',
    'Can Postfix deliver mail to a Maildir?',
    'What is a delivery status notification?',
  ])('%j does not', (message) => {
    expect(asksForDelivery(message)).toBe(false);
  });

  it('finds a page saying how the business delivers, in its nouns or a verb said of it', () => {
    for (const text of [
      'Free UK delivery on orders over £60.',
      'We deliver through Deliveroo within three miles.',
      'International: We ship to the EU, the USA and Canada.',
      'UK standard (Royal Mail Tracked 48): 2–3 working days.',
      'We offer free collection and delivery within 5 miles.',
      'Envío a domicilio en 24 horas.',
    ])
      expect(statesDelivery(text), text).toBe(true);
    for (const text of [
      'Our tasting room is at 8 Park Row, Bristol.',
      'Phone us to book or change an appointment.',
      'The ship’s bell hangs in the first gallery.',
    ])
      expect(statesDelivery(text), text).toBe(false);
  });

  it('knows a page or section named for delivery', () => {
    const namesDelivery = (url: string, title: string, heading?: string) => namedFor(DELIVERY_NAME)({ url, title, heading });
    expect(namesDelivery('https://shop.example/delivery.html', 'Delivery | Wren & Thistle')).toBe(true);
    expect(namesDelivery('https://shop.example/info', 'Shipping and returns')).toBe(true);
    expect(namesDelivery('https://r.example/visit.html', 'Visit us', 'Takeaway and delivery')).toBe(true);
    expect(namesDelivery('https://shop.example/returns.html', 'Returns', 'How to return')).toBe(false);
  });
});
