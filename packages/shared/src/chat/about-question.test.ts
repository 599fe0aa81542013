import { describe, expect, it } from 'vitest';
import { aboutQuestionOf } from './about-question.ts';

describe('questions about the assistant or the business', () => {
  it.each([
    'who are you?',
    'Who am I talking to?',
    'are you a bot?',
    'Are you a real person?',
    'r u human',
    'am I talking to a real person?',
    'is this a chatbot?',
    'is this automated?',
    'hello, is anyone there?',
    'Hi! Is anybody there?',
    'what can you do?',
    'What can you help me with?',
    'how can you help?',
    'can you help me?',
    'help',
    'how does this chat work?',
    '¿Quién eres?',
    '¿Eres un robot?',
    '¿Hay alguien ahí?',
    '¿En qué me puedes ayudar?',
    'Qui êtes-vous ?',
    'Vous êtes un robot ?',
    "Il y a quelqu'un ?",
    'Que pouvez-vous faire ?',
    'Wer bist du?',
    'Bist du ein Mensch?',
    'Ist da jemand?',
    'Wie können Sie mir helfen?',
    'Quem é você?',
    'Você é um robô?',
    'Tem alguém aí?',
  ])('%j asks about the assistant', (message) => {
    expect(aboutQuestionOf(message, 'Oakfield Yoga')).toBe('assistant');
  });

  it.each([
    'what do you do?',
    'So what do you guys do?',
    'what is this place?',
    "What's this website about?",
    'whats this',
    'tell me about yourselves',
    'Tell me about your company please',
    'what kind of business is this?',
    'who are you guys?',
    'what is Oakfield Yoga?',
    'What does Oakfield Yoga do?',
    'tell me about oakfield yoga',
    '¿Qué hacéis?',
    '¿A qué se dedican?',
    '¿Qué es Oakfield Yoga?',
    'Que faites-vous ?',
    "C'est quoi Oakfield Yoga ?",
    'Was macht ihr?',
    'Was ist Oakfield Yoga?',
    'O que vocês fazem?',
    'O que é Oakfield Yoga?',
    'What services do you offer?',
    'what do you sell?',
    'services?',
    '¿Qué servicios ofrecéis?',
    'Welche Leistungen bieten Sie an?',
  ])('%j asks about the business', (message) => {
    expect(aboutQuestionOf(message, 'Oakfield Yoga')).toBe('business');
  });

  it.each([
    'What are your prices?',
    'prices?',
    'price list',
    'Do you have a price list?',
    'what are the fees',
    'How much do you charge?',
    'How much does it cost?',
    'how much is it?',
    '¿Cuánto cuesta?',
    '¿Qué precios tenéis?',
    'Quels sont vos tarifs ?',
    'Combien ça coûte ?',
    'Was kostet das?',
    'Preise?',
    'Thanks! And what are your prices?',
    'Quanto custa?',
  ])('%j asks for the prices', (message) => {
    expect(aboutQuestionOf(message, 'Oakfield Yoga')).toBe('prices');
  });

  it('takes "how much is it?" after other turns as asking about what they said', () => {
    expect(aboutQuestionOf('how much is it?', 'Oakfield Yoga', true)).toBeUndefined();
    expect(aboutQuestionOf('¿Cuánto cuesta?', 'Oakfield Yoga', true)).toBeUndefined();
    expect(aboutQuestionOf('what are your prices?', 'Oakfield Yoga', true)).toBe('prices');
  });

  it('knows the business by the names a visitor types for it', () => {
    expect(aboutQuestionOf('what is leafline tea?', 'Leafline Tea Co.')).toBe('business');
    expect(aboutQuestionOf('tell me about Fenwick and Hale', 'Fenwick & Hale')).toBe('business');
    expect(aboutQuestionOf('what is harbour inn', 'The Harbour Inn')).toBe('business');
    expect(aboutQuestionOf('what is yoga?', 'Oakfield Yoga')).toBeUndefined();
    expect(aboutQuestionOf('what is tallyboard?', 'Oakfield Yoga')).toBeUndefined();
  });

  it.each([
    // Questions about the site's content, with what they ask in them.
    'can you help me with my divorce?',
    'what do you do about refunds?',
    'who are your teachers?',
    'what can you tell me about parking?',
    'tell me about your classes',
    'is anyone there on Sundays?',
    'are you open on Saturday?',
    'are you a member of the Law Society?',
    'is this a good choice for a busy website?',
    'what is this error?',
    "what's that?",
    'what is a hot yoga class?',
    'what classes do you have?',
    'how long have you been a vet?',
    'how long has the boiler been broken?',
    'how much is a single class?',
    'what are your prices for private sessions?',
    'how much does parking cost?',
    // Asking for a person is a contact request, decided before.
    'can I talk to a real person?',
    '¿Puedo hablar con una persona?',
    'hi',
    '',
  ])('%j is neither', (message) => {
    expect(aboutQuestionOf(message, 'Oakfield Yoga')).toBeUndefined();
  });
});
