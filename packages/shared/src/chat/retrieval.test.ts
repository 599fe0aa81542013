import { describe, expect, it } from 'vitest';
import { type RetrievalCandidate, stopTerms, withInnerHeadings } from '../db/retrieval.ts';
import { analyze, stemOpening } from '../providers/text/text-analysis.ts';
import {
  absentLimit,
  absentShare,
  DEFAULT_RANKING,
  isChangelog,
  LOCAL_EMBEDDER_RANKING,
  namesIn,
  proximity,
  type RankingStats,
  RRF_K,
  rankingFor,
  scoreChunks,
  termWeights,
} from './ranking.ts';
import {
  answerablePassages,
  dropNearDuplicates,
  type RankedPassage,
  rankPassages,
  siteSpecificity,
  sourcesOf,
  wordsApart,
} from './retrieval.ts';
import { withoutMeasureWords } from './searched-query.ts';

let n = 0;
function candidate(over: Partial<RetrievalCandidate>): RetrievalCandidate {
  n++;
  return {
    id: `00000000-0000-0000-0000-${String(n).padStart(12, '0')}`,
    pageId: `page-${n}`,
    url: `https://site.example/p${n}`,
    title: `Page ${n}`,
    heading: null,
    content: `distinct content number ${n} about topic ${n} with words ${n * 7} and ${n * 13}`,
    contentHash: `hash-${n}`,
    vectorRank: null,
    ftsRank: null,
    lsaRank: null,
    similarity: null,
    matchedTerms: 0,
    pageChunks: 1,
    termTf: [],
    termHead: [],
    termTitle: [],
    length: 0,
    termPositions: [],
    ...over,
  };
}

const settings = { passages: 6 };
const stats = (terms: string[], df: number[], docs = 100): RankingStats => ({
  queryTerms: terms,
  termDf: df,
  termFocus: terms.map(() => true),
  corpusDocs: docs,
  avgLength: 40,
});
/** A chunk holding the given query terms (by index) in its body `tf` times, in its title when listed. */
const holding = (over: Partial<RetrievalCandidate>, terms: number, body: number[], title: number[] = []) =>
  candidate({
    termTf: Array.from({ length: terms }, (_, i) => (body.includes(i) ? 2 : 0)),
    termHead: Array.from({ length: terms }, (_, i) => (title.includes(i) ? 1 : 0)),
    termTitle: Array.from({ length: terms }, (_, i) => (title.includes(i) ? 1 : 0)),
    length: 40,
    ...over,
  });

