// The arithmetic behind issue 7's numbers: the retrieval scorer (recall@1, recall@5, MRR, the
// unanswerable questions declined), the way the bench asks its questions (a follow-up in the session
// of the question it follows) and the ratio and percentile every part reports. A slip here would
// move a table row without any change to the service, so it is tested like the service.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Bm25Reference, visibleText } from '../../bench/lib/bm25-reference.ts';
import { pageOf, type Question } from '../../bench/lib/corpora.ts';
import { percentile } from '../../bench/lib/env.ts';
import { ratio } from '../../bench/lib/report.ts';
import { type Answer, citedPages, scoreCorpus, targetsMet } from '../../bench/lib/retrieval-score.ts';
import { ask } from '../../bench/retrieval.ts';
import { plumbingSite } from '../chat/corpus.ts';
import { createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';
import { createSeeder, type Seeder } from '../support/seed-documents.ts';

const question = (id: string, expected: string[], follows: string | null = null, answer?: string[]): Question => ({
  id,
  question: `question ${id}`,
  expected,
  follows,
  kind: 'test',
  ...(answer ? { answer } : {}),
});
const pages = (...p: string[]): Answer => ({ pages: p });

describe('bench scoring', () => {
  it('names a source by its page under the site root, a directory by its index.html', () => {
    expect(pageOf('http://127.0.0.1:4000/fs.html#fs_readfile_path')).toBe('fs.html');
    expect(pageOf('http://127.0.0.1:4000/topics/db/queries.html', 'http://127.0.0.1:4000')).toBe('topics/db/queries.html');
    expect(pageOf('http://127.0.0.1:4000/')).toBe('index.html');
    expect(pageOf('http://127.0.0.1:4000/howto/static-files')).toBe('howto/static-files/index.html');
  });

  it('never counts an all-in-one or index page as a hit, and collapses repeats', () => {
    expect(citedPages(['all.html', 'a.html', 'a.html', 'genindex.html', 'b.html', 'index.html'])).toEqual(['a.html', 'b.html']);
  });

  it('scores recall@1, source recall, mean sources and both kinds of decline', () => {
    const questions = [
      question('a', ['x.html'], null, ['5432']),
      question('b', ['x.html', 'z.html'], null, ['nope']),
      question('c', ['x.html']),
      question('d', []),
      question('e', []),
      question('f', ['x.html']),
    ];
    const answers = new Map<string, Answer>([
      ['a', { pages: ['all.html', 'x.html'], text: 'The default port is 5432. [1]' }], // all.html is no rank: x first
      ['b', { pages: ['y.html', 'z.html', 'w.html'], text: 'Something else [1]' }], // z among the sources
      ['c', pages('p.html', 'q.html')],
      ['d', pages()], // declined
      ['e', pages('all.html')], // a source, even all.html, is an answer
      ['f', pages()], // an answerable question declined
    ]);
    const s = scoreCorpus(questions, answers);
    expect(s).toMatchObject({ answerable: 4, unanswerable: 2, recallAt1: 0.25, sourceRecall: 0.5 });
    expect(s.meanSources).toBe(2); // (2 + 3 + 2 + 1) / 4 answered
    expect(s.unanswerableDeclined).toBe(0.5);
    expect(s.answerableDeclined).toBe(0.25);
    expect(s.answerContains).toBe(0.5); // a holds 5432, b does not; c and f have no phrase
    expect(s.misses).toEqual(['c(p.html,q.html)', 'e:answered()', 'f(declined)']);
    expect(targetsMet(s, { recallAt1: 0.1, recallAt3: 0.5 })).toEqual({
      recallAt1: true,
      sourceRecall: false,
      declined: false,
      falselyDeclined: false,
      answerContains: false,
    });
  });

  it('computes the BM25 reference over visible text, pages by their best chunk', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bm25-'));
    writeFileSync(
      path.join(dir, 'port.html'),
      '<html><head><title>Connections</title><script>port port port</script></head><body><nav>port</nav><p>The server listens on port 5432 &amp; more.</p></body></html>',
    );
    writeFileSync(path.join(dir, 'vacuum.html'), '<html><body><p>Vacuum reclaims space. Vacuum often.</p></body></html>');
    expect(visibleText('<title>T</title><body><script>x()</script><nav>menu</nav>a &amp; b</body>')).toBe('T a & b');
    const bm25 = new Bm25Reference(dir, ['port.html', 'vacuum.html']);
    expect(bm25.rank('which port does the server use')).toEqual(['port.html']);
    expect(bm25.rank('how to reclaim space')).toEqual(['vacuum.html']);
    expect(bm25.score([question('q', ['port.html'])])).toEqual({ recallAt1: 0, recallAt3: 0 }); // "question q" matches nothing
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
    const premium = { ...question('p', ['plans/premium/index.html']), question: 'Tell me about the premium plan' };
    const cost = { ...question('c', ['plans/premium/index.html'], 'p'), question: 'How much does it cost?' };
    const france = { ...question('u', []), question: 'What is the capital of France?' };
    const inSession = [premium, cost, france];
    const answers = await ask(kb.baseUrl, clientId, inSession);
    expect(answers.get('p')?.pages[0]).toBe('plans/premium/index.html');
    expect(answers.get('c')?.pages[0]).toBe('plans/premium/index.html');
    expect(answers.get('u')?.pages).toEqual([]);
    expect(answers.get('p')?.text).toMatch(/\[1\]/);
    expect(scoreCorpus(inSession, answers)).toMatchObject({ recallAt1: 1, sourceRecall: 1, unanswerableDeclined: 1 });

    // The same words asked on their own are about delivery: the session above is what made them
    // about the plan, so a scorer that dropped the session would score this question a miss.
    const alone = { ...cost, follows: null };
    const aloneAnswers = await ask(kb.baseUrl, clientId, [alone]);
    expect(aloneAnswers.get('c')?.pages[0]).toBe('shipping/index.html');
    expect(scoreCorpus([alone], aloneAnswers).recallAt1).toBe(0);
  });
});
