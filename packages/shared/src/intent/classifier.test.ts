import { describe, expect, it } from 'vitest';
import { detectLeadIntent } from './classifier.ts';

// The categories one by one; the labelled set (test/providers/lead-intent.test.ts) measures the whole.
describe('detectLeadIntent', () => {
  it.each([
    'call me',
    'Could someone from your team get in touch with me?',
    'We want a quote for 12 locations',
    'can we book a demo next week',
    'set up a trial for my team please',
    'I would like to discuss pricing for an enterprise plan',
    'let me talk to a real person',
    'llámenme por favor',
    'Je voudrais un devis',
    'Ich möchte mit dem Vertrieb sprechen',
    'quero falar com um atendente',
  ])('asks for contact: %j', (text) => {
    expect(detectLeadIntent(text)).toBe(true);
  });

  it.each([
    'jane@acme-widgets.com',
    'my number: +49 30 1234567',
    'reach me on 020 7946 0018',
    '(11) 98765-4321 whatsapp',
    // A question that is no how-to, with the visitor's own details.
    'Can I book a table for 4 tonight? my number is 07700 900123',
    'What do you charge for a new boiler? my email jane@acme-widgets.com',
  ])('leaves contact details: %j', (text) => {
    expect(detectLeadIntent(text)).toBe(true);
  });

  it.each([
    'what is your phone number?',
    'Is info@acme-widgets.com your support address?',
    'send a test mail to bob@example.com from my script',
    // An address the Internet does not reach, in a question about configuring mail; a how-to question about an address.
    'How do I change the sender address on mail leaving my network, e.g. from user@localdomain.local to my real domain?',
    'mail from root@backup.internal to my inbox gets rejected',
    'How do I rewrite bob@mail.acme.com to bob@acme.com on my server?',
    'the server at 10.0.0.12 refuses connections',
    'we upgraded to 18.20.4 on 2024-03-15',
    'my invoice number is 2024 0001 2345',
    'we serve 1 000 000 requests a day',
    'how do I escape a quote mark in YAML?',
    'can my customers contact me through the chat widget?',
    'how long is the free trial?',
    '',
    '   ',
  ])('is not a lead: %j', (text) => {
    expect(detectLeadIntent(text)).toBe(false);
  });
});
