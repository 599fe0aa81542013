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

  it('leaves other questions as they are', () => {
    expect(searchedQuery('How do I create a table?')).toEqual({ query: 'How do I create a table?' });
    expect(searchedQuery('and how do I drop it?', 'and drop it')).toEqual({ query: 'and how do I drop it?', focus: 'and drop it' });
    // "Sunday" inside another word is no day.
    expect(searchedQuery('What does sundaysql do?')).toEqual({ query: 'What does sundaysql do?' });
  });
});
