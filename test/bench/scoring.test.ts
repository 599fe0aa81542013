// The arithmetic behind issue 7's numbers: the retrieval scorer (recall@1, recall@5, MRR, the
// unanswerable questions declined), the way the bench asks its questions (a follow-up in the session
// of the question it follows) and the ratio and percentile every part reports. A slip here would
// move a table row without any change to the service, so it is tested like the service.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { percentile } from '../../bench/lib/env.ts';
import { ratio } from '../../bench/lib/report.ts';
import { ask, distinctPages, pageOf, type Question, score } from '../../bench/retrieval.ts';
import { plumbingSite } from '../chat/corpus.ts';
import { createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';
import { createSeeder, type Seeder } from '../support/seed-documents.ts';

const question = (id: string, expected: string[], follows: string | null = null): Question => ({
  id,
  question: `question ${id}`,
  expected,
  follows,
  kind: 'test',
});

describe('bench scoring', () => {
  it('names a source by its page, a directory by its index.html', () => {
    expect(pageOf('http://127.0.0.1:4000/api/fs.html')).toBe('fs.html');
    expect(pageOf('http://127.0.0.1:4000/api/fs.html#fs_readfile_path')).toBe('fs.html');
    expect(pageOf('http://127.0.0.1:4000/api/')).toBe('index.html');
  });

  it('ranks distinct pages in order and never counts all.html', () => {
    expect(distinctPages(['all.html', 'a.html', 'a.html', 'b.html', 'all.html', 'a.html'])).toEqual(['a.html', 'b.html']);
  });

  it('scores recall@1, recall@5 and MRR over distinct pages, and declines only with no sources at all', () => {
    const questions = [
      question('a', ['x.html']),
      question('b', ['x.html', 'z.html']),
      question('c', ['x.html']),
      question('d', ['x.html']),
      question('e', []),
      question('f', []),
      question('g', ['x.html']),
    ];
    const answers = new Map<string, string[]>([
      ['a', ['all.html', 'y.html', 'x.html']], // all.html is no rank: x is second
      ['b', ['z.html', 'x.html']], // any expected page counts
      ['c', ['p.html', 'q.html', 'r.html', 's.html', 't.html', 'x.html']], // sixth: past recall@5
      ['d', ['y.html', 'y.html', 'y.html', 'y.html', 'y.html', 'x.html']], // repeats collapse: second
      ['e', []], // declined
      ['f', ['all.html']], // a source, even all.html, is an answer
      ['g', []], // an answerable question declined
    ]);
    const s = score(questions, answers);
    expect(s).toMatchObject({ answerable: 5, answerableDeclined: 1, unanswerable: 2, unanswerableDeclined: 1, declinedShare: 0.5 });
    expect(s.recallAt1).toBe(0.2); // b
    expect(s.recallAt5).toBe(0.6); // a, b, d
    expect(s.mrr).toBe(0.433); // (1/2 + 1 + 1/6 + 1/2 + 0) / 5
    expect(s.misses).toEqual(['c(p.html,q.html,r.html)', 'f:answered()', 'g(declined)']);
  });

  it('reports a ratio only against a real baseline, and a percentile as a served value', () => {
    expect(ratio(1, 3)).toBe(0.33);
    expect(Number.isNaN(ratio(1, 0))).toBe(true);
    expect(Number.isNaN(ratio(Number.NaN, 2))).toBe(true);
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 50)).toBe(50);
    expect(percentile(sorted, 99)).toBe(99);
    expect(percentile([7], 99)).toBe(7);
    expect(Number.isNaN(percentile([], 50))).toBe(true);
  });
});

describe('bench questions through the real chat API', () => {
  let kb: Kbchat;
  let seeder: Seeder;
  let clientId: string;
  const origin = 'https://bench-plumbing.example';

  beforeAll(async () => {
    kb = await startKbchat({ services: ['gateway'] });
    seeder = createSeeder(inject('databaseUrl'), kb.config);
    clientId = (await createClient(kb.baseUrl, { name: 'Bench Plumbing' })).clientId;
    await seeder.seed(clientId, plumbingSite(origin));
  });
  afterAll(async () => {
    await seeder?.close();
    await kb?.stop();
  });

  it('asks a follow-up in its question’s session, so its context decides the sources', async () => {
    const premium = { ...question('p', ['premium']), question: 'Tell me about the premium plan' };
    const cost = { ...question('c', ['premium'], 'p'), question: 'How much does it cost?' };
    const france = { ...question('u', []), question: 'What is the capital of France?' };
    const inSession = [premium, cost, france];
    const answers = await ask(kb.baseUrl, clientId, inSession);
    expect(answers.get('p')?.[0]).toBe('premium');
    expect(answers.get('c')?.[0]).toBe('premium');
    expect(answers.get('u')).toEqual([]);
    expect(score(inSession, answers)).toMatchObject({ recallAt1: 1, recallAt5: 1, mrr: 1, declinedShare: 1 });

    // The same words asked on their own are about delivery: the session above is what made them
    // about the plan, so a scorer that dropped the session would score this question a miss.
    const alone = { ...cost, follows: null };
    const aloneAnswers = await ask(kb.baseUrl, clientId, [alone]);
    expect(aloneAnswers.get('c')?.[0]).toBe('shipping');
    expect(score([alone], aloneAnswers).recallAt1).toBe(0);
  });
});
