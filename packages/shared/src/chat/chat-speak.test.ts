import { describe, expect, it } from 'vitest';
import { expandChatSpeak } from './chat-speak.ts';

describe('chat shorthand in full words', () => {
  it.each([
    ['wat r ur prices', 'what are your prices'],
    ['wher r u', 'where are you'],
    ['do u deliver', 'do you deliver'],
    ['r u open sunday', 'are you open sunday'],
    ['how r the rooms', 'how are the rooms'],
    ['opening times pls', 'opening times please'],
    ["y'all open tmrw?", 'you open tomorrow?'],
    ['can u tell me if u have vegan options', 'can you tell me if you have vegan options'],
  ])('%j → %j', (typed, full) => {
    expect(expandChatSpeak(typed)).toBe(full);
  });

  it.each([
    'chmod u+x script',
    'is R supported?',
    'how do I use r.squared',
    'U-bend repair',
    'What is the r value of a wall?',
    'Ur of the Chaldees',
  ])('leaves %j as it is', (text) => {
    expect(expandChatSpeak(text)).toBe(text);
  });
});
