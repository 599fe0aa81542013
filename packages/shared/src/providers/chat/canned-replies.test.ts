import { describe, expect, it } from 'vitest';
import { offersContact } from '../../intent/conversation.ts';
import { chatCostUsd, embeddingPricePer1k } from '../pricing.ts';
import {
  dontKnowReply,
  guessLanguage,
  notMentionedLead,
  replyLanguage,
  smallTalkOf,
  smallTalkReply,
  soundsLikeDontKnow,
} from './canned-replies.ts';

describe('guessLanguage', () => {
  it.each([
    ['How do I reset my password?', 'en'],
    ['¿Cómo puedo cambiar mi contraseña?', 'es'],
    ['Comment est-ce que je peux changer mon mot de passe ?', 'fr'],
    ['Wie kann ich mein Passwort ändern?', 'de'],
    ['Como eu faço para mudar minha senha?', 'pt'],
    ['???', 'en'],
    // Short English requests: one Portuguese/Spanish article ("a") used to outvote them.
    ['call me about a quote', 'en'],
    ['I need a quote', 'en'],
    ['email me a quote', 'en'],
    ['yes please', 'en'],
    ['oui merci', 'fr'],
    ['ja gerne', 'de'],
    ['sí, por favor', 'es'],
    ['sim, por favor', 'pt'],
    ['quero um orçamento', 'pt'],
    ['Je voudrais un devis', 'fr'],
    // Spanish without a function word: its opening "¿", or a verb a visitor asks with.
    ['¿Tenéis parking?', 'es'],
    ['¿Hacéis peinados de novia?', 'es'],
    ['abris los domingos', 'es'],
    ['Combien coûte une coupe de cheveux ?', 'fr'],
    ['Quanto custa um corte de cabelo?', 'pt'],
  ])('%j → %s', (text, lang) => {
    expect(guessLanguage(text)).toBe(lang);
  });

  it('uses the fallback (the conversation’s language) when the message has no marker word, or ties', () => {
    expect(guessLanguage('ok', 'de')).toBe('de');
    expect(guessLanguage('ok')).toBe('en');
    expect(guessLanguage('claro', 'pt')).toBe('pt');
    expect(guessLanguage('How do I reset my password?', 'de')).toBe('en');
  });

  it('replies to a message without marker words in the visitor’s language, not the quoted site’s', () => {
    // An English quote's articles ("a learner pool and a sauna") are Portuguese's "a": the visitor asked in English.
    const pool = [
      { role: 'user', content: 'what is this place?' },
      { role: 'assistant', content: 'A 25-metre pool, a learner pool and a sauna, run by the town council. Lockers take a £1 coin. [1]' },
    ];
    expect(guessLanguage(pool[1]?.content ?? '')).toBe('pt');
    expect(replyLanguage('ok', pool)).toBe('en');
    const salon = [
      { role: 'user', content: '¿Qué hacéis?' },
      { role: 'assistant', content: 'Peluquería Lucía: Somos una peluquería familiar en el barrio de Ruzafa desde 2009. [1]' },
    ];
    expect(replyLanguage('ok', salon)).toBe('es');
    // With no marker word in the visitor's messages either, the last reply's.
    expect(
      replyLanguage('ok', [
        { role: 'user', content: 'ok' },
        { role: 'assistant', content: 'Gern geschehen! Kann ich Ihnen sonst noch helfen?' },
      ]),
    ).toBe('de');
  });
});

describe('canned replies', () => {
  it('name the client and are recognised as "don’t know" answers', () => {
    for (const lang of ['en', 'es', 'fr', 'de', 'pt'] as const) {
      const reply = dontKnowReply('Acme', lang);
      expect(reply).toContain('Acme');
      expect(soundsLikeDontKnow(reply)).toBe(true);
    }
    expect(soundsLikeDontKnow('We are open Monday to Friday [1].')).toBe(false);
  });

  it('say before a quote that the site does not name what was asked, without sounding like a "don’t know"', () => {
    expect(notMentionedLead(['Australia'], 'Leafline Tea Co.', 'en')).toBe(
      "Leafline Tea Co.'s website doesn't mention Australia. It says:",
    );
    expect(notMentionedLead(['Chile', 'Peru'], 'Acme', 'es')).toBe('El sitio de Acme no menciona Chile ni Peru. Dice:');
    // A quote follows: the answer is the site's, not a decline.
    for (const lang of ['en', 'es', 'fr', 'de', 'pt'] as const)
      expect(soundsLikeDontKnow(notMentionedLead(['Chile'], 'Acme', lang))).toBe(false);
  });
});

