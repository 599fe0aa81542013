import { describe, expect, it } from 'vitest';
import { followUpFocus, looksLikeFollowUp, namesNoTopic, rewriteFollowUp } from './follow-up.ts';

const history = [
  { role: 'user' as const, content: 'How do I spin up a basic web server in Node without Express?' },
  { role: 'assistant' as const, content: 'Use http.createServer [1].' },
];

describe('follow-up heuristic', () => {
  it.each([
    'Cool. And how would I serve that over SSL using my own key and certificate files?',
    'That works, but when the command prints a lot of text it gets killed. Is there a limit?',
    'and on windows?',
    'what about https?',
    'Done, but one of those files still needs require(). Can I get it back?',
    'why?',
    'y en español?',
    'et avec SSL ?',
    'und mit TLS?',
    'SSL too?',
  ])('%j is a follow-up', (message) => {
    expect(looksLikeFollowUp(message)).toBe(true);
  });

  it.each([
    'How can I generate a random UUID without pulling in the uuid package from npm?',
    'Is it okay to rely on features marked as experimental in production code?',
    'What does ECONNREFUSED mean when my app tries to connect to the database?',
    'How do I book a service?',
  ])('%j stands alone', (message) => {
    expect(looksLikeFollowUp(message)).toBe(false);
  });

  it('puts the previous question’s rarest terms in front, in their original order', () => {
    const q = rewriteFollowUp('and over SSL?', history);
    expect(q.endsWith(' and over SSL?')).toBe(true);
    const prefix = q.slice(0, -' and over SSL?'.length).split(' ');
    expect(prefix).toContain('server');
    expect(prefix).toContain('express');
    expect(prefix.length).toBeLessThanOrEqual(6);
    expect(prefix).not.toContain('how');
  });

  it('leaves the message alone without history or when it stands alone', () => {
    expect(rewriteFollowUp('and over SSL?', [])).toBe('and over SSL?');
    const fresh = 'How do I read the arguments passed after the script name?';
    expect(rewriteFollowUp(fresh, history)).toBe(fresh);
  });

  it('reaches back a second turn when the last question was too thin', () => {
    const longer = [
      ...history,
      { role: 'user' as const, content: 'and https?' },
      { role: 'assistant' as const, content: 'Use https [1].' },
    ];
    expect(rewriteFollowUp('what about http2?', longer)).toMatch(/server/);
  });

  it('asks for the inverse of the previous question’s action when the visitor wants to undo it', () => {
    const created = [
      { role: 'user' as const, content: 'How do I create a new database?' },
      { role: 'assistant' as const, content: 'Use CREATE DATABASE [1].' },
    ];
    expect(rewriteFollowUp('…and how do I undo that?', created)).toBe('drop delete remove database');
    const installed = [
      { role: 'user' as const, content: 'How do I install the printer driver?' },
      { role: 'assistant' as const, content: 'Run the installer [1].' },
    ];
    expect(rewriteFollowUp('and how do I get rid of it?', installed)).toBe('uninstall remove printer driver');
    // An action without a known inverse keeps the ordinary rewrite.
    const tagged = [
      { role: 'user' as const, content: 'How do I tag a commit?' },
      { role: 'assistant' as const, content: 'git tag [1].' },
    ];
    expect(rewriteFollowUp('and undo that?', tagged)).toBe('tag commit and undo that?');
  });

  it('tells a follow-up asking what its topic is like from one naming a topic of its own', () => {
    for (const message of [
      'is it free?',
      'Is it wheelchair accessible?',
      'and how much is it?',
      'How much does it cost?',
      'when does it open?',
      'how often does it run?',
      'where is it?',
      'Are they vegan too?',
    ])
      expect(namesNoTopic(message), message).toBe(true);
    for (const message of [
      'is there a bus?',
      'does it have wifi?',
      'Is it possible to book a table online for six?',
      'how do I let them back in?',
      'Do you have parking?',
      'is it open on Sundays and bank holidays too?',
    ])
      expect(namesNoTopic(message), message).toBe(false);
  });

  it('takes the topic a follow-up naming none points back at as what the answer is about', () => {
    const turns = (...asked: string[]) =>
      asked.flatMap((content) => [
        { role: 'user' as const, content },
        { role: 'assistant' as const, content: 'An answer. [1]' },
      ]);
    const parking = turns('Do you have parking?');
    expect(followUpFocus('is it free?', rewriteFollowUp('is it free?', parking), parking)).toBe('parking');
    // The last question naming a topic: "bus", not "free" or "parking" asked before it.
    const chain = turns('Do you have parking?', 'is it free?', 'is there a bus?');
    expect(followUpFocus('how often does it run?', rewriteFollowUp('how often does it run?', chain), chain)).toBe('bus');
    // A follow-up naming a topic of its own, or a message standing alone, is its own focus.
    expect(followUpFocus('does it have wifi?', rewriteFollowUp('does it have wifi?', parking), parking)).toBe('does it have wifi?');
    expect(followUpFocus('is it free?', 'is it free?', [])).toBe('is it free?');
    // A follow-up of no word of its own asks it of the topic, in its own words too ("how much?" still asks a price).
    const implants = turns('Do you do implants?');
    expect(followUpFocus('how much?', rewriteFollowUp('how much?', implants), implants)).toBe('implants how much?');
    // So does one asking only a price, a time or a measure of it; a day is a twist of its own.
    const dog = turns('Can I bring my dog?');
    expect(followUpFocus('is there a charge?', rewriteFollowUp('is there a charge?', dog), dog)).toBe('bring dog is there a charge?');
    expect(followUpFocus('what time?', rewriteFollowUp('what time?', implants), implants)).toBe('implants what time?');
    const hours = turns('What are your opening hours?');
    expect(followUpFocus('and on Sundays?', rewriteFollowUp('and on Sundays?', hours), hours)).toBe('and on Sundays?');
  });
});