describe('rankPassages', () => {
  const q = stats(['warranti', 'claim', 'photo'], [3, 10, 50]);

  it('ranks the chunk holding the question’s rarer words first, and a title match above a body mention', () => {
    const rare = holding({ ftsRank: 2 }, 3, [0, 1]);
    const common = holding({ ftsRank: 1 }, 3, [2]);
    const titled = holding({ ftsRank: 3 }, 3, [0, 1], [0]);
    expect(rankPassages([common, rare, titled], q, settings).map((p) => p.id)[0]).toBe(titled.id);
    expect(rankPassages([common, rare], q, settings).map((p) => p.id)[0]).toBe(rare.id);
  });

  it('orders chunks of one page that tie by their text, not by the ids a re-crawl draws anew', () => {
    // Two chunks of one page holding the question's words alike: each crawl gives them other ids.
    const tied = (id: string, hash: string) =>
      holding({ id, pageId: 'page-tie', url: 'https://site.example/tie', contentHash: hash, ftsRank: 1 }, 3, [0, 1]);
    const first = rankPassages(
      [tied('00000000-0000-0000-0000-00000000000b', 'aaa'), tied('00000000-0000-0000-0000-00000000000a', 'bbb')],
      q,
      settings,
    );
    const again = rankPassages(
      [tied('00000000-0000-0000-0000-00000000000a', 'aaa'), tied('00000000-0000-0000-0000-00000000000b', 'bbb')],
      q,
      settings,
    );
    expect(first.map((p) => p.contentHash)).toEqual(['aaa', 'bbb']);
    expect(again.map((p) => p.contentHash)).toEqual(['aaa', 'bbb']);
  });

  it('fuses the lexical rank with the vector list by reciprocal rank: in both beats first in one', () => {
    const both = holding({ vectorRank: 3 }, 3, [0]);
    const lexicalOnly = holding({}, 3, [0, 1]);
    const vectorOnly = holding({ vectorRank: 1 }, 3, []);
    const ranked = rankPassages([vectorOnly, lexicalOnly, both], q, { passages: 6, ranking: { ...DEFAULT_RANKING, relatedPageRatio: 0 } });
    expect(ranked.map((p) => p.id)).toEqual([both.id, lexicalOnly.id, vectorOnly.id]);
    expect(ranked[0]?.score).toBeCloseTo(1 / (RRF_K + 2) + 1 / (RRF_K + 3));
  });

  it('ranks a chunk holding the question’s close words together above one holding them apart', () => {
    const pair = { ...stats(['default', 'port'], [10, 10]), queryPositions: [[4], [5]] };
    // Both words once each, in the body only; only where they stand differs.
    const at = (url: string, termPositions: number[][]) =>
      candidate({ url, termTf: [1, 1], termHead: [0, 0], termTitle: [0, 0], termPositions });
    const together = at('https://site.example/z-together', [[7], [8]]);
    const apart = at('https://site.example/a-apart', [[2], [30]]);
    const ranked = rankPassages([apart, together], pair, { passages: 6, ranking: { ...DEFAULT_RANKING, relatedPageRatio: 0 } });
    expect(ranked.map((p) => p.url)).toEqual([together.url, apart.url]);
    // Without the question's positions (or its weight at 0), equal chunks keep their URL order.
    const flat = rankPassages(
      [apart, together],
      { ...pair, queryPositions: [] },
      { passages: 6, ranking: { ...DEFAULT_RANKING, relatedPageRatio: 0 } },
    );
    expect(flat.map((p) => p.url)).toEqual([apart.url, together.url]);
  });

  it('counts close words only within one sentence, or a table’s row with the row naming its columns', () => {
    // "Can I smoke in my room?": the index's positions run on across a colon and a table's rows.
    const smoke = { ...stats(['smoke', 'room'], [10, 10]), queryPositions: [[3], [6]] };
    const at = (url: string, content: string) =>
      candidate({ url, content, termTf: [1, 1], termHead: [0, 0], termTitle: [0, 0], termPositions: [[7], [8]] });
    const acrossColon = at('https://site.example/a-dining', 'Served in the dining room: full Cornish, smoked haddock.');
    const inSentence = at('https://site.example/z-policies', 'You may not smoke in your room.');
    const ranking = { ...DEFAULT_RANKING, relatedPageRatio: 0 };
    expect(rankPassages([acrossColon, inSentence], smoke, { passages: 6, ranking }).map((p) => p.url)).toEqual([
      inSentence.url,
      acrossColon.url,
    ]);
    const chip = { ...stats(['microchip', 'cat'], [10, 10]), queryPositions: [[3], [5]] };
    const rows = at('https://site.example/a-prices', 'Item | Price\n\nMicrochip | £25\n\nCat spay | £120');
    const legal = at('https://site.example/z-services', 'Since June 2024, cats must be microchipped.');
    expect(rankPassages([rows, legal], chip, { passages: 6, ranking }).map((p) => p.url)).toEqual([legal.url, rows.url]);
    // A row with the table's first row: "Ticket | Price" above "Adult | £9.50" is an adult ticket.
    const ticket = { ...stats(['adult', 'ticket'], [10, 10]), queryPositions: [[4], [5]] };
    const table = at('https://site.example/z-visit', 'Ticket | Price\n\nAdult | £9.50');
    const apart = at('https://site.example/a-shop', 'Adults welcome. Tickets sold online.');
    expect(rankPassages([apart, table], ticket, { passages: 6, ranking }).map((p) => p.url)).toEqual([table.url, apart.url]);
  });

  it('finds close words in one sentence however their stems rewrite the words’ endings, and in an identifier’s parts', () => {
    const stem = (word: string) => analyze(word)[0]?.stem as string;
    // A sentence is analysed only when it holds a stem's opening letters: all but its last three at most.
    for (const word of [
      'possibility',
      'mobility',
      'generalizations',
      'conditional',
      'hesitancy',
      'digitizer',
      'operator',
      'sensitivity',
      'happy',
      'ponies',
      'agreed',
      'hopping',
      'electrical',
      'formalize',
      'triplicate',
    ]) {
      const s = stem(word);
      expect(word.includes(stemOpening(s)), `${word} → ${s}`).toBe(true);
    }
    const at = (content: string) => ({ content, termPositions: [[1], [3]] });
    const terms = [stem('possibility'), stem('generalizations')];
    expect(proximity(at('The possibility of generalizations is limited.'), [[0, 1]], terms)).toBe(1);
    expect(proximity(at('The possibility. Generalizations differ.'), [[0, 1]], terms)).toBe(0);
    // The parts of a camelCase identifier are words of its sentence.
    expect(proximity(at('Use assert.deepStrictEqual() here.'), [[0, 1]], ['strict', 'equal'])).toBe(1);
  });

  it('boosts the visitor’s page (URL compared normalised) among close pages', () => {
    const a = holding({ url: 'https://site.example/a', pageId: 'a' }, 3, [0, 1]);
    const b = holding({ url: 'https://site.example/b', pageId: 'b' }, 3, [0, 1]);
    expect(rankPassages([a, b], q, settings)[0]?.url).toBe('https://site.example/a');
    const boosted = rankPassages([a, b], q, settings, 'https://site.example/b#pricing');
    expect(boosted[0]?.url).toBe('https://site.example/b');
    expect(boosted[0]?.boosted).toBe(true);
  });

  it('keeps a page’s chunks together, at most two, and only pages scoring close to the best', () => {
    const pageA = [0, 1, 2].map(() => holding({ pageId: 'A', url: 'https://site.example/A', vectorRank: 1 }, 3, [0, 1, 2]));
    const near = [2, 3].map((vectorRank) => holding({ pageId: 'B', url: 'https://site.example/B', vectorRank }, 3, [0, 1, 2]));
    const far = holding({ pageId: 'C', url: 'https://site.example/C' }, 3, [2]);
    const ranked = rankPassages([far, ...pageA, ...near], q, settings);
    expect(ranked.map((p) => p.url)).toEqual([
      'https://site.example/A',
      'https://site.example/A',
      'https://site.example/B',
      'https://site.example/B',
    ]);
  });

  it('lets a page’s second chunk count on a large site, not on a site whose every chunk is a candidate', () => {
    // One chunk that answers (first in both lists) and a page of two that hold the same words less often (second and third).
    const answers = holding({ pageId: 'one', url: 'https://site.example/one', vectorRank: 1 }, 3, [0, 1]);
    const long = [2, 3].map((vectorRank) =>
      holding({ pageId: 'long', url: 'https://site.example/long', vectorRank, termTf: [1, 1, 0] }, 3, [0, 1]),
    );
    const order = (docs: number) =>
      rankPassages([answers, ...long], stats(['warranti', 'claim', 'photo'], [1, 1, 1], docs), {
        passages: 6,
        ranking: { ...DEFAULT_RANKING, relatedPageRatio: 0 },
      }).map((p) => p.url)[0];
    expect(order(5)).toBe('https://site.example/one');
    expect(order(5000)).toBe('https://site.example/long');
  });

  it('keeps the best chunk’s page first when the page its second chunk lifts holds clearly less of the question', () => {
    // A FAQ's one answer holds "busy" and "resource"; the manual page's chunks each hold only its name.
    const words = stats(['mode2', 'busi', 'resourc'], [20, 1, 1], 5000);
    const faq = holding({ pageId: 'faq', url: 'https://site.example/faq', vectorRank: 1 }, 3, [1, 2]);
    const manual = [2, 3].map((vectorRank) => holding({ pageId: 'manual', url: 'https://site.example/mode2', vectorRank }, 3, [0], [0]));
    const first = (coverageMargin: number, chunks = [faq, ...manual]) =>
      rankPassages(chunks, words, { passages: 6, ranking: { ...DEFAULT_RANKING, relatedPageRatio: 0, coverageMargin } })[0]?.url;
    expect(first(DEFAULT_RANKING.coverageMargin)).toBe('https://site.example/faq');
    // Off, the manual page's two chunks outweigh the one.
    expect(first(0)).toBe('https://site.example/mode2');
    // A manual chunk holding nearly as much of the question as the FAQ's ("mode2" and "busy"): the page's breadth counts again.
    const busy = holding({ pageId: 'manual', url: 'https://site.example/mode2', vectorRank: 4 }, 3, [1], [0]);
    expect(first(DEFAULT_RANKING.coverageMargin, [faq, ...manual, busy])).toBe('https://site.example/mode2');
  });

  it('puts an overview after the page it links to about the question, when that page is close and not linked back', () => {
    // The overview ranks first on its vector rank; the page it links to holds the words as well.
    const overview = holding({ pageId: 'overview', url: 'https://site.example/overview', vectorRank: 1 }, 3, [0, 1]);
    const topic = holding({ pageId: 'topic', url: 'https://site.example/topic', vectorRank: 3 }, 3, [0, 1]);
    const order = (pageLinks: Record<string, string[]>, over: Partial<RankingStats> = {}) =>
      rankPassages([overview, topic], { ...q, pageLinks, ...over }, settings).map((p) => p.url);
    expect(order({})).toEqual(['https://site.example/overview', 'https://site.example/topic']);
    expect(order({ overview: ['topic'] })).toEqual(['https://site.example/topic', 'https://site.example/overview']);
    // Two pages linking both ways are about one thing (or share a menu): the order stands.
    expect(order({ overview: ['topic'], topic: ['overview'] })[0]).toBe('https://site.example/overview');
    // Off, it never moves.
    expect(
      rankPassages(
        [overview, topic],
        { ...q, pageLinks: { overview: ['topic'] } },
        { passages: 6, ranking: { ...DEFAULT_RANKING, linkedPageRatio: 0 } },
      )[0]?.url,
    ).toBe('https://site.example/overview');
    // A linked page holding fewer of the question's words than the overview does not take its place.
    const thin = holding({ pageId: 'thin', url: 'https://site.example/thin', vectorRank: 2 }, 3, [1]);
    expect(rankPassages([overview, thin], { ...q, pageLinks: { overview: ['thin'] } }, settings)[0]?.url).toBe(
      'https://site.example/overview',
    );
  });
});

