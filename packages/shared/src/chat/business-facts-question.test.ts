import { describe, expect, it } from 'vitest';
import { foldForIntent } from '../intent/classifier.ts';
import { BUSINESS_FACTS, businessFactAsked } from './business-facts-question.ts';

describe('questions for facts about the business', () => {
  it.each([
    ['Do you offer free quotes?', 'quotes'],
    ['do you charge for quotes', 'quotes'],
    ['are quotes free?', 'quotes'],
    ['Are you family run?', 'family-run'],
    ['is it a family business?', 'family-run'],
    ['Who owns the business?', 'family-run'],
    ['Are you insured?', 'insured'],
    ['are your cleaners insured', 'insured'],
    ['do you have public liability insurance?', 'insured'],
  ])('%j asks for %s', (message, fact) => {
    expect(businessFactAsked(message)).toBe(fact);
  });

  it.each([
    'How do I quote a string in SQL?',
    'Is there a family room?',
    'Do you take pet insurance?',
    'What is an estimate in statistics?',
  ])('%j asks for none', (message) => {
    expect(businessFactAsked(message)).toBeUndefined();
  });

  it('finds the sentence that states each, not one that shares a word', () => {
    const states = (fact: keyof typeof BUSINESS_FACTS, text: string) => BUSINESS_FACTS[fact].states.test(foldForIntent(text));
    expect(states('quotes', 'Quotes are free and without obligation.')).toBe(true);
    expect(states('quotes', 'We offer free collection and delivery within 5 miles.')).toBe(false);
    expect(states('family-run', 'Family-run Italian cooking in the heart of Leeds since 1994.')).toBe(true);
    expect(states('family-run', 'A 25-metre pool and a sauna, run by the town council.')).toBe(true);
    expect(states('family-run', 'Family room — Sleeps: 2 adults + 2 children.')).toBe(false);
    expect(states('insured', 'We hold £5 million public liability insurance.')).toBe(true);
    expect(states('insured', 'For larger bills we can claim directly from most pet insurers.')).toBe(false);
  });
});
