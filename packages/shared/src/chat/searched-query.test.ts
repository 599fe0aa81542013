import { describe, expect, it } from 'vitest';
import { searchedQuery } from './searched-query.ts';

describe('searchedQuery', () => {
  it('searches a contact page’s words beside a contact question’s, the visitor’s words the focus', () => {
    const s = searchedQuery('where are you located?');
    expect(s.query).toMatch(/^contact call phone .* where are you located\?$/);
    expect(s.focus).toBe('where are you located?');
  });

  it.each([
    ['Are you open on Saturday?', 'weekend'],
    ['r u open sundays', 'weekend'],
    ['¿Abren los sábados?', 'weekend'],
    ['Are you open on a Monday?', 'weekday'],
    ['Ouvert le mardi ?', 'weekday'],
    ['Are you open at weekends?', 'saturday'],
    ['When do you open on weekdays?', 'monday'],
  ])('searches what pages call the day %j names (%s)', (message, word) => {
    const s = searchedQuery(message);
    expect(s.query.split(' ')).toContain(word);
    expect(s.focus).toBe(message);
  });

  it.each([
    ['can I take photos?', 'photograph'],
    ['Is there a bicycle shed?', 'bike'],
    ['are you open at xmas', 'christmas'],
    ['need an appt asap', 'appointment'],
    // British and American spellings, both ways.
    ['Can I print cheques from GnuCash?', 'check'],
    ['What colour are the chairs?', 'color'],
    ['is there a neighborhood parking permit', 'neighbourhood'],
    // Things Britain and America name apart, both ways.
    ['Is there an elevator?', 'lift'],
    ['can I hire the room for a party', 'rent'],
    ['Is there a restroom?', 'toilet'],
    // Words the industry renamed, both ways.
    ['How do I reject connections from hosts on a DNS blocklist?', 'blacklist'],
    ['how do I whitelist a sender', 'allowlist'],
    // What a shop's visitor and its pages call one act, both ways.
    ['Do you ship to the US?', 'delivery'],
    ['how much is shipping to Germany', 'delivery'],
    ['Can I swap it for a bigger size?', 'exchange'],
    ['How long does delivery take?', 'shipping'],
    ['How much does it cost to buy a house?', 'purchase'],
    // A regular plural the stemmer keeps apart from its singular.
    ['Is there a bus?', 'buses'],
    // An irregular plural and its singular, both ways.
    ['Can I book a table for 10 people?', 'person'],
    ['do you do tooth whitening', 'teeth'],
    // A verb's irregular past form, for its base.
    ['Where is the lircrc file kept?', 'keep'],
    ['while a button is held down', 'hold'],
  ])('searches the other form of a word people clip or spell apart (%j: %s)', (message, word) => {
    expect(searchedQuery(message).query.split(' ')).toContain(word);
  });

  it.each([
    ['What is the biggest email Postfix accepts by default?', ['big']],
    ['what time is the earliest check-in', ['early']],
    ['Which is your cheapest room?', ['cheap', 'cheape']],
    ['the largest file it can read', ['larg', 'large']],
  ])('searches a superlative’s base (%j: %s)', (message, words) => {
    const s = searchedQuery(message);
    for (const word of words) expect(s.query.split(' ')).toContain(word);
    expect(s.focus).toBe(message);
  });

  it('searches no base for a word in -est that is no superlative, nor for "latest"', () => {
    expect(searchedQuery('How do I get the latest version?')).toEqual({ query: 'How do I get the latest version?' });
    expect(searchedQuery('run the test suite')).toEqual({ query: 'run the test suite' });
  });

  it('searches an American form that is also another word for no British one, and a verb’s base for no past form', () => {
    expect(searchedQuery('how do I check my balance?')).toEqual({ query: 'how do I check my balance?' });
    expect(searchedQuery('my tire is flat')).toEqual({ query: 'my tire is flat' });
    expect(searchedQuery('How do I keep a log of upgrades?')).toEqual({ query: 'How do I keep a log of upgrades?' });
  });

  it.each([
    ['How do I back up my database to a file?', 'backup'],
    ['backing up the media folder', 'backup'],
    ['it got rolled back', 'rollback'],
    ['I logged in twice', 'login'],
    ['how do I set up the server', 'setup'],
    ['can I plug in my own parser', 'plugin'],
    ['How do I turn on write-ahead logging?', 'enable'],
    ['Can I send it back if it does not fit?', 'return'],
    ['how do I back it up', 'backup'],
    ['switching off the cache', 'disable'],
    ['how do I get rid of this warning', 'remove'],
    ['I finally figured out the port', 'determine'],
    ['leaving out the header row', 'omit'],
    ['How do I see which index a query is using?', 'show'],
    ['where can I view the logs', 'display'],
    ['How do I jump to a package when I know its name?', 'find'],
    ['Can you pick up my car?', 'collect'],
    ['Can I get my money back if I cancel?', 'refund'],
  ])('searches the words pages use for a phrasal verb (%j: %s)', (message, word) => {
    const s = searchedQuery(message);
    expect(s.query.split(' ')).toContain(word);
    expect(s.focus).toBe(message);
  });

  it('searches a question for a measure without its adjective, in the visitor’s words too', () => {
    expect(searchedQuery('How long is the warranty?')).toEqual({ query: 'how is the warranty?' });
    expect(searchedQuery('How big can a database be?')).toEqual({ query: 'how can a database be?' });
    expect(searchedQuery('how soon can you come', 'how soon can you come')).toEqual({
      query: 'how can you come',
      focus: 'how can you come',
    });
  });

  it('leaves other questions as they are', () => {
    expect(searchedQuery('How do I create a table?')).toEqual({ query: 'How do I create a table?' });
    expect(searchedQuery('and how do I drop it?', 'and drop it')).toEqual({ query: 'and how do I drop it?', focus: 'and drop it' });
    // "Sunday" inside another word is no day.
    expect(searchedQuery('What does sundaysql do?')).toEqual({ query: 'What does sundaysql do?' });
    // Nor are the clippings of technical writing searched in full: Django's "app" is not its "application".
    expect(searchedQuery('How do I add an app to the db?')).toEqual({ query: 'How do I add an app to the db?' });
    // Nor a clipped word inside another ("photography" is no "photo"); nor a one-way abbreviation backwards.
    expect(searchedQuery('photography classes for a year')).toEqual({ query: 'photography classes for a year' });
    // Nor a verb with a particle that makes no noun, or the words apart by more than a pronoun ("back the files up").
    expect(searchedQuery('set off up the hill')).toEqual({ query: 'set off up the hill' });
    expect(searchedQuery('settle up the bill, then back the files up')).toEqual({ query: 'settle up the bill, then back the files up' });
  });
});