describe('release notes and source listings', () => {
  // Release notes name every feature of their release in a sentence: asked how to do something, the
  // page that treats it goes first when it scores close; asked about a version or a change, they stay.
  const notes = holding(
    { pageId: 'notes', url: 'https://site.example/releases/1.9.html', title: 'Django 1.9 release notes', vectorRank: 1 },
    3,
    [0, 1],
  );
  const topic = holding({ pageId: 'topic', url: 'https://site.example/topics/pdf.html', vectorRank: 3 }, 3, [0, 1]);
  const order = (terms: string[], ranking = DEFAULT_RANKING) =>
    rankPassages([notes, topic], stats(terms, [1, 1, 1]), { passages: 6, ranking }).map((p) => p.url);

  it('puts release notes after the next page that is not one, when it scores close', () => {
    expect(order(['latex', 'pdf', 'build'])).toEqual(['https://site.example/topics/pdf.html', 'https://site.example/releases/1.9.html']);
    // Not when that page scores far below them.
    expect(order(['latex', 'pdf', 'build'], { ...DEFAULT_RANKING, relatedPageRatio: 0.999 })[0]).toBe(
      'https://site.example/releases/1.9.html',
    );
  });

  it('puts release notes after every page that is not one, as a further source too', () => {
    const other = holding({ pageId: 'other', url: 'https://site.example/other.html', vectorRank: 5 }, 3, [0]);
    const second = (over: Partial<RetrievalCandidate>) =>
      rankPassages([topic, { ...notes, ...over }, other], stats(['latex', 'pdf', 'build'], [1, 1, 1]), settings).map((p) => p.url);
    expect(second({ vectorRank: 2 })).toEqual([
      'https://site.example/topics/pdf.html',
      'https://site.example/other.html',
      'https://site.example/releases/1.9.html',
    ]);
    // The same page not being release notes keeps its place.
    expect(second({ vectorRank: 2, url: 'https://site.example/howto/pdf.html', title: 'PDF output' })).toEqual([
      'https://site.example/howto/pdf.html',
      'https://site.example/topics/pdf.html',
      'https://site.example/other.html',
    ]);
  });

  it('puts a module’s source listing after the pages that treat its names, unless the source is asked for', () => {
    const listing = holding(
      { pageId: 'src', url: 'https://site.example/_modules/django/core/paginator.html', title: 'django.core.paginator', vectorRank: 1 },
      3,
      [0, 1],
    );
    const urls = (terms: string[]) => rankPassages([listing, topic], stats(terms, [1, 1, 1]), settings).map((p) => p.url);
    expect(urls(['pagin', 'elid', 'rang'])[0]).toBe('https://site.example/topics/pdf.html');
    expect(urls(['pagin', 'sourc', 'rang'])[0]).toBe('https://site.example/_modules/django/core/paginator.html');
    // Doxygen's listing of a source file ("lirc_client.c" → lirc__client_8c_source.html) is one too.
    const doxygen = holding(
      {
        pageId: 'dox',
        url: 'https://site.example/api-docs/html/lirc__client_8c_source.html',
        title: 'lirc_client.c Source File',
        vectorRank: 1,
      },
      3,
      [0, 1],
    );
    expect(rankPassages([doxygen, topic], stats(['pagin', 'elid', 'rang'], [1, 1, 1]), settings)[0]?.url).toBe(
      'https://site.example/topics/pdf.html',
    );
    // And Doxygen's list of a type's members ("This is the complete list of members for button_state"), unless members are asked for.
    const members = holding(
      {
        pageId: 'mem',
        url: 'https://site.example/api-docs/html/structbutton__state-members.html',
        title: 'button_state Member List',
        vectorRank: 1,
      },
      3,
      [0, 1],
    );
    expect(rankPassages([members, topic], stats(['pagin', 'elid', 'rang'], [1, 1, 1]), settings)[0]?.url).toBe(
      'https://site.example/topics/pdf.html',
    );
    expect(rankPassages([members, topic], stats(['pagin', 'member', 'rang'], [1, 1, 1]), settings)[0]?.url).toBe(
      'https://site.example/api-docs/html/structbutton__state-members.html',
    );
  });

  it('leaves them first for a question about a version or what changed', () => {
    expect(order(['django', '3.2', 'support'])[0]).toBe('https://site.example/releases/1.9.html');
    // A status code is no version.
    expect(order(['403', 'pdf', 'build'])[0]).toBe('https://site.example/topics/pdf.html');
    expect(order(['new', 'pdf', 'build'])[0]).toBe('https://site.example/releases/1.9.html');
    expect(order(['upgrad', 'pdf', 'build'])[0]).toBe('https://site.example/releases/1.9.html');
    // "Which Java version do I need?" asks for a requirement, not for what a release changed.
    expect(order(['version', 'pdf', 'build'])[0]).toBe('https://site.example/topics/pdf.html');
  });

  it.each([
    ['https://docs.example/releases/3.2.html', 'Django 3.2 release notes', true],
    ['https://docs.example/whatsnew/2.5.html', 'What’s New in Python 2.5', true],
    ['https://docs.example/changes.html', 'Changelog', true],
    ['https://docs.example/release-15-1.html', 'E.1. Release 15.1', true],
    ['https://docs.example/CHANGELOG.md', 'CHANGELOG', true],
    ['https://docs.example/howto/upgrade-version.html', 'How to upgrade Django to a newer version', false],
    ['https://docs.example/git-log.html', 'git-log - Show commit logs', false],
    ['https://docs.example/changes-in-behaviour.html', 'Data changes', false],
    ['https://jmeter.example/changes_history.html', 'Apache JMeter - History of Previous Changes', true],
    ['https://docs.example/version-history.html', 'Version history', true],
    ['https://bakery.example/history.html', 'Our history - Since 1921', false],
    ['https://docs.example/history.html', 'History and License', false],
  ])('tells release notes by address or title (%s, %j)', (url, title, expected) => {
    expect(isChangelog({ url, title })).toBe(expected);
  });
});

