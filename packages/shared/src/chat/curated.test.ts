import { describe, expect, it } from 'vitest';
import { closestCurated, matchCurated, questionKey, relatedStems } from './curated.ts';

// Curated answers of three kinds of business; each with paraphrases a visitor would type (must
// match) and near-misses that share words but ask something else (must not). Written before the
// thresholds were looked at; the figures are in the issue note.
const answers = [
  { id: 'skate', question: 'Do you sell skateboards?', answer: 'Yes: complete skateboards from 49 euros, in the shop and online.' },
  { id: 'hours', question: 'What are your opening hours?', answer: 'We are open Monday to Saturday, 9:00 to 18:00.' },
  { id: 'ship', question: 'Do you ship to Spain?', answer: 'Yes, we deliver to Spain and Portugal in 3 to 5 days.' },
  { id: 'refund', question: 'Can I get a refund?', answer: 'Refunds are made within 30 days of purchase with the receipt.' },
  { id: 'parking', question: 'Is there parking near the shop?', answer: 'Free parking for customers behind the building.' },
];

const paraphrases: [string, string][] = [
  ['Are skateboards something you carry?', 'skate'],
  ['do u sell skateboards', 'skate'],
  ['Can I buy a skateboard from you?', 'skate'],
  ['skateboards?', 'skate'],
  ['When are you open?', 'hours'],
  ['what time do you close', 'hours'],
  ['Do you deliver to Spain?', 'ship'],
  ['shipping to spain possible?', 'ship'],
  ['how do I get my money back', 'refund'],
  ['Can I return it for a refund?', 'refund'],
  ['where can I park near the shop?', 'parking'],
  ['Is there parking?', 'parking'],
];

const nearMisses = [
  'Do you sell skateboard wheels?',
  'Do you repair skateboards?',
  'Do you sell bicycles?',
  'What are the opening hours of the museum next door?',
  'Do you ship to Japan?',
  'Can I get a discount?',
  'Is there a toilet in the shop?',
  'How much is a skateboard helmet?',
  // "motor" is related to "carry" in WordNet: not a way of asking whether something is sold.
  'Do you sell skateboard motors?',
];

// The hotel set of bench/eval/curated-answers.json (a development set): the paraphrases matched in
// WordNet's words ("rate" for "price", "reservation" for "booking", "call off" for "cancel") or with a
// letter left out; its others (bench/curated-eval.ts lists them) ask in words WordNet does not relate.
const hotel = [
  { id: 'breakfast', question: 'Is breakfast included in the room price?', answer: 'Yes, a buffet breakfast is included with every room.' },
  { id: 'checkin', question: 'What time is check-in?', answer: 'Check-in is from 15:00 and check-out until 11:00.' },
  { id: 'wifi', question: 'Do you have free Wi-Fi?', answer: 'Free wireless internet in all rooms and in the lobby.' },
  {
    id: 'shuttle',
    question: 'Do you offer an airport shuttle?',
    answer: 'A shuttle bus runs to the airport every hour from 5:00 to 23:00, 12 euros a person.',
  },
  { id: 'cancel', question: 'Can I cancel my booking?', answer: 'Cancellation is free up to 48 hours before arrival.' },
];

const hotelParaphrases: [string, string][] = [
  ['does the rate include breakfast', 'breakfast'],
  ['is brekfast included?', 'breakfast'],
  ['can i cancel my reservation for free', 'cancel'],
  ['i need to call off my booking', 'cancel'],
];

const hotelNearMisses = [
  'Is breakfast available for people not staying at the hotel?',
  'Do you have free parking?',
  'Do you have a shuttle to the train station?',
  'Can I cancel my spa appointment?',
  'Can I check in online?',
  'Is there a minibar in the room?',
];

