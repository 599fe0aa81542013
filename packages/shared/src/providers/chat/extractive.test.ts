import { describe, expect, it } from 'vitest';
import type { ChatInput } from './chat-provider.ts';
import { composeExtractiveAnswer } from './extractive.ts';

const input = (message: string, content: string): ChatInput => ({
  clientName: 'Leafline Tea Co.',
  message,
  query: message,
  history: [],
  passages: [{ id: 'd1', url: 'https://tea.example/delivery.html', title: 'Delivery', heading: 'International', content }],
});

describe('composeExtractiveAnswer: a delivery question naming a place', () => {
  it('says the site does not mention a place no passage names, before what it says', () => {
    const out = composeExtractiveAnswer(input('Do you deliver to Australia?', 'We ship to the EU, the USA and Canada.'));
    expect(out.answer).toBe(
      "Leafline Tea Co.'s website doesn't mention Australia. It says: International: We ship to the EU, the USA and Canada. [1]",
    );
    expect(out.usedPassageIds).toEqual(['d1']);
  });

  it('says nothing more of a place a passage names, accents folded', () => {
    for (const [message, content] of [
      ['Do you ship to Canada?', 'We ship to the EU, the USA and Canada.'],
      ['¿Enviáis a México?', 'We ship to Mexico and the USA.'],
    ])
      expect(composeExtractiveAnswer(input(message as string, content as string)).answer, message).not.toMatch(/mention|menciona/);
  });
});