describe('a page treating a variant of another page’s subject', () => {
  // "ALTER FOREIGN TABLE" is "ALTER TABLE" and more: its shorter page scores a little higher for
  // "add a column to an existing table", which asks for the general command. (Made in the tests, not
  // here: the candidates' numbers, which break ties above, stay as they were.)
  const pair = (variantTitle = 'ALTER FOREIGN TABLE', generalTitle = 'ALTER TABLE') => [
    holding(
      { pageId: 'variant', url: 'https://site.example/sql-alterforeigntable.html', title: variantTitle, vectorRank: 1 },
      3,
      [0, 1, 2],
    ),
    holding({ pageId: 'general', url: 'https://site.example/sql-altertable.html', title: generalTitle, vectorRank: 2 }, 3, [0, 1, 2]),
  ];
  const first = (terms: string[], pages = pair(), ranking = DEFAULT_RANKING) =>
    rankPassages(pages, stats(terms, [1, 1, 1]), { passages: 6, ranking })[0]?.url;

  it('puts the general page first when the question names none of the variant’s extra words', () => {
    expect(first(['add', 'column', 'tabl'])).toBe('https://site.example/sql-altertable.html');
  });

  it('leaves the variant first when the question names it, when the general page scores far below, or when its name is one word', () => {
    expect(first(['add', 'column', 'foreign'])).toBe('https://site.example/sql-alterforeigntable.html');
    expect(first(['add', 'column', 'tabl'], pair(), { ...DEFAULT_RANKING, relatedPageRatio: 0.999 })).toBe(
      'https://site.example/sql-alterforeigntable.html',
    );
    const nodeTitles = pair('Child process | Node.js v20 Documentation', 'Process | Node.js v20 Documentation');
    expect(first(['command', 'output', 'limit'], nodeTitles)).toBe('https://site.example/sql-alterforeigntable.html');
  });
});

describe('contact questions', () => {
  it('answer from the business’s contact page when it states what is asked, before a page that states a partner’s', () => {
    const q = { ...stats(['address', 'contact', 'find'], [2, 2, 2], 8), termFocus: [false, false, false] };
    const emergency = holding(
      { url: 'https://site.example/emergency.html', pageId: 'e', content: 'Out of hours: Vets Now, 220 Gloucester Road, Bristol BS7 8NZ.' },
      3,
      [0, 1, 2],
    );
    const contact = holding(
      { url: 'https://site.example/contact.html', pageId: 'c', content: 'Riverside Vets, 14 Mill Lane, Bristol BS3 4QT.' },
      3,
      [1],
    );
    const result = { ...q, candidates: [emergency, contact], misspelt: [] } as never;
    expect(answerablePassages(result, 'Where are you?', settings).passages[0]?.url).toBe(contact.url);
    // Without a contact page, the best-ranked page that states one.
    const other = { ...contact, url: 'https://site.example/team.html' };
    expect(
      answerablePassages({ ...q, candidates: [emergency, other], misspelt: [] } as never, 'Where are you?', settings).passages[0]?.url,
    ).toBe(emergency.url);
  });
});

