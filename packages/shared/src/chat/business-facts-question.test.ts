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
    ['How long have you been in business?', 'established'],
    ['when was the company founded?', 'established'],
    ['When did you start?', 'established'],
    ['how long have you been around', 'established'],
    ['How long has Oakfield Yoga been around?', 'established'],
    ['When was Fenwick & Hale founded?', 'established'],
  ])('%j asks for %s', (message, fact) => {
    expect(businessFactAsked(message)).toBe(fact);
  });

  it.each([
    'How do I quote a string in SQL?',
    'Is there a family room?',
    'Do you take pet insurance?',
    'What is an estimate in statistics?',
    'When do you open?',
    'How long has the exhibition been running?',
    'When did my order ship?',
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
    for (const text of [
      'Leafline was started in 2018 by two friends who wanted better tea.',
      "Caring for Bristol's pets since 1994.",
      'Fenwick & Hale was founded in 2009 by Claire Fenwick and Daniel Hale.',
      'We have been fixing cars for over 25 years.',
    ])
      expect(states('established', text), text).toBe(true);
    for (const text of ['Twelve bedrooms above a 17th-century pub.', 'Open since 9am today.', 'Prices for 2027 are per week.'])
      expect(states('established', text), text).toBe(false);
  });
});
