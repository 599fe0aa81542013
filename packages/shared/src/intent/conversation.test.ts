import { describe, expect, it } from 'vitest';
import { dontKnowReply } from '../providers/chat/canned-replies.ts';
import { acceptsContactOffer, isAcceptance, isContactRequestOnly, offersContact } from './conversation.ts';

const LANGS = ['en', 'es', 'fr', 'de', 'pt'] as const;

describe('offersContact', () => {
  it('recognises the "don’t know" reply in every language as a contact offer', () => {
    for (const lang of LANGS) expect(offersContact(dontKnowReply('Acme', lang)), lang).toBe(true);
  });

  it('recognises a model’s own offer, and not other questions or answers', () => {
    expect(offersContact("I couldn't find that. Shall I ask someone from sales to call you? 🙂")).toBe(true);
    expect(offersContact('Delivery is free above 50 dollars [1]. Anything else I can help with?')).toBe(false);
    expect(offersContact('Would you like someone to contact you? We are open Monday to Friday [1].')).toBe(false);
    expect(offersContact('Happy to help — leave your name and email in the form.')).toBe(false);
  });
});

describe('isAcceptance', () => {
  it.each([
    'yes',
    'Yes please!',
    'sure',
    'ok',
    'Okay, thanks',
    'yes, call me',
    'that would be great',
    'of course',
    'oui',
    'oui, merci',
    "d'accord",
    'bien sûr',
    'ja',
    'Ja gerne',
    'ja bitte',
    'sehr gerne',
    'sí',
    'Sí, por favor',
    'claro que sí',
    'vale',
    'sim',
    'sim, por favor',
    'pode ser',
  ])('yes: %j', (text) => {
    expect(isAcceptance(text)).toBe(true);
  });

  it.each([
    'no thanks',
    'No',
    'nein danke',
    'non merci',
    'no, gracias',
    'não, obrigado',
    'not now',
    'yes but not today',
    'Yes. How much is the premium plan?',
    'how much is it?',
    '',
  ])('not a yes: %j', (text) => {
    expect(isAcceptance(text)).toBe(false);
  });
});

describe('acceptsContactOffer', () => {
  const offer = (lang: (typeof LANGS)[number]) => [
    { role: 'user' as const, content: 'Do you sell gift cards?' },
    { role: 'assistant' as const, content: dontKnowReply('Acme', lang) },
  ];

  it('is a yes right after the offer', () => {
    expect(acceptsContactOffer('yes please', offer('en'))).toBe(true);
    expect(acceptsContactOffer('oui', offer('fr'))).toBe(true);
    expect(acceptsContactOffer('ja gerne', offer('de'))).toBe(true);
    expect(acceptsContactOffer('sí', offer('es'))).toBe(true);
    expect(acceptsContactOffer('sim', offer('pt'))).toBe(true);
  });

  it('is not a no, nor a yes with no offer before it', () => {
    expect(acceptsContactOffer('no thanks', offer('en'))).toBe(false);
    expect(acceptsContactOffer('nein danke', offer('de'))).toBe(false);
    expect(acceptsContactOffer('yes', [])).toBe(false);
    expect(acceptsContactOffer('yes', [...offer('en'), { role: 'user', content: 'hmm' }])).toBe(false);
    expect(acceptsContactOffer('yes', [{ role: 'assistant', content: 'The premium plan costs 49 dollars [1].' }])).toBe(false);
  });
});

describe('isContactRequestOnly', () => {
  it.each([
    'call me about a quote',
    'Could you call me about a quote for a new boiler?',
    'We need a quote. We have 12 sites.',
    'Je voudrais un devis',
  ])('only a contact request: %j', (text) => {
    expect(isContactRequestOnly(text)).toBe(true);
  });

  it.each([
    'How much is the premium plan? Please call me.',
    'How much does it cost, and can someone call me?',
    'how do I escape a quote?',
    'yes',
  ])('not (only) a contact request: %j', (text) => {
    expect(isContactRequestOnly(text)).toBe(false);
  });
});