describe('matchCurated', () => {
  it('matches questions asked in other words', () => {
    const missed = paraphrases.filter(([q, id]) => matchCurated(q, answers)?.answer.id !== id);
    expect(missed).toEqual([]);
  });

  it('does not match questions that share words but ask something else', () => {
    const matched = nearMisses.map((q) => [q, matchCurated(q, answers)?.answer.id]).filter(([, id]) => id !== undefined);
    expect(matched).toEqual([]);
  });

  it('matches in words WordNet relates, and a letter left out', () => {
    const missed = hotelParaphrases.filter(([q, id]) => matchCurated(q, hotel)?.answer.id !== id);
    expect(missed).toEqual([]);
  });

  it('does not match near-misses in words WordNet relates', () => {
    const matched = hotelNearMisses.map((q) => [q, matchCurated(q, hotel)?.answer.id]).filter(([, id]) => id !== undefined);
    expect(matched).toEqual([]);
  });

  it('matches a question of two or more things that the curated answer states as the visitor says them', () => {
    expect(matchCurated('is there internet in the rooms', hotel)?.answer.id).toBe('wifi');
    expect(matchCurated('is there a bus to the airport', hotel)?.answer.id).toBe('shuttle');
    // The answer's words count only as they are: WordNet's "minibar" is a "buffet" (of the breakfast).
    expect(matchCurated('Is there a minibar in the room?', hotel)).toBeUndefined();
    // One thing alone may be anywhere in an answer: it is not what the answer is about.
    expect(matchCurated('Do you have a lobby?', hotel)).toBeUndefined();
    expect(matchCurated('internet?', hotel)).toBeUndefined();
    // And one of the things must be what the answer is about (its question, its first words), not a
    // detail at its end: "…complete skateboards from 49 euros, in the shop and online".
    expect(matchCurated('do you sell in the shop and online', answers)).toBeUndefined();
  });

  // From the development sets of bench/eval/curated-answers.json (restaurant, clinic, gym, plumber, bike repair).
  const business = [
    { id: 'reserve', question: 'How do I reserve a table?', answer: 'Book online on our website or call us on 020 7946 0321.' },
    { id: 'kids', question: 'Do you treat children?', answer: 'Yes, children from age 3 are seen by our paediatric dentist.' },
    { id: 'whiten', question: 'How much does teeth whitening cost?', answer: 'Home whitening is 350 pounds including trays and gel.' },
    {
      id: 'price',
      question: 'How much is a monthly membership?',
      answer: 'Membership is 39 pounds a month, no joining fee, cancel any time.',
    },
    {
      id: 'hours',
      question: 'What are your opening hours?',
      answer: 'We are open 6am to 10pm on weekdays and 8am to 8pm at weekends.',
    },
    { id: 'guarantee', question: 'Is your work guaranteed?', answer: 'All our work is guaranteed for 12 months, parts and labour.' },
    { id: 'ebike', question: 'Do you repair electric bikes?', answer: 'Yes, we service e-bikes of all major brands, motors included.' },
  ];
  const matched = (q: string) => matchCurated(q, business)?.answer.id;

  it('reads the plurals and comparatives the stemmer keeps whole as the words they are of', () => {
    expect(matched('do you have a dentist for kids')).toBe('kids'); // "children": "child", a "kid"
    expect(matched('what do you charge to make teeth whiter')).toBe('whiten'); // "teeth", "whiter"
    expect(matched('Do you treat dogs?')).toBeUndefined();
  });

  it('asks the same in the words of a price, and on a day of what is said of its days', () => {
    expect(matched('what does it cost per month')).toBe('price'); // "cost" of "fee"
    expect(matched('How much is a day pass?')).toBeUndefined();
    expect(matched('are you open on sundays')).toBe('hours'); // "at weekends"
    expect(matched('What are the opening hours of the pool?')).toBeUndefined();
  });

  it('weighs light verbs as talk and the visitor’s particulars (how many, which day) as less than a topic', () => {
    expect(matched('what warranty do you give')).toBe('guarantee');
    expect(matched("I'd like to book a table for four on Friday")).toBe('reserve');
    expect(matched('Do you cover the cost of damage to my carpets?')).toBeUndefined();
  });

  it('does not answer a question doing one thing with something with the curated one doing another', () => {
    expect(matched('can you fix my e-bike')).toBe('ebike');
    expect(matched('Do you sell electric bikes?')).toBeUndefined();
  });

  it("relates words by WordNet's commonest senses only", () => {
    expect(relatedStems('breakfast')).toContain('meal');
    expect(relatedStems('call_off')).toContain('cancel');
    expect(relatedStems('park')).not.toContain('room');
    expect(relatedStems('tyre')).not.toContain('citi');
  });

  it('has nothing to match without curated answers', () => {
    expect(matchCurated('Do you sell skateboards?', [])).toBeUndefined();
  });

  it('finds the answer a question comes closest to, matched or not, by a topic word', () => {
    const closest = (q: string) => closestCurated(q, answers)?.answer.id;
    expect(closest('Do you sell skateboard wheels?')).toBe('skate');
    expect(closest('Is there a toilet in the shop?')).toBe('parking');
    expect(closest('Do you ship to Japan?')).toBe('ship');
    expect(closest('Do you deliver to Spain?')).toBe('ship');
    // An intent word alone ("sell") says nothing about which answer; no topic word met, none.
    expect(closest('Do you sell garden hoses?')).toBeUndefined();
    expect(closest('hi')).toBeUndefined();
    expect(closestCurated('Do you sell skateboards?', [])).toBeUndefined();
  });

  it('gives near-duplicate questions one key', () => {
    expect(questionKey('Do you sell skateboards?')).toBe(questionKey('do u sell skateboards'));
    expect(questionKey('Do you sell skateboards?')).not.toBe(questionKey('Do you sell skateboard wheels?'));
  });
});