describe('absentShare (declining)', () => {
  it('is the share of the question’s idf mass that no page holds', () => {
    expect(absentShare(stats(['offic', 'phone', 'address'], [0, 0, 40]), DEFAULT_RANKING)).toBeGreaterThan(0.7);
    expect(absentShare(stats(['cluster', 'worker'], [5, 9]), DEFAULT_RANKING)).toBe(0);
  });

  it('does not count stop words, compounds whose parts are asked, context words, or a typing slip', () => {
    const s = stats(['what', 'form-control', 'form', 'control', 'strng'], [0, 0, 30, 12, 0]);
    expect(absentShare(s, DEFAULT_RANKING)).toBeGreaterThan(0);
    expect(absentShare(s, DEFAULT_RANKING, { misspelt: new Set(['strng']) })).toBe(0);
    const context = { ...stats(['kubernet', 'deploy'], [0, 4]), termFocus: [false, true] };
    expect(absentShare(context, DEFAULT_RANKING)).toBe(0);
  });

  it('does not count a word spelt the other side of the Atlantic when the site spells it its way', () => {
    // "Can I print cheques?" of a guide that says "checks": "check" is searched as a context word.
    const cheques = { ...stats(['check', 'print', 'chequ'], [40, 12, 0], 778), termFocus: [false, true, true] };
    expect(absentShare(cheques, DEFAULT_RANKING)).toBe(0);
    expect(absentShare({ ...cheques, termDf: [0, 12, 0] }, DEFAULT_RANKING)).toBeGreaterThan(0.3);
    // "Where is the lircrc file kept?" of a manual that says "keep": the base is searched, the form not absent.
    const kept = { ...stats(['keep', 'lircrc', 'file', 'kept'], [30, 40, 600, 0], 1651), termFocus: [false, true, true, true] };
    expect(absentShare(kept, DEFAULT_RANKING)).toBe(0);
    // "What is the biggest email Postfix accepts?" of a manual that says "big": the base is searched, the superlative not absent.
    const biggest = { ...stats(['big', 'biggest', 'email', 'accept'], [45, 0, 192, 166], 3236), termFocus: [false, true, true, true] };
    expect(absentShare(biggest, DEFAULT_RANKING)).toBe(0);
    expect(absentShare({ ...biggest, termDf: [0, 0, 192, 166] }, DEFAULT_RANKING)).toBeGreaterThan(0.3);
    // "Is there a bus?" of "Buses 24 and 25 stop…": Postgres's lexeme "bus" is not the analyser's stem "bu".
    expect(absentShare({ ...stats(['bus', 'buse'], [0, 1], 8), termFocus: [true, false] }, DEFAULT_RANKING)).toBe(0);
  });

  it('does not count the verb of a phrasal verb that names no thing, only one whose noun pages use', () => {
    // "turn on" is searched as "enable": a site never speaking of two-factor anything is not made to
    // answer by saying "turn" somewhere.
    const twoFactor = stats(['account', 'authent', 'factor', 'turn', 'two', 'two-factor'], [13, 10, 0, 5, 86, 0], 2261);
    const message = 'How do I turn on two-factor authentication for my account?';
    expect(absentShare(twoFactor, DEFAULT_RANKING)).toBeLessThan(0.3);
    expect(absentShare(twoFactor, DEFAULT_RANKING, { message })).toBeGreaterThan(0.3);
    // A hotel's "late check-out": "check out" is its checkout, and counts.
    const late = stats(['check', 'late'], [3, 0], 5);
    expect(absentShare(late, DEFAULT_RANKING, { message: 'Can we check out late?' })).toBe(0.5);
  });

  it('does not count the noun of an idiom ("in a row") as absent, and counts it outside the idiom', () => {
    // LIRC's pages never write "row": "send it five times in a row" asks how to repeat a send.
    const repeat = stats(['five', 'row', 'send', 'time'], [0, 0, 220, 217], 1651);
    expect(absentShare(repeat, DEFAULT_RANKING, { message: 'and how do I send it five times in a row?' })).toBe(0);
    // "Can I send a row of five?" asks about a row.
    expect(absentShare(repeat, DEFAULT_RANKING, { message: 'Can I send a row of five at once?' })).toBeGreaterThan(0.3);
  });

  it('does not count the words that ask for a time or a surcharge, when the site lacks them: the thing asked about decides', () => {
    // A plumber's contact page says "The office is open 8am to 6pm": neither "time" nor "close".
    const close = stats(['close', 'offic', 'time'], [0, 3, 0], 12);
    expect(absentShare(close, DEFAULT_RANKING, { message: 'What time does the office close?' })).toBe(0);
    expect(absentShare(close, DEFAULT_RANKING, { message: 'Is the office close to the time ball?' })).toBeGreaterThan(0.51);
    // Nor the "extra" of a price asked ("Can we bring our dog?", then "how much extra?" of "£15 per stay").
    const extra = { ...stats(['dog', 'bring', 'extra', 'much'], [2, 1, 0, 0], 12), termFocus: [false, false, true, true] };
    expect(absentShare(extra, DEFAULT_RANKING, { message: 'how much extra?' })).toBe(0);
  });

  it('counts a verb of trade neither present nor absent: the thing asked about decides', () => {
    // A tea shop's pages say "We sell … teas": "Do you sell coffee?" is all absent, "Do you sell teapots?" not.
    expect(absentShare(stats(['sell', 'coffe'], [3, 0], 5), DEFAULT_RANKING)).toBe(1);
    expect(absentShare(stats(['sell', 'teapot'], [3, 2], 5), DEFAULT_RANKING)).toBe(0);
    expect(absentShare(stats(['sell', 'teapot'], [0, 2], 5), DEFAULT_RANKING)).toBe(0);
    // "Do you take Bupa?" of a dental practice that takes new patients.
    expect(absentShare(stats(['take', 'bupa'], [2, 0], 5), DEFAULT_RANKING)).toBe(1);
  });

  it('counts a verb of trade when it is all the question asks ("Do you ship to the US?", "us" a stop word)', () => {
    expect(absentShare(stats(['ship', 'us'], [0, 1], 7), DEFAULT_RANKING)).toBe(1);
    expect(absentShare(stats(['ship', 'us'], [2, 1], 7), DEFAULT_RANKING)).toBe(0);
  });

  it('does not count a word every chunk of the site holds: what the site is about says nothing of the question', () => {
    // A florist's three chunks all say "flowers": "do you do funeral flowers?" is asked of "funeral".
    expect(absentShare(stats(['funer', 'flower'], [0, 3], 3), DEFAULT_RANKING)).toBe(1);
    expect(absentShare(stats(['funer', 'flower'], [0, 2], 3), DEFAULT_RANKING)).toBe(0.5);
  });

  it('does not count the words a question for a price asks with', () => {
    const s = stats(['cortar', 'cuanto', 'cuesta', 'nino', 'cabello'], [0, 0, 0, 1, 1], 4);
    expect(absentShare(s, DEFAULT_RANKING, { message: 'cuanto cuesta cortar el cabello a un niño' })).toBeCloseTo(1 / 3);
    expect(absentShare(s, DEFAULT_RANKING)).toBeCloseTo(3 / 5);
    const en = stats(['much', 'haircut', 'cost'], [0, 2, 0], 4);
    expect(absentShare(en, DEFAULT_RANKING, { message: 'How much does a haircut cost?' })).toBe(0);
  });

  it('weighs a name the visitor typed that the site never mentions more than a plain word', () => {
    const s = stats(['generatedfield', 'argument', 'databas', 'comput', 'take'], [0, 40, 60, 10, 30]);
    const plain = absentShare(s, DEFAULT_RANKING, { message: 'what arguments does generatedfield take to compute in the database' });
    const named = absentShare(s, DEFAULT_RANKING, { message: 'What arguments does GeneratedField take to compute in the database' });
    expect(named).toBeGreaterThan(plain);
    expect(named).toBeGreaterThanOrEqual(DEFAULT_RANKING.maxAbsentShare);
  });

  it('finds names by their inner capitals, and acronyms', () => {
    expect(namesIn('Is GraphQL supported, or PyCharm? I use Django and NodeJS.')).toEqual(['graphql', 'pycharm', 'nodejs', 'django']);
    // A capitalised word inside a sentence is a name; the first word of a sentence is not.
    expect(namesIn('Do you integrate with Salesforce? Is there a Linux app?')).toEqual(['salesforce', 'linux']);
    // Nor is the visitor's own name.
    expect(namesIn("Hi, I'm Anna. Do you ship to Spain? Thanks, Tom")).toEqual(['spain']);
    expect(namesIn('Hello Maria, my name is Joao and I need Wi-Fi')).toEqual([]);
    // German capitalises every noun: none is a name for being capitalised.
    expect(namesIn('Haben Sie Parkplätze vor der Praxis?')).toEqual([]);
    expect(namesIn('How much is a managed instance on AWS RDS? I need it.')).toEqual(['aws', 'rds']);
    expect(namesIn('HOW DO I RESET MY PASSWORD')).toEqual([]);
  });

  it('declines a question about a product the site never names, on a small site too', () => {
    // Tallyboard's integrations page (test/fixtures/small-sites/saas): "integrate" is there, Salesforce is not.
    const s = stats(['integr', 'salesforc'], [2, 0], 8);
    expect(absentShare(s, DEFAULT_RANKING, { message: 'Do you integrate with Salesforce?' })).toBeGreaterThanOrEqual(
      absentLimit(DEFAULT_RANKING, 8),
    );
    expect(absentShare(s, DEFAULT_RANKING, { message: 'do you integrate with salesforce' })).toBeLessThan(absentLimit(DEFAULT_RANKING, 8));
  });

  it('counts a heading inside a chunk’s text as a heading: a short section folded into the chunk before', () => {
    // An accountant's one-chunk services page ("…\n\nPayroll\nWeekly or monthly payroll…") and its
    // fees table that names payroll in a row, as often and in a shorter chunk.
    const services = holding(
      { content: 'VAT\nWe register businesses for VAT.\n\nPayroll\nWeekly or monthly payroll, payslips and pensions.', length: 80 },
      1,
      [0],
    );
    const fees = holding(
      { content: 'Limited company plus | monthly bookkeeping and payroll for up to 5 staff | £220', length: 52 },
      1,
      [0],
    );
    const found = [services, fees].map((c) => withInnerHeadings(c, ['payrol']));
    const [s, f] = scoreChunks(found, stats(['payrol'], [3], 5), DEFAULT_RANKING);
    expect(s?.lexical).toBeGreaterThan(f?.lexical ?? 1);
  });

  it('drops the stems of stop words, not words that stem like one ("evening" is "even")', () => {
    const query = 'whats on in the evening';
    const terms = ['what', 'even'];
    expect(stopTerms(query, terms)).toEqual([true, false]);
    expect(stopTerms('is it even possible', ['even', 'possibl'])).toEqual([true, false]);
    const s = { ...stats(terms, [0, 3], 100), termStop: stopTerms(query, terms) };
    const [what, evening] = termWeights(s, DEFAULT_RANKING);
    expect(what).toBe(0);
    expect(evening).toBeGreaterThan(0);
  });

  it('weighs an acronym the site never uses as a name', () => {
    const s = stats(['aw', 'rds', 'manag', 'instanc', 'cost', 'month'], [0, 2, 384, 176, 242, 73], 10_000);
    expect(absentShare(s, DEFAULT_RANKING, { message: 'how much is a managed aws rds instance per month' })).toBeLessThan(
      DEFAULT_RANKING.maxAbsentShare,
    );
    expect(absentShare(s, DEFAULT_RANKING, { message: 'How much is a managed AWS RDS instance per month?' })).toBeGreaterThanOrEqual(
      DEFAULT_RANKING.maxAbsentShare,
    );
  });

  it('does not count the visitor’s own file names, paths, extensions and dotted names as absent', () => {
    const files = stats(['settings/dev.py', 'settings/prod.py', 'load', 'server', 'command'], [0, 0, 400, 300, 450], 10_000);
    expect(absentShare(files, DEFAULT_RANKING, { message: 'With settings/dev.py and settings/prod.py, which does the server load?' })).toBe(
      0,
    );
    const extension = stats(['compress', 'file', 'gz', 'stream'], [50, 700, 0, 500], 10_000);
    expect(absentShare(extension, DEFAULT_RANKING, { message: 'compress file to .gz stream' })).toBe(0);
    const code = stats(['write', 'order.total', 'euro', 'templat', 'function'], [700, 0, 0, 1300, 1200], 10_000);
    expect(absentShare(code, DEFAULT_RANKING, { message: 'I write {{ order.total|euro }} in templates: where does my function go?' })).toBe(
      0,
    );
    expect(absentShare(code, DEFAULT_RANKING, { message: 'I write `order.total|euro` in templates: where does my function go?' })).toBe(0);
    // The same letters written as a word are a word the site lacks.
    expect(absentShare(extension, DEFAULT_RANKING, { message: 'compress file to gz stream' })).toBeGreaterThan(0);
  });

  it('declines on a small site only when more of the question is missing than present', () => {
    // "Do you have vegan options?" of a four-page restaurant whose menu marks dishes vegan.
    const small = stats(['vegan', 'option'], [1, 0], 4);
    expect(absentShare(small, DEFAULT_RANKING)).toBeCloseTo(0.5, 5);
    expect(absentShare(small, DEFAULT_RANKING)).toBeLessThan(absentLimit(DEFAULT_RANKING, 4));
    // "Do you serve sushi?": all of it missing.
    expect(absentShare(stats(['serv', 'sushi'], [0, 0], 4), DEFAULT_RANKING)).toBeGreaterThanOrEqual(absentLimit(DEFAULT_RANKING, 4));
    // The same half missing on a documentation site of thousands of chunks is declined, as before.
    const large = stats(['vegan', 'option'], [1, 0], 5000);
    expect(absentShare(large, DEFAULT_RANKING)).toBeGreaterThanOrEqual(absentLimit(DEFAULT_RANKING, 5000));
  });

  it('counts every word alike on a small site, and not a day, a holiday or a number the visitor names', () => {
    // "Can I pay in instalments?" of a four-chunk site where "pay" is in two chunks: one word of two.
    expect(absentShare(stats(['instal', 'pay'], [0, 2], 4), DEFAULT_RANKING)).toBeCloseTo(0.5, 5);
    // On a large site the idf decides, as before.
    expect(absentShare(stats(['instal', 'pay'], [0, 200], 5000), DEFAULT_RANKING)).toBeGreaterThan(0.6);
    // "Are you open on Saturday?" of a site that says "closed at weekends".
    expect(absentShare(stats(['open', 'saturday'], [2, 0], 4), DEFAULT_RANKING)).toBe(0);
    expect(absentShare(stats(['tabl', 'tonight'], [1, 0], 5000), DEFAULT_RANKING)).toBe(0);
    // "Can the system install updates by itself every night?" of a FAQ that says "at regular intervals".
    expect(absentShare(stats(['system', 'instal', 'updat', 'night'], [90, 60, 40, 0], 229), DEFAULT_RANKING)).toBe(0);
    expect(absentShare(stats(['backup', 'daili'], [8, 0], 5000), DEFAULT_RANKING)).toBe(0);
    // "…send it five times?" of a manual that writes "--count=n": a number in words is one in digits.
    expect(absentShare(stats(['send', 'five', 'time'], [40, 0, 300], 2000), DEFAULT_RANKING)).toBe(0);
    expect(absentShare(stats(['book', 'twice'], [12, 0], 5000), DEFAULT_RANKING)).toBe(0);
  });

  it('sets the limit from the site’s size: maxAbsentShare from 1,000 chunks up, more than half up to 20, log-scaled between', () => {
    expect(absentLimit(DEFAULT_RANKING, 10_000)).toBe(0.3);
    expect(absentLimit(DEFAULT_RANKING, 1000)).toBe(0.3);
    expect(absentLimit(DEFAULT_RANKING, 20)).toBeCloseTo(0.51, 5);
    expect(absentLimit(DEFAULT_RANKING, 3)).toBeCloseTo(0.51, 5);
    const mid = absentLimit(DEFAULT_RANKING, Math.round(Math.sqrt(20 * 1000)));
    expect(mid).toBeCloseTo(0.405, 2);
    // Before the first statistics refresh: the configured limit; "never decline" stays never.
    expect(absentLimit(DEFAULT_RANKING, 0)).toBe(0.3);
    expect(absentLimit({ ...DEFAULT_RANKING, maxAbsentShare: 1 }, 5)).toBe(1);
  });

  it('does not count interjections ("Cool. And…") as what the question is about', () => {
    expect(absentShare(stats(['cool', 'serv', 'ssl', 'certif'], [0, 10, 120, 80]), DEFAULT_RANKING)).toBe(0);
  });
});