describe('small talk', () => {
  it.each([
    ['hi', 'greeting'],
    ['Hello there!', 'greeting'],
    ['Bom dia', 'greeting'],
    ['thanks!', 'thanks'],
    ['Thank you so much 🙏', 'thanks'],
    ['ok, great', 'ok'],
    ['got it', 'ok'],
    ['ok thanks', 'thanks'],
    ['Danke schön!', 'thanks'],
    ['Muchas gracias', 'thanks'],
    ['no thanks', 'no'],
    ['Non merci', 'no'],
    ['ok thanks, bye', 'goodbye'],
    ['Au revoir', 'goodbye'],
    ["That's not what I asked", 'complaint'],
    ['no, that is wrong', 'complaint'],
    ["you're not helping!", 'complaint'],
    ['No me ayuda', 'complaint'],
    ['Das hilft mir nicht', 'complaint'],
    ['what?', 'unclear'],
    ['huh??', 'unclear'],
    ["I don't understand", 'unclear'],
    ['¿Qué?', 'unclear'],
    ['Wie bitte?', 'unclear'],
  ])('%j is small talk: %s', (message, kind) => {
    expect(smallTalkOf(message)).toBe(kind);
  });

  it.each([
    'hi, do you repair e-bikes?',
    'thanks, how much is a tune-up?',
    'great service?',
    'good bikes for kids',
    'hello world program in node',
    'what is wrong with my config?',
    'what time do you open?',
    'sorry, what are your hours?',
    '',
    '?!',
  ])('%j is not', (message) => {
    expect(smallTalkOf(message)).toBeUndefined();
  });

  it('replies in kind, in the visitor’s language, naming the client where it greets', () => {
    expect(smallTalkReply('greeting', 'Harbour Bikes', 'en')).toBe('Hello! What would you like to know about Harbour Bikes?');
    expect(smallTalkReply('thanks', 'Harbour Bikes', 'de')).toBe('Gern geschehen! Kann ich Ihnen sonst noch helfen?');
    expect(smallTalkReply('goodbye', 'Harbour Bikes', 'fr')).toBe('Au revoir, et merci de votre visite chez Harbour Bikes !');
    // A complaint ends with the contact offer, so a "yes" after it is a lead.
    expect(smallTalkReply('complaint', 'Riverside Vets', 'en')).toBe(
      "Sorry that didn't help. Would you like someone from Riverside Vets to contact you?",
    );
    expect(offersContact(smallTalkReply('complaint', 'Riverside Vets', 'de'))).toBe(true);
    expect(smallTalkReply('unclear', 'Riverside Vets', 'en')).toBe(
      "Sorry if that was unclear. Could you ask your question in other words? I answer from Riverside Vets' website.",
    );
    // "ok" is no thanks: "You're welcome!" would answer what was not said.
    expect(smallTalkReply('ok', 'Harbour Bikes', 'en')).toBe('Is there anything else I can help with?');
  });

  it('say what the assistant is, with the possessive of a name ending in s', () => {
    expect(smallTalkReply('assistant', 'Oakfield Yoga', 'en')).toMatch(
      /^I'm Oakfield Yoga's virtual assistant, not a person: I answer questions from Oakfield Yoga's website/,
    );
    expect(smallTalkReply('assistant', 'Riverside Vets', 'en')).toMatch(
      /^I'm Riverside Vets' virtual assistant, .* from Riverside Vets' website .* someone from Riverside Vets to contact you/,
    );
    expect(dontKnowReply('Riverside Vets', 'en')).toContain("on Riverside Vets' website");
    expect(smallTalkReply('assistant', 'Peluquería Lucía', 'es')).toMatch(/^Soy el asistente virtual de Peluquería Lucía, no una persona/);
  });
});

describe('pricing', () => {
  it('knows the listed models and their dated snapshots, and prices unknown models at 0', () => {
    expect(embeddingPricePer1k('text-embedding-3-small')).toBe(0.00002);
    expect(embeddingPricePer1k('nomic-embed-text')).toBe(0);
    expect(chatCostUsd('gpt-4o-mini', 1000, 1000)).toBeCloseTo(0.00075, 12);
    expect(chatCostUsd('gpt-4o-mini-2024-07-18', 1000, 0)).toBeCloseTo(0.00015, 12);
    expect(chatCostUsd('gpt-4o-2024-08-06', 1000, 0)).toBeCloseTo(0.0025, 12);
    expect(chatCostUsd('llama3.1:8b', 5000, 5000)).toBe(0);
  });
});