describe('wordsApart (declining)', () => {
  const q = stats(['weather', 'pari', 'today'], [3, 2, 5]);
  const on = (url: string, body: number[]) => holding({ url, pageId: url }, 3, body);

  it('holds when the site has three of the question’s words and no page two of them', () => {
    expect(wordsApart([on('a', [0]), on('b', [1]), on('c', [2])], q, DEFAULT_RANKING)).toBe(true);
  });

  it('does not hold when one page has two of them, in two of its chunks too', () => {
    expect(wordsApart([on('a', [0]), on('b', [1, 2])], q, DEFAULT_RANKING)).toBe(false);
    expect(wordsApart([on('a', [0]), on('b', [1]), on('b', [2])], q, DEFAULT_RANKING)).toBe(false);
  });

  it('needs three words on the site: two apart, or a third the site lacks, are no sign', () => {
    const two = stats(['chang', 'index.php'], [40, 2]);
    expect(wordsApart([holding({ url: 'a' }, 2, [0]), holding({ url: 'b' }, 2, [1])], two, DEFAULT_RANKING)).toBe(false);
    const lacking = stats(['weather', 'pari', 'today'], [3, 0, 5]);
    expect(wordsApart([on('a', [0]), on('c', [2])], lacking, DEFAULT_RANKING)).toBe(false);
  });

  it('does not count a word in every chunk of the site, nor the context a follow-up brought', () => {
    const everywhere = stats(['yoga', 'hot', 'teach', 'sauna'], [10, 1, 2, 3], 10);
    expect(wordsApart([on('a', [0, 1]), on('b', [0, 2]), on('c', [0, 3])], everywhere, DEFAULT_RANKING)).toBe(true);
    const context = { ...q, termFocus: [true, true, false] };
    expect(wordsApart([on('a', [0]), on('b', [1]), on('c', [2])], context, DEFAULT_RANKING)).toBe(false);
  });
});

describe('dropNearDuplicates', () => {
  const text =
    'Every installation carries a five year warranty on labour and the manufacturer warranty on parts. To make a claim send a photo.';
  it('keeps the more specific page when two chunks repeat the same text, in the better rank', () => {
    const allInOne = candidate({ url: 'https://site.example/all', pageChunks: 60, content: `Intro line. ${text}` }) as RankedPassage;
    const specific = candidate({ url: 'https://site.example/warranty', pageChunks: 2, content: text }) as RankedPassage;
    const other = candidate({}) as RankedPassage;
    const out = dropNearDuplicates([
      { ...allInOne, score: 0.3, lexical: 0.3, boosted: false },
      { ...other, score: 0.2, lexical: 0.2, boosted: false },
      { ...specific, score: 0.1, lexical: 0.1, boosted: false },
    ]);
    expect(out.map((p) => p.url)).toEqual(['https://site.example/warranty', other.url]);
    expect(out[0]?.score).toBe(0.3);
  });

  it('gives the same verdicts when the same chunks come again, on the new list’s scores, and walks a changed chunk anew', () => {
    const first = candidate({ url: 'https://site.example/a', content: text }) as RankedPassage;
    const twin = candidate({ url: 'https://site.example/b', content: `${text} Thanks.` }) as RankedPassage;
    const list = (a: number, b: number, over: Partial<RankedPassage> = {}) => [
      { ...first, score: a, lexical: a, boosted: false },
      { ...twin, score: b, lexical: b, boosted: false, ...over },
    ];
    expect(dropNearDuplicates(list(0.3, 0.2)).map((p) => [p.url, p.score])).toEqual([['https://site.example/a', 0.3]]);
    // Replayed: the same verdict, the scores of the list given.
    expect(dropNearDuplicates(list(0.5, 0.4)).map((p) => [p.url, p.score])).toEqual([['https://site.example/a', 0.5]]);
    // The second chunk re-crawled with other text (a new content hash) repeats nothing.
    const changed = list(0.5, 0.4, {
      content: 'Opening hours are nine to five on weekdays only, closed on Sundays.',
      contentHash: 'changed',
    });
    expect(dropNearDuplicates(changed).map((p) => p.url)).toEqual(['https://site.example/a', 'https://site.example/b']);
  });
});

describe('sourcesOf', () => {
  it('lists distinct pages in order, falling back to the URL for an untitled page', () => {
    expect(
      sourcesOf([
        { url: 'https://s.example/a', title: 'A' },
        { url: 'https://s.example/b', title: '' },
        { url: 'https://s.example/a', title: 'A' },
      ]),
    ).toEqual([
      { title: 'A', url: 'https://s.example/a' },
      { title: 'https://s.example/b', url: 'https://s.example/b' },
    ]);
  });
});

describe('withoutMeasureWords', () => {
  it('drops the adjective of a "how long / often / far" question, and nothing else', () => {
    expect(withoutMeasureWords('How long is the warranty?')).toBe('how is the warranty?');
    expect(withoutMeasureWords('how often do you deliver, and how far?')).toBe('how do you deliver, and how?');
    expect(withoutMeasureWords('a long warranty for old bikes')).toBe('a long warranty for old bikes');
  });

  it('drops the verb a duration is asked with: "take the smaller one" is not about delivery', () => {
    expect(withoutMeasureWords('How long does delivery take?')).toBe('how does delivery?');
    expect(withoutMeasureWords('how long will the battery last')).toBe('how will the battery');
    expect(withoutMeasureWords('Can I take my dog?')).toBe('Can I take my dog?');
  });

  it('drops the kind of a holiday: "bank" is no thing asked about', () => {
    expect(withoutMeasureWords('Are you open on bank holidays?')).toBe('Are you open on holidays?');
    expect(withoutMeasureWords('open on public holiday')).toBe('open on holiday');
    expect(withoutMeasureWords('Can I pay by bank transfer?')).toBe('Can I pay by bank transfer?');
  });
});

describe('siteSpecificity', () => {
  it('is 1 for a word in one chunk, 0 for a word in every chunk, log-scaled between; a word in none is not listed', () => {
    const s = siteSpecificity({ queryTerms: ['node', 'fetch', 'unseen', 'one'], termDf: [1000, 10, 0, 1], corpusDocs: 1000 });
    expect(s.node).toBe(0);
    // Unlisted, it weighs fully in the extractive answer, and may be a typing slip of a word there.
    expect(s).not.toHaveProperty('unseen');
    expect(s.one).toBe(1);
    expect(s.fetch).toBeCloseTo(Math.log(100) / Math.log(1000), 10);
    expect(siteSpecificity({ queryTerms: ['x'], termDf: [1], corpusDocs: 1 })).toEqual({});
  });
});

describe('the local embedder’s weights', () => {
  it('rank by the latent list where there is one, and by the hashed vectors and the title where there is none', () => {
    const withLatent = rankingFor(LOCAL_EMBEDDER_RANKING, [{ lsaRank: null }, { lsaRank: 3 }]);
    expect(withLatent).toMatchObject({ vectorWeight: 1, lsaWeight: 0.5, titleWeight: 0, proximityWeight: 0.5, linkedPageRatio: 0 });
    // A small site (no model under 100 chunks): the weights chosen before the latent list took over.
    const without = rankingFor(LOCAL_EMBEDDER_RANKING, [{ lsaRank: null }, { lsaRank: null }]);
    expect(without).toMatchObject({ vectorWeight: 0.5, lsaWeight: 0.5, titleWeight: 1, proximityWeight: 2, linkedPageRatio: 0.8 });
    // The OpenAI path has one set of weights.
    expect(rankingFor(DEFAULT_RANKING, [{ lsaRank: null }])).toBe(DEFAULT_RANKING);
  });
});
