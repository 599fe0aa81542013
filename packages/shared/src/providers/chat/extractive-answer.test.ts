import { describe, expect, it } from 'vitest';
import { analyze } from '../text/text-analysis.ts';
import { composeAnswer, coverage, openingOf, priceListOf, queryTerms, rowSentence, sentencesOf } from './extractive-answer.ts';

const passage = (id: string, url: string, content: string, title = 'Page') => ({ id, url, title, content });

describe('sentencesOf', () => {
  it('keeps a section’s number with its name', () => {
    const [number, rest] = sentencesOf('9.2. Must I go into single user mode in order to upgrade a package?\nA. Appendix one.');
    expect(number).toMatchObject({
      text: '9.2. Must I go into single user mode in order to upgrade a package?',
      line: true,
      numbered: true,
    });
    expect(rest).toMatchObject({ text: 'A. Appendix one.', line: true });
    expect(sentencesOf('1. Install the package. Then run it.')[0]).not.toHaveProperty('numbered');
  });

  it('marks table cells, headings, code and sentence halves as not prose', () => {
    const s = sentencesOf(
      [
        'Identity Columns',
        'identity_increment character_data If the column is an identity column, then the increment of the internal sequence, else null.',
        'SELECT * FROM t WHERE id = 1;',
        'and then the rest of a sentence cut in two.',
        'The default port is 5432, which clients use unless told otherwise.',
        'fs.readFile() reads the whole file into memory.',
        // Code whose lines the page's markup ran together: a comment, a template literal, a block.
        'Therefore, all fields of the// resource may not have been populated.function init(asyncId) { }',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the page's own template literal, as crawled
        "`The certificate of '${cert.subject.CN}' ` +'does not match our pinned fingerprint';return new Error(msg);}",
        '// Throws "RangeError: port option should be >= 0 and < 65536."',
        'See https://nodejs.org/api/ for the whole reference.',
        'C# and F# clients call the same API.',
        '# Special case for the last page because there can be orphans.',
        // Python whose lines and comments the markup ran together.
        'This is# a hook that specifies how to get the list of categories for a given# item.',
        `Returns the item's categories.def item_categories(self, item):"""Takes an item."""`,
        // Numbers are words of a sentence; symbols are not.
        'Django 3.2 supports Python 3.6, 3.7, 3.8, 3.9, and 3.10 (as of 3.2.9).',
        'See -> ->> <=> || && != ~~ [] {} for the operators.',
        // A piece cut out of code or out of a parenthesis closes a bracket it never opened; an enumerator does not count.
        "summary=__('%d source files given on command line') % len(docnames))",
        '2) Restart the server before you try again.',
      ].join('\n'),
    );
    expect(s.map((x) => x.prose)).toEqual([
      false,
      false,
      false,
      false,
      true,
      true,
      false,
      false,
      false,
      true,
      true,
      false,
      false,
      false,
      true,
      false,
      false,
      true,
    ]);
  });
});

describe('sentencesOf: code listings', () => {
  it('reads a REPL’s continuation line as code, not as a sentence', () => {
    const [loop, body] = sentencesOf('for key in sorted(mydict):\n    ... # do whatever with mydict[key]...');
    expect(loop).toMatchObject({ prose: false });
    expect(body).toMatchObject({ text: '... # do whatever with mydict[key]...', prose: false, line: true });
  });

  it('reads the lines of a listing printed with its line numbers as code, comments ending in a full stop too', () => {
    const listing = sentencesOf(
      [
        '1 DNS:',
        ' 2 the.backed-up.domain.tld IN MX 100 your.machine.tld.',
        ' 3',
        ' 4 /etc/postfix/main.cf:',
        ' 5 relay_domains = . . . the.backed-up.domain.tld',
        '',
        '6b # Older configurations combine relay control and spam control. To',
        ' 7b # use this with Postfix ≥ 2.10 specify "smtpd_relay_restrictions=".',
        ' 8b smtpd_recipient_restrictions =',
        ' 9b permit_mynetworks reject_unauth_destination',
        '10b smtpd_recipient_restrictions = ...spam blocking rules....',
      ].join('\n'),
    );
    expect(listing.filter((x) => x.prose)).toEqual([]);
    expect(listing.map((x) => x.text)).toContain('6b # Older configurations combine relay control and spam control. To');
    // A timeline's years follow each other too, and hold no code: its lines stay sentences.
    const timeline = sentencesOf('1998 The shop opened in Sheffield.\n1999 We opened a second shop in Leeds.');
    expect(timeline.map((x) => x.prose)).toEqual([true, true]);
  });
});

describe('sentencesOf: a paragraph opening with a command', () => {
  it('is prose when a plain word opens the paragraph, not a joining word, code or a second piece', () => {
    const s = sentencesOf(
      [
        // A passage's first line may be the rest of a sentence its chunk cut.
        "results in a 'memory leak' with both the native memory and the object.",
        '',
        'make latexpdf runs the LaTeX builder and readily invokes the pdfTeX toolchain for you.',
        '',
        'where sourcedir is the source directory, and builddir is the output directory.',
        '',
        'buffer {Buffer} Either a string or a buffer to write to the stream.',
        '',
        'port integer If the column is set, the port number is used.',
        // A wrapped line opens no paragraph.
        'pip installs the package and every package it depends on.',
        '',
        'git commit records the changes staged in the index.',
      ].join('\n'),
    );
    expect(s.map((x) => [x.text.split(' ', 2).join(' '), x.prose])).toEqual([
      ['results in', false],
      ['make latexpdf', true],
      ['where sourcedir', false],
      ['buffer {Buffer}', false],
      ['port integer', false],
      ['pip installs', false],
      ['git commit', true],
    ]);
  });

  it('answers from it', () => {
    const a = composeAnswer('How do I get a PDF of my documentation?', [
      passage(
        'q',
        'https://docs.example/usage/quickstart.html',
        [
          'This will build HTML docs in the build directory you chose.',
          '',
          'How do I generate PDF documents?',
          '',
          'make latexpdf runs the LaTeX builder and readily invokes the pdfTeX toolchain for you.',
        ].join('\n'),
        'Getting Started',
      ),
    ]);
    expect(a.text).toContain('make latexpdf runs the LaTeX builder');
  });
});

describe('composeAnswer', () => {
  it('quotes the answering sentence of the best page and cites only what it quotes', () => {
    const out = composeAnswer('what is the default port', [
      passage(
        'a',
        'https://s/conn',
        'Connections are accepted on a TCP port. The default port is 5432, which clients use unless told otherwise. Other settings follow.',
      ),
      passage('b', 'https://s/other', 'Unrelated text about vacuuming tables and reclaiming space on disk.'),
    ]);
    expect(out.text.startsWith('The default port is 5432')).toBe(true);
    expect(out.text).toMatch(/\[1\]$/);
    expect(out.used).toEqual([0]);
  });

  it('adds a related page’s best sentence, cited [2], when it is about the question too', () => {
    const out = composeAnswer('how do I drop a database', [
      passage('a', 'https://s/drop', 'DROP DATABASE removes a database and all its files. It cannot be undone.'),
      passage('b', 'https://s/dropdb', 'The dropdb program is a wrapper around DROP DATABASE that you run from the shell.'),
    ]);
    expect(out.used).toEqual([0, 1]);
    expect(out.text).toMatch(
      /^DROP DATABASE removes a database and all its files\. It cannot be undone\. \[1\]\n\nThe dropdb program .* \[2\]$/,
    );
  });

  it('never quotes a footer’s copyright notice run on after the page’s last section', () => {
    const page = [
      'Subscriptions',
      'Get a new tea every month for £12, delivered free. Skip or cancel any time from your account.',
      '© Leafline Tea Co. Ltd · Company no. 10473829',
    ].join('\n');
    expect(composeAnswer('do you have a tea subscription', [passage('a', 'https://s/', page)]).text).toBe(
      'Subscriptions: Get a new tea every month for £12, delivered free. Skip or cancel any time from your account. [1]',
    );
    const notice = 'Get a new tea every month for £12. Copyright 2024 Leafline Tea Co. All rights reserved.';
    expect(composeAnswer('do you have a tea subscription', [passage('a', 'https://s/', notice)]).text).toBe(
      'Get a new tea every month for £12. [1]',
    );
  });

  it('quotes a related page’s sentence whole, never cut, and the main quote gets what the related sentences leave', () => {
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');
    // Six sentences of 13 words: 78, the main quote's whole when it stands alone.
    const main = Array.from({ length: 6 }, (_, i) => `Sentence ${i} about dropping a database says ${filler(6)}.`).join(' ');
    // 35 words: quoted whole (it was cut at 28 and ended "…").
    const whole = `The dropdb program drops a database from the shell and ${filler(25)} done.`;
    const out = composeAnswer('how do I drop a database', [passage('a', 'https://s/drop', main), passage('b', 'https://s/dropdb', whole)]);
    expect(out.text).not.toContain('…');
    expect(out.text).toContain(`${whole} [2]`);
    expect(out.text.split(/\s+/).length).toBeLessThanOrEqual(92);
    expect(out.text).toContain('Sentence 3');
    expect(out.text).not.toContain('Sentence 5');
    // Over 40 words: not quoted at all, and the main quote keeps its 80 words.
    const long = `The dropdb program drops a database from the shell and ${filler(40)} done.`;
    const alone = composeAnswer('how do I drop a database', [passage('a', 'https://s/drop', main), passage('b', 'https://s/dropdb', long)]);
    expect(alone.used).toEqual([0]);
    expect(alone.text).toContain('Sentence 5');
  });

  it('quotes no related page saying again what the answer says: the next related page is quoted instead', () => {
    const out = composeAnswer('how do I drop a database', [
      passage('a', 'https://s/drop', 'DROP DATABASE removes a database and all its files. It cannot be undone.'),
      // A quick reference repeating the command page's sentence, in other case and spacing.
      passage('b', 'https://s/quickref', 'DROP  DATABASE removes a database and all its files!'),
      passage('c', 'https://s/dropdb', 'The dropdb program is a wrapper around DROP DATABASE that you run from the shell.'),
    ]);
    expect(out.used).toEqual([0, 2]);
    expect(out.text.match(/removes a database/g)).toHaveLength(1);
    expect(out.text).toMatch(/\n\nThe dropdb program .* \[2\]$/);
  });

  it('quotes no related page’s sentence that points at what stands above or below it on its page', () => {
    const out = composeAnswer('how do I drop a database', [
      passage('a', 'https://s/drop', 'DROP DATABASE removes a database and all its files. It cannot be undone.'),
      passage('b', 'https://s/script', 'The first line of the script above will drop a database before loading it again.'),
      passage('c', 'https://s/list', 'All of the commands listed here drop a database or one of its objects.'),
      passage('d', 'https://s/dropdb', 'The dropdb program is a wrapper around DROP DATABASE that you run from the shell.'),
    ]);
    expect(out.used).toEqual([0, 3]);
    expect(out.text).toMatch(/\n\nThe dropdb program .* \[2\]$/);
  });

  it('quotes a related page’s best sentence that stands alone when its best points back, and its best when it stands alone', () => {
    const main = passage('a', 'https://s/shutil', 'shutil.move() moves a directory and everything inside it to another place.');
    // Its best sentence points back ("These…"); the next one says the thing itself.
    const os = passage(
      'b',
      'https://s/os',
      'These remove a directory and everything inside it, if it is empty. In order to remove whole directory trees, shutil.rmtree() can be used.',
    );
    const out = composeAnswer('remove a directory and everything inside it', [main, os]);
    expect(out.used).toEqual([0, 1]);
    expect(out.text).toMatch(/\n\nIn order to remove whole directory trees, shutil\.rmtree\(\) can be used\. \[2\]$/);
    // Nor is a second best the answer already says, further on in its quote.
    const repeated = composeAnswer('how do i add a column to a table', [
      passage(
        'a',
        'https://s/altertable',
        'ADD COLUMN adds a new column to the table. If IF NOT EXISTS is given and the column exists in the table, no error is thrown.',
      ),
      passage(
        'b',
        'https://s/alterforeigntable',
        'This form adds a new column to the foreign table. If IF NOT EXISTS is given and the column exists in the table, no error is thrown.',
      ),
    ]);
    expect(repeated.used).toEqual([0]);
    expect(repeated.text.match(/no error is thrown/g)).toHaveLength(1);
    // A later passage of the page whose best sentence stands alone is quoted before such a second best.
    const osLater = passage('c', 'https://s/os', 'os.removedirs() removes a directory and everything inside it, one level at a time.');
    expect(composeAnswer('remove a directory and everything inside it', [main, os, osLater]).text).toMatch(
      /\n\nos\.removedirs\(\) removes a directory and everything inside it, one level at a time\. \[2\]$/,
    );
  });
  it('on a site of a few pages, adds a related page’s sentence only when it covers half the question itself', () => {
    const pages = [
      passage('a', 'https://s/exhibitions', 'Coming next: Boats of the Swale\nOpens 14 June. Models and plans of the barges.'),
      passage('b', 'https://s/', 'The museum tells the story of the fishermen, divers and boat builders of the town.'),
    ];
    const site = { boat: 0.67, exhibit: 0.67, open: 0.47 };
    // A museum of six chunks: the home page's "boat builders" is another topic.
    expect(composeAnswer('is the boats exhibition open yet', pages, site, undefined, 6).used).toEqual([0]);
    // A documentation site of thousands: a related page is often the other half of the answer.
    expect(composeAnswer('is the boats exhibition open yet', pages, site, undefined, 5000).used).toEqual([0, 1]);
  });

  it('quotes no related page’s sentence that states none of the kind of answer the main quote states', () => {
    const pages = [
      passage('a', 'https://s/shop', 'Leith cardigan\nLightweight merino and lambswool cardigan with horn buttons. £145.'),
      passage('b', 'https://s/', 'Jumpers, cardigans, scarves and hats knitted in our Leith workshop from British wool.'),
      passage('c', 'https://s/gifts', 'A cardigan gift box costs £5 extra.'),
    ];
    // "How much is the cardigan?": the price answers; the home page only names cardigans, the gift box prices one.
    expect(composeAnswer('How much is the cardigan?', pages, undefined, undefined, 5000).used).toEqual([0, 2]);
    // Asked for no amount, the home page is about the question too.
    expect(composeAnswer('Tell me about the cardigan', pages, undefined, undefined, 5000).used).toContain(1);
  });

  it('takes no line of contact details for the heading of the sentence under it', () => {
    const contact = passage(
      'a',
      'https://s/contact',
      'Riverside Vets, 14 Mill Lane, Bristol BS3 4QT.\n\nTelephone 0117 496 0802 · Email hello@vets.example\n\nRepeat prescriptions: order online or by email at least 48 hours before you collect.',
    );
    expect(composeAnswer('Can I get a repeat prescription?', [{ ...contact, heading: 'Contact us' }]).text).toBe(
      'Contact us: Repeat prescriptions: order online or by email at least 48 hours before you collect. [1]',
    );
  });

  it('quotes no related page’s question: a FAQ’s question asks, it does not answer', () => {
    const out = composeAnswer('is there a discount if I pay yearly', [
      passage(
        'a',
        'https://s/pricing',
        'Pay yearly and save\n\nChoose annual billing and you get two months free: you pay for 10 months instead of 12.',
      ),
      passage(
        'b',
        'https://s/faq',
        'Do you offer discounts for non-profits?\n\nRegistered non-profit organisations get 50% off any paid plan.',
      ),
    ]);
    // The FAQ's answer may be quoted beside it (another discount, for a question for one), never its question.
    expect(out.used[0]).toBe(0);
    expect(out.text).toMatch(/^Pay yearly and save: Choose annual billing/);
    expect(out.text).not.toContain('non-profits?');
  });

  it('quotes a list item under a heading alone, under the list’s heading, when it answers', () => {
    const home = passage(
      'a',
      'https://s/',
      'We are a family-run team of six engineers.\n\nWhy choose us\nFixed prices agreed before we start\n\nNo call-out charge during working hours\n\nAll work guaranteed for 12 months\n\nEmergencies\nOur engineers are on call 24 hours a day.',
    );
    expect(composeAnswer('is your work guaranteed', [home]).text).toBe('Why choose us: All work guaranteed for 12 months. [1]');
    // A heading with its text right under it is no item of the list above it.
    expect(composeAnswer('emergencies', [home]).text).toBe('Emergencies: Our engineers are on call 24 hours a day. [1]');
    // An item of nine words above it is an item too: the one below it is not the heading of the sentence after the list.
    const cleaning = passage(
      'b',
      'https://s/',
      "Why customers stay with us\nThe same cleaner every visit\n\nAll cleaners are DBS checked and trained by us\n\nEco-friendly products included in the price\n\nNo contract: cancel with a week's notice\n\nRated 4.9 out of 5 from over 300 reviews.",
    );
    expect(composeAnswer('Do you use eco-friendly products?', [cleaning]).text).toBe(
      'Why customers stay with us: Eco-friendly products included in the price. [1]',
    );
    // As the crawler stores it: the section's heading is the passage's, the list opens its text.
    const section = {
      ...passage('c', 'https://s/', cleaning.content.replace('Why customers stay with us\n', '')),
      heading: 'Why customers stay with us',
    };
    expect(composeAnswer('Do you use eco-friendly products?', [section]).text).toBe(
      'Why customers stay with us: Eco-friendly products included in the price. [1]',
    );
    // A passage of such lines to its end is an index, not a list: none is quoted as an item.
    const index = {
      ...passage('d', 'https://s/genindex', 'Abstract models\n\nAdmin actions\n\nAdmin site\n\nAggregation\n\nAsync views'),
      heading: 'A',
    };
    expect(composeAnswer('admin actions', [index]).text).toBe('');
  });

  it('counts a list’s items as part of the sentence that introduces it', () => {
    const areas = passage(
      'a',
      'https://s/areas',
      'We work across Leeds and within about 15 miles of the city centre, including:\n\nHeadingley\n\nOtley\n\nWetherby\n\nNot sure if we cover your postcode? Give us a call and we will tell you straight away.',
      'Areas we cover',
    );
    expect(composeAnswer('do you cover Otley?', [areas]).text).toBe(
      'We work across Leeds and within about 15 miles of the city centre, including: Headingley, Otley, Wetherby. [1]',
    );
  });

  it('ends no sentence at an abbreviation before its number', () => {
    expect(sentencesOf('Aire Valley Ltd · Gas Safe registered no. 584213 · Leeds LS5 3BT').map((x) => x.text)).toEqual([
      'Aire Valley Ltd · Gas Safe registered no. 584213 · Leeds LS5 3BT',
    ]);
    expect(sentencesOf('See p. 12 for the table. It lists 3 things.').map((x) => x.text)).toEqual([
      'See p. 12 for the table.',
      'It lists 3 things.',
    ]);
    expect(sentencesOf('The release came out in 2024. 2025 brought the next one.').map((x) => x.text)).toHaveLength(2);
  });

  it('weighs a number the visitor counts with as a context word, not one that names a thing', () => {
    const prices = passage(
      'a',
      'https://s/prices',
      'Course | 1–3 weeks | 4–11 weeks\nGeneral English | £295 | £270\nIELTS preparation | £395 | £365\n\nClosed dates\nThe school is closed from 20 December to 2 January.',
      'Dates and prices',
    );
    // "2 weeks" is how long, not the "2 January" of the closing dates. (On the school's site "english" is
    // in every chunk and "general" in half: they tell little, the number alone outweighed them.)
    const site = { english: 0.2, gener: 0.5, week: 0.5 };
    // Its columns are named by the first row, numbers and all, above rows of prices.
    expect(composeAnswer('how much is general english for 2 weeks', [prices], site).text).toBe(
      'General English — 1–3 weeks: £295; 4–11 weeks: £270. [1]',
    );
    const errors = passage('b', 'https://s/errors', 'A 404 error means the page was not found. A 500 error is a fault of the server.');
    expect(composeAnswer('what is error 500', [errors]).text).toBe('A 500 error is a fault of the server. [1]');
  });

  it('prefers the sentence stating the kind of answer asked for: an amount for "how much", a duration for "how long"', () => {
    const boilers = passage(
      'a',
      'https://s/services',
      'Boilers\nWe service and repair all major boiler brands, including Worcester Bosch and Vaillant. An annual boiler service costs £85 and includes a safety check.',
    );
    expect(composeAnswer('how much is a boiler service?', [boilers]).text).toBe(
      'Boilers: An annual boiler service costs £85 and includes a safety check. [1]',
    );
    const courses = passage(
      'b',
      'https://s/courses',
      'General English\n20 lessons a week, Monday to Friday mornings, covering speaking, listening, reading, writing, grammar and vocabulary, at all levels.\n\nBusiness English\nSmall groups practise meetings, presentations and emails in lessons of their own.\n\nA lesson is 50 minutes.',
    );
    expect(composeAnswer('how long is a lesson', [courses]).text).toMatch(/^(Business English: )?A lesson is 50 minutes\. \[1\]$/);
  });

  it('answers a question for a default or a date from the sentence of the paragraph stating it, before the one that names the topic', () => {
    // PostgreSQL's postgres(1): "whats the default port" was answered with the sentence saying "default port" twice.
    const options = passage(
      'a',
      'https://s/app-postgres.html',
      [
        '-p port',
        '',
        'Specifies the TCP/IP port on which postgres is to listen for connections from client applications. Defaults to the value of the PGPORT environment variable, or if PGPORT is not set, then defaults to the value established during compilation (normally 5432). If you specify a port other than the default port, then all client applications must specify the same port.',
      ].join('\n'),
    );
    expect(composeAnswer('whats the default port', [options]).text).toBe(
      '-p port: Defaults to the value of the PGPORT environment variable, or if PGPORT is not set, then defaults to the value established during compilation (normally 5432). If you specify a port other than the default port, then all client applications must specify the same port. [1]',
    );
    // A date before what the exhibition shows, for "when": the paragraph's first sentence holds no word of the question.
    const exhibitions = passage(
      'b',
      'https://s/exhibitions.html',
      'Deep Water: the Whitstable Divers\nUntil 31 May. In 1830 the brothers Deane tested their smoke helmet off Whitstable, the home of British helmet diving.',
    );
    expect(composeAnswer('When does the diving exhibition end?', [exhibitions]).text).toBe(
      'Deep Water: the Whitstable Divers — Until 31 May. In 1830 the brothers Deane tested their smoke helmet off Whitstable, the home of British helmet diving. [1]',
    );
    // A question that names no default is answered from the best sentence, as before.
    expect(composeAnswer('which port for a client application', [options]).text).toMatch(/^-p port: Specifies the TCP\/IP port/);
  });

  it('quotes, of sentences holding the same words of the question, the one under the heading that names the rest', () => {
    const courses = passage(
      'a',
      'https://s/courses',
      'General English\n20 lessons a week, Monday to Friday mornings, at all levels.\n\nOnline lessons\nOne-to-one lessons on Zoom with one of our teachers, bookable in blocks of 5 hours.',
    );
    expect(composeAnswer('Can I have lessons online?', [courses]).text).toBe(
      'Online lessons: One-to-one lessons on Zoom with one of our teachers, bookable in blocks of 5 hours. [1]',
    );
  });

  it('stays within about 80 words, whole sentences', () => {
    const long = Array.from(
      { length: 12 },
      (_, i) => `Sentence number ${i} explains one more detail about replication slots and their retention.`,
    ).join(' ');
    const out = composeAnswer('replication slots retention', [passage('a', 'https://s/slots', long)]);
    expect(out.text.split(/\s+/).length).toBeLessThanOrEqual(82);
    expect(out.text).toMatch(/retention\. \[1\]$/);
  });

  it('names what the quote is about when the page says it only in a heading above it', () => {
    const answer = (query: string, content: string, title: string, heading?: string | null) =>
      composeAnswer(query, [{ ...passage('a', 'https://s/page', content, title), heading }]).text;
    const cpus = 'Returns an array of objects containing information about each logical CPU core.';
    const rollback = 'Rolls back the transaction to a known-good savepoint within the atomic block.';
    const cases: [question: string, content: string, title: string, heading: string | null, expected: string][] = [
      ['how do i get the number of cpu cores', `os.cpus()\n${cpus}`, 'OS', 'os.arch()', `os.cpus(): ${cpus} [1]`],
      // The chunk's own section heading when no heading line stands above the sentence.
      [
        'fix a typo in the last commit message',
        'This is useful for fixing typos in your last commit message.',
        'git-commit(1)',
        '--amend',
        '--amend: This is useful for fixing typos in your last commit message. [1]',
      ],
      // "Label: value" lines between the heading and the sentence are the section's fields, not its name.
      [
        'how do i get the number of cpu cores',
        `Added in: v0.3.3\nReturns: <Object[]>\n${cpus}`,
        'OS',
        'os.cpus()',
        `os.cpus(): ${cpus} [1]`,
      ],
      // A parameter with its type ("options <Object>") belongs to the function named above it.
      [
        'how do i delete a directory recursively',
        'fs.rm(path[, options], callback)\noptions <Object>\nWhen true, recursive directory removal is performed on the path and its contents.',
        'File system',
        null,
        'fs.rm(path[, options], callback): When true, recursive directory removal is performed on the path and its contents. [1]',
      ],
      // A reference entry's name with its flag letters ("RPS1 <S>", a zsh special parameter) is the entry, not a
      // parameter's type: the quote is under it, the letters left out — not under the entry above it ("reply").
      [
        'how do i put text on the right-hand side of my prompt',
        'reply\n\nAs REPLY, but for array values rather than strings.\n\nRPROMPT <S>\n\nRPS1 <S>\n\nThis prompt is displayed on the right-hand side of the screen when the primary prompt is being displayed on the left.',
        'Parameters',
        '15.6 Parameters Used By The Shell',
        'RPS1: This prompt is displayed on the right-hand side of the screen when the primary prompt is being displayed on the left. [1]',
      ],
      // An entry's name heads its description, not the section's prose past the entries: "exception
      // copy.Error" is not what the deep copy's sentence, four blocks below it, is about.
      [
        'how do i make a deep copy of a nested list',
        'copy.deepcopy(x[, memo])¶\n\nReturn a deep copy of x.\n\nexception copy.Error¶\n\nRaised for module specific errors.\n\nThe difference between shallow and deep copying is only relevant for compound objects:\n\nA shallow copy constructs a new compound object and inserts references into it.\n\nA deep copy constructs a new compound object and then, recursively, inserts copies of the nested objects into it.',
        'copy — Shallow and deep copy operations',
        'Interface summary',
        'Interface summary: A deep copy constructs a new compound object and then, recursively, inserts copies of the nested objects into it. [1]',
      ],
      // Nor is a line of a listing the sentence explains (a manifest's lines, one block): the section is.
      [
        'which txt files does the manifest include',
        'include *.txt\nrecursive-include examples *.txt *.py\nprune examples/sample?/build\n\nThe meanings should be fairly clear: include all files in the distribution root matching *.txt and all files under examples.',
        'Creating a Source Distribution',
        '4.1. Specifying the files to distribute',
        '4.1. Specifying the files to distribute: The meanings should be fairly clear: include all files in the distribution root matching *.txt and all files under examples. [1]',
      ],
      // What a sentence ending in a colon introduces (a configuration line) is its example, not the
      // section's name; an entry the page gave a permalink ("marshal.dump(…)¶" under "…these functions:") is.
      [
        'how do i log to a file',
        'Add the following line to master.cf if not already present:\n\npostlog unix-dgram n - n - 1 postlogd\n\nConfigure Postfix to write logging to a file, for example /var/log/postfix.log.',
        'Postfix logging to file or stdout',
        'Configuring logging to file',
        'Configuring logging to file: Configure Postfix to write logging to a file, for example /var/log/postfix.log. [1]',
      ],
      [
        'how do i write a value to a file with marshal',
        'The module defines these functions:\n\nmarshal.dump(value, file[, version])¶\n\nWrite the value on the open file.',
        'marshal — Internal Python object serialization',
        null,
        'marshal.dump(value, file[, version]): Write the value on the open file. [1]',
      ],
      // A small site's heading in capitals is no reference entry: it names its section's blocks, however many.
      [
        'how much is a standard clean',
        'PRICES\n\nOur prices are simple and fair.\n\nWe charge by the hour, never by the room.\n\nCall us for a free quote any day.\n\nA standard clean costs £15 an hour.',
        'Sparkle',
        'About us',
        'PRICES: A standard clean costs £15 an hour. [1]',
      ],
      // A row of one cell after an empty one (DocBook's admonition table: its icon, then "Tip") is that
      // cell's text: a caption that names nothing, and no pipe in the quote.
      [
        'can i type only the day of a date',
        '| Tip\n\nIf you only enter a day and month, GnuCash will automatically append the year.\n\n| This shortcut works in every date field.',
        'Transactions',
        '2.9.2. Entering Dates',
        '2.9.2. Entering Dates: If you only enter a day and month, GnuCash will automatically append the year. This shortcut works in every date field. [1]',
      ],
      // A web address alone on its line (a book's reference to a registry) names no section.
      [
        'how does the gateway let machines with private addresses reach the internet',
        'More about ports:\n→ https://www.iana.org/assignments/service-names-port-numbers/service-names-port-numbers.xhtml\n\nWhen a local network uses a private address range, the gateway needs to implement address masquerading so that the machines on the network can reach the internet.',
        'Network Infrastructure',
        '10.1. Gateway',
        '10.1. Gateway: When a local network uses a private address range, the gateway needs to implement address masquerading so that the machines on the network can reach the internet. [1]',
      ],
      // A small site's names stacked under a heading are no listing: the nearest names what follows it.
      [
        'how much is a haircut',
        'Prices\nLadies cut and blow dry\nFrom £45. A wash and cut costs less for short hair.',
        'Home',
        null,
        'Ladies cut and blow dry: From £45. A wash and cut costs less for short hair. [1]',
      ],
      [
        'do you have parking',
        'Getting here\nBy car\nThere is free parking behind the building for 20 cars.',
        'Home',
        null,
        'By car: There is free parking behind the building for 20 cars. [1]',
      ],
      // Within its description's first blocks the entry's name stays (Django's Field.null, three paragraphs).
      [
        'can a string field be null in forms',
        'Field.null¶\n\nIf True, Django will store empty values as NULL in the database.\n\nAvoid using null on string-based fields such as CharField and TextField.\n\nFor string-based fields you will also need to set blank=True to permit empty values in forms.',
        'Model field reference',
        'Field options',
        'Field.null: For string-based fields you will also need to set blank=True to permit empty values in forms. [1]',
      ],
      // Nor is a C header's line ("#define … /* … */", its "#" no heading's anchor mark).
      [
        'which configuration options can I pass to db_config',
        '#define SQLITE_DBCONFIG_MAX 1017 /* Largest DBCONFIG */\nConfiguration options are passed to sqlite3_db_config() as its second argument.',
        'SQLite',
        'Database Connection Configuration Options',
        'Database Connection Configuration Options: Configuration options are passed to sqlite3_db_config() as its second argument. [1]',
      ],
      // Nor is a value's type alone on its line: the property's name above it is.
      [
        'which HTTP version did the client send',
        'message.httpVersion\nAdded in: v0.1.1\n<string>\nIn case of server request, the HTTP version sent by the client.',
        'HTTP',
        null,
        'message.httpVersion: In case of server request, the HTTP version sent by the client. [1]',
      ],
      // Nor is a history table's caption, header row or version cell ("History", "Version | Changes", "v7.5.0, v6.13.0").
      [
        'querystring vs URLSearchParams',
        'new URLSearchParams()\nHistory\nVersion | Changes\nv7.5.0, v6.13.0\nThe URLSearchParams interface and the querystring module have similar purpose.',
        'URL',
        null,
        'new URLSearchParams(): The URLSearchParams interface and the querystring module have similar purpose. [1]',
      ],
      // Nor a code example's import or return statement or closing bracket.
      [
        'bulk publish articles in the admin',
        'Admin actions\nfrom django.db import models\nreturn self.title\n]\nWe could publish each article in the admin one at a time.',
        'Actions',
        null,
        'Admin actions: We could publish each article in the admin one at a time. [1]',
      ],
      // Sphinx's anchor marks are not part of the name; an admonition's title and a REPL line are not names.
      [
        'how do i roll back a transaction',
        rollback,
        'Transactions',
        'set_rollback(rollback, using=None)[source]¶',
        `set_rollback(rollback, using=None): ${rollback} [1]`,
      ],
      ['how do i roll back a transaction', rollback, 'Transactions', 'Warning', `${rollback} [1]`],
      [
        'how do i roll back a transaction',
        `>>> Entry.objects.get(pk=1)'First entry'\n${rollback}`,
        'Transactions',
        null,
        `${rollback} [1]`,
      ],
      // Nor a line of a code example: one opening a bracket, an indented one, a REPL's output under its prompt.
      [
        'how do i roll back a transaction',
        `operations = [\n    migrations.AddField(\n        name='uuid',\n    ),\n]\n\n${rollback}`,
        'Transactions',
        'Savepoints',
        `Savepoints: ${rollback} [1]`,
      ],
      [
        'how do i roll back a transaction',
        `for entry in entries:\n    break\n\n${rollback}`,
        'Transactions',
        'Savepoints',
        `Savepoints: ${rollback} [1]`,
      ],
      [
        'how do i roll back a transaction',
        `>>> transaction.get_autocommit()\nTrue\n\n${rollback}`,
        'Transactions',
        'Savepoints',
        `Savepoints: ${rollback} [1]`,
      ],
      // Two names stacked: the quote names the lower one (an entry of the section), the upper one is the topic.
      [
        'forgot the superuser password',
        'django-admin createsuperuser¶\n\nDJANGO_SUPERUSER_PASSWORD¶\n\nRun interactively it prompts for the password, else it reads DJANGO_SUPERUSER_PASSWORD.',
        'django-admin and manage.py — Django documentation',
        'createsuperuser',
        'django-admin createsuperuser: Run interactively it prompts for the password, else it reads DJANGO_SUPERUSER_PASSWORD. [1]',
      ],
      // A quote about "this helper" under a generic heading is about what the page is: its name, without the site's.
      [
        'make git remember my password',
        'The point of this helper is to reduce the number of times you must type your password.',
        'git-credential-cache(1) | Git',
        'EXAMPLES',
        'git-credential-cache(1): The point of this helper is to reduce the number of times you must type your password. [1]',
      ],
      [
        'get the id of the row just inserted',
        'Calls to this function return the rowid of the most recent insert.',
        'Last Insert Rowid',
        'Last Insert Rowid',
        'Last Insert Rowid: Calls to this function return the rowid of the most recent insert. [1]',
      ],
      // A line under a table's row describes what the row's first cell names; not under a field's label row.
      [
        'redirect http traffic to https',
        'MDProfile name | | s | X\nUse a specific ACME profile from the CA\nMDRequireHttps off|permanent | off | s | X\nRedirects http: traffic to https: for Managed Domains.',
        'Directive Quick Reference',
        null,
        'MDRequireHttps off|permanent: Redirects http: traffic to https: for Managed Domains. [1]',
      ],
      [
        'how do i trust a proxy address',
        'RemoteIPTrustedProxy\nModule: | mod_remoteip\nThe directive adds addresses to trust as presenting a valid proxy address.',
        'mod_remoteip',
        null,
        'RemoteIPTrustedProxy: The directive adds addresses to trust as presenting a valid proxy address. [1]',
      ],
      // A paragraph after a row that stands alone, a blank line between, describes it (Exim's options)…
      [
        'how do i send an automatic reply',
        'The router is skipped for a looping address.\n\nreply_transport | Use: redirect | Type: string | Default: unset\n\nA redirect router sends an automatic reply when a vacation command is used.',
        'The redirect router',
        null,
        'reply_transport: A redirect router sends an automatic reply when a vacation command is used. [1]',
      ],
      // …not one after rows that follow each other: it is about the table (a pool's price list), not its last row.
      [
        'do toddlers swim free',
        'Ticket | Price\n\nAdult swim | £5.20\n\nMonthly membership | £32.00\n\nToddlers under five swim free with a paying adult.',
        'Prices',
        null,
        'Toddlers under five swim free with a paying adult. [1]',
      ],
      // Nor a command at a Windows or PowerShell prompt (Sphinx's console blocks print both).
      ...['...\\> py manage.py runserver', 'C:\\Users\\me> py manage.py runserver', 'PS C:\\site> py manage.py runserver'].map(
        (prompt): [string, string, string, null, string] => [
          'how do i roll back a transaction',
          `${prompt}\n${rollback}`,
          'Transactions',
          null,
          `${rollback} [1]`,
        ],
      ),
    ];
    for (const [question, content, title, heading, expected] of cases)
      expect(answer(question, content, title, heading), content).toBe(expected);
  });

  it('adds no topic that is generic, is the page title, or is already quoted', () => {
    const quote = 'The default port is 5432, which clients use unless told otherwise.';
    for (const heading of ['DESCRIPTION', 'Connections', 'default port']) {
      const out = composeAnswer('what is the default port', [{ ...passage('a', 'https://s/conn', quote, 'Connections'), heading }]);
      expect(out.text).toBe(`${quote} [1]`);
    }
    // Nor the tail of a line of code above it, which closes a bracket it never opened.
    const code = `self.warn(__('file %r given on command line is not under the source directory, ignoring'), filename)\n'document, ignoring'), filename)\n\n${quote}`;
    expect(composeAnswer('what is the default port', [passage('a', 'https://s/conn', code, 'Connections')]).text).toBe(`${quote} [1]`);
  });

  it('returns nothing to quote when no passage has a whole sentence', () => {
    expect(composeAnswer('port', [passage('a', 'https://s/t', 'port 5432\nhost localhost')]).text).toBe('');
  });
});

describe('composeAnswer when only a heading names the topic', () => {
  it('quotes the section under the heading that holds the question’s word', () => {
    const visit = [
      'Opening times',
      'Tuesday to Thursday 5pm to 10pm, Friday and Saturday noon to 11pm.',
      'Takeaway and delivery',
      'Pizza and pasta can be ordered for collection by phone. We deliver through Deliveroo within three miles.',
    ].join('\n\n');
    expect(composeAnswer('Do you do takeaway?', [passage('a', 'https://s/visit', visit)]).text).toBe(
      'Takeaway and delivery: Pizza and pasta can be ordered for collection by phone. We deliver through Deliveroo within three miles. [1]',
    );
  });
});

describe('composeAnswer and the words searched beside the question’s', () => {
  it('answers a question naming a day from what the page says of the weekend', () => {
    const contact = 'Opening hours\n\nMonday to Thursday 8am to 6pm, Friday 8am to 4pm. We are closed at weekends.';
    const home = 'Emergencies\n\nOutside opening hours, call NHS 111.';
    const answer = composeAnswer('Are you open on Saturday?', [
      passage('a', 'https://s/contact', contact),
      passage('b', 'https://s/', home),
    ]);
    expect(answer.text).toMatch(/^Opening hours: We are closed at weekends\. \[1\]/);
    expect(answer.used[0]).toBe(0);
  });
});

describe('composeAnswer on a price list', () => {
  it('quotes a two-word line with its price as a sentence', () => {
    const menu = 'Margherita £11. Diavola with spicy salami £13. Every pizza can be made with a gluten-free base for £2 extra.';
    expect(composeAnswer('how much is a margherita', [passage('a', 'https://s/menu', menu)]).text).toMatch(/^Margherita £11\. /);
    // A bare price right under the name it prices, by the name's words.
    const shop = 'Seasonal flowers, made in our studio.\n\nThe Classic\n£35\n\nThe Grand\n£60';
    expect(composeAnswer('How much is the Grand bouquet?', [passage('a', 'https://s/', shop)]).text).toBe('The Grand: £60. [1]');
    // A list's line naming a thing and its price, without a full stop, is quoted with one.
    const list = 'Bestsellers\n\nAssam Breakfast — £6.50 / 100 g\nJasmine Pearls — £9.00 / 50 g\nEarl Grey — £6.00 / 100 g';
    expect(composeAnswer('How much is the jasmine tea?', [passage('a', 'https://s/', list)]).text).toBe(
      'Bestsellers: Jasmine Pearls — £9.00 / 50 g. [1]',
    );
    expect(sentencesOf('£9.00 / 50 g\nPrice £9').map((s) => s.prose)).toEqual([false, false]);
    // Two words without a price are a heading or a label, as before.
    expect(sentencesOf('Opening times.\n\nMargherita £11.').map((s) => s.prose)).toEqual([false, true]);
  });
});

describe('composeAnswer on a table', () => {
  const times = [
    'Day | Public swim | Adults only',
    'Monday | 7am–9am, 12pm–8pm | 8pm–9pm',
    'Saturday | 9am–5pm | —',
    'Sunday | 9am–3pm | —',
    'The pool closes on 25 and 26 December.',
  ].join('\n\n');
  const prices = ['Ticket | Price', 'Adult swim | £5.20', 'Child swim (under 16) | £2.80', 'Sauna (adults only) | £4.00'].join('\n\n');
  const page = (content: string, heading: string) => [{ ...passage('a', 'https://s/t', content, 'Pool'), heading }];

  it('quotes the row that answers, alone, with its columns’ names and without its empty cells', () => {
    expect(composeAnswer('What time do you open on Saturday?', page(times, 'Opening times')).text).toBe(
      'Opening times: Saturday — Public swim: 9am–5pm. [1]',
    );
    expect(composeAnswer('How much is a child swim?', page(prices, 'Prices')).text).toBe('Prices: Child swim (under 16): £2.80. [1]');
  });

  it('never quotes the table’s first row, the names of its columns, as a row', () => {
    // Its words are the question's, its rows' are not: the table is the answer, each row read with the columns' names.
    expect(composeAnswer('when is adults only swimming', page(times, 'Opening times')).text).toBe(
      'Opening times — Monday — Public swim: 7am–9am, 12pm–8pm; Adults only: 8pm–9pm. Saturday — Public swim: 9am–5pm. Sunday — Public swim: 9am–3pm. [1]',
    );
  });

  it('quotes of a line of a business’s details the part the question asks about', () => {
    const footer = passage(
      'f',
      'https://s/',
      'We look after the accounts of small businesses.\n\nFenwick & Hale Ltd · 3 Market Row, Norwich NR2 1NB · Registered in England no. 08812345 · Regulated by the ICAEW',
    );
    expect(composeAnswer('Are you regulated?', [footer]).text).toBe('Regulated by the ICAEW. [1]');
  });

  it('quotes a table whole when the question asks about it as a whole, and a row alone when the question names it', () => {
    expect(composeAnswer('How much is a ticket?', page(prices, 'Prices')).text).toBe(
      'Prices — Adult swim: £5.20. Child swim (under 16): £2.80. Sauna (adults only): £4.00. [1]',
    );
    expect(composeAnswer('How much is the sauna?', page(prices, 'Prices')).text).toBe('Prices: Sauna (adults only): £4.00. [1]');
    // Under a heading line that names it, in the passage.
    const rates = ['Rooms & rates', 'Room | Low season | Summer', 'Double | £95 | £140', 'Family room | £120 | £175'].join('\n');
    expect(composeAnswer('What are your room rates?', page(rates, 'Rooms')).text).toBe(
      'Rooms & rates — Double — Low season: £95; Summer: £140. Family room — Low season: £120; Summer: £175. [1]',
    );
  });

  it('names no columns when the first row is data', () => {
    const rows = sentencesOf('Monday | 9am | 5pm\n\nTuesday | 10am | 6pm');
    expect(rowSentence(rows, 1)).toBe('Tuesday — 10am; 6pm.');
  });

  it('quotes a first row whose first cell is a label (a directive’s table), its value under the label, a generic label left out', () => {
    const directive = [
      'Description: | Redirects http: traffic to https: for Managed Domains.',
      'Syntax: | MDRequireHttps off|temporary|permanent',
      'Default: | MDRequireHttps off',
    ].join('\n\n');
    expect(composeAnswer('How do I redirect all http traffic to https?', page(directive, 'MDRequireHttps Directive')).text).toBe(
      'MDRequireHttps Directive: Redirects http: traffic to https: for Managed Domains. [1]',
    );
    expect(rowSentence(sentencesOf('Checkout: | 11am.'), 0)).toBe('Checkout: 11am.');
  });
});

describe('composeAnswer on "label: value" lines', () => {
  const bakery = [
    'We are a friendly bakery in the old town.',
    '',
    'Opening hours',
    '',
    'Monday to Friday: 7am–6pm',
    'Saturday: 8am–4pm',
    'Sunday: closed',
    '',
    'We bake everything on site every morning.',
  ].join('\n');
  const page = [passage('a', 'https://s/', bakery, 'Bakery')];

  it('quotes the line that holds a word of the question, alone, under its topic', () => {
    expect(composeAnswer('What time do you open on Saturday?', page).text).toBe('Opening hours — Saturday: 8am–4pm. [1]');
    expect(composeAnswer('Are you open on Sunday?', page).text).toBe('Opening hours — Sunday: closed. [1]');
    // "Weekdays" searches the days they are.
    expect(composeAnswer('When do you open on weekdays?', page).text).toBe('Opening hours — Monday to Friday: 7am–6pm. [1]');
  });

  it('puts one colon after a section heading that ends with its own, or with a full stop', () => {
    const uses = [
      {
        ...passage('a', 'https://s/features', 'Because it requires no configuration, SQLite is a popular choice for small websites.'),
        heading: 'Suggested Uses For SQLite:',
      },
    ];
    expect(composeAnswer('is sqlite a good choice for a website', uses).text).toBe(
      'Suggested Uses For SQLite: Because it requires no configuration, SQLite is a popular choice for small websites. [1]',
    );
    // Nor after one ending with a full stop (LIRC's "Overall Configuration Decisions."); an abbreviation's stays.
    const decisions = [{ ...uses[0]!, heading: 'Overall Configuration Decisions.' }];
    expect(composeAnswer('is sqlite a good choice for a website', decisions).text).toMatch(/^Overall Configuration Decisions: Because/);
    const acme = [{ ...uses[0]!, heading: 'Acme Inc.' }];
    expect(composeAnswer('is sqlite a good choice for a website', acme).text).toMatch(/^Acme Inc\.: Because/);
  });

  it('reads a line opening a block with prose under it as a heading, not a label, and quotes what is under it', () => {
    const exhibitions = [
      'Until 31 May. See the brass helmets, lead boots and the hand pump that kept the divers alive.',
      '',
      'Coming next: Boats of the Swale',
      'Opens 14 June. Models, plans and photographs of the barges built in the town’s yards.',
    ].join('\n');
    const site = { boat: 0.67, exhibit: 0.67, open: 0.47 };
    expect(composeAnswer('when does the boats exhibition open', [passage('a', 'https://s/exhibitions', exhibitions)], site).text).toBe(
      'Coming next: Boats of the Swale — Opens 14 June. Models, plans and photographs of the barges built in the town’s yards. [1]',
    );
  });

  it('takes no bracketed expression for a heading (a tuple’s format line)', () => {
    const mass = [
      'send_mass_mail(datatuple, fail_silently=False)',
      '',
      'datatuple is a tuple in which each element is in this format:',
      '',
      '(subject, message, from_email, recipient_list)',
      '',
      'Each separate element of datatuple results in a separate email message.',
    ].join('\n');
    expect(composeAnswer('does each element of datatuple send a separate email', [passage('a', 'https://s/email', mass)]).text).toBe(
      'send_mass_mail(datatuple, fail_silently=False): Each separate element of datatuple results in a separate email message. [1]',
    );
  });

  it('takes no key of an example’s object for a label', () => {
    const example =
      "The CPU is described as:\n\nmodel: 'Intel(R) Core(TM) i7 CPU 860 @ 2.80GHz',\nspeed: 2926,\n\nEach CPU core reports its model and speed.";
    expect(composeAnswer('what cpu model', [passage('a', 'https://s/os', example)]).text).not.toContain('Intel');
  });
});

describe('composeAnswer on a page that repeats itself', () => {
  it('quotes each sentence once', () => {
    const body =
      'The premium maintenance plan costs 49 euros per month and includes a yearly boiler service. A one-off drain unblocking costs 89 euros.';
    const out = composeAnswer('how much does the premium maintenance plan cost', [passage('a', 'https://s/pricing', `${body}\n\n${body}`)]);
    expect(out.text.match(/costs 49 euros/g)).toHaveLength(1);
    expect(out.text).toContain('A one-off drain unblocking costs 89 euros.');
  });
});

describe('composeAnswer with a code example', () => {
  const alter = [
    'When you create a table and realise you made a mistake, you can change it.',
    '',
    'To add a column, use a command like:',
    '',
    'ALTER TABLE products ADD COLUMN description text;',
    '',
    'The new column is initially filled with whatever default value is given.',
  ].join('\n');

  it('quotes the example a sentence introduces, fenced on lines of its own, and goes on after it', () => {
    const out = composeAnswer('how do I add a column to a table', [passage('a', 'https://s/alter', alter)]);
    expect(out.text).toBe(
      'To add a column, use a command like:\n```\nALTER TABLE products ADD COLUMN description text;\n```\nThe new column is initially filled with whatever default value is given. [1]',
    );
  });

  it('quotes the example from the page’s next chunk when the passage ends with the colon introducing it, and only the example', () => {
    const cut = [
      'The intersphinx extension links to other projects’ documentation.',
      '',
      'To add links to modules and objects in the Python standard library documentation, use:',
    ].join('\n');
    const question = 'how do I link to the Python standard library documentation';
    const next = "\n\nintersphinx_mapping = {'python': ('https://docs.python.org/3', None)}\n\nThis will download the objects.inv file.";
    expect(composeAnswer(question, [{ ...passage('a', 'https://s/intersphinx', cut), continuation: next }]).text).toBe(
      "To add links to modules and objects in the Python standard library documentation, use:\n```\nintersphinx_mapping = {'python': ('https://docs.python.org/3', None)}\n```\n[1]",
    );
    // Without it, the sentence ends with a full stop; the next chunk opening with prose adds nothing.
    const ended = 'To add links to modules and objects in the Python standard library documentation, use. [1]';
    expect(composeAnswer(question, [passage('a', 'https://s/intersphinx', cut)]).text).toBe(ended);
    expect(
      composeAnswer(question, [
        { ...passage('a', 'https://s/intersphinx', cut), continuation: '\n\nThis will download the objects.inv file.' },
      ]).text,
    ).toBe(ended);
  });
  it('quotes the example a sentence illustrates with no colon before it, not the next entry of a reference', () => {
    const cases: { page: string[]; question: string; answer: string }[] = [
      // Several lines of code under the sentence.
      {
        page: [
          'Export to CSV',
          '',
          'To export a table as CSV, simply set the mode to csv and then run a query to extract the desired rows of the table.',
          '',
          'sqlite> .headers on',
          'sqlite> .mode csv',
          'sqlite> .once c:/work/dataout.csv',
          'sqlite> SELECT * FROM tab1;',
        ],
        question: 'how do I export a table to csv',
        answer:
          'Export to CSV: To export a table as CSV, simply set the mode to csv and then run a query to extract the desired rows of the table.\n```\nsqlite> .headers on\nsqlite> .mode csv\nsqlite> .once c:/work/dataout.csv\nsqlite> SELECT * FROM tab1;\n```\n[1]',
      },
      // The command the sentence names.
      {
        page: [
          'As a convenience, there is a program you can execute from the shell to create new databases, createdb.',
          '',
          'createdb dbname',
          '',
          'createdb does no magic.',
        ],
        question: 'how do I create a new database from the shell',
        answer:
          'As a convenience, there is a program you can execute from the shell to create new databases, createdb.\n```\ncreatedb dbname\n```\n[1]',
      },
      // What the sentence says follows, its colon put back.
      {
        page: [
          'On Unix the home directory of a user is ~user/. The module mod_userdir lets files under each user home directory be reached at URLs such as the following.',
          '',
          'http://www.example.com/~user/file.html',
        ],
        question: 'which urls reach the files in a user home directory',
        answer:
          'The module mod_userdir lets files under each user home directory be reached at URLs such as the following:\n```\nhttp://www.example.com/~user/file.html\n```\n[1]',
      },
      // The next entry of an API reference, its name and its description, is another function's.
      {
        page: [
          'marshal.dump(value, file)',
          '',
          'Write the value on the open file. The object will not be properly read back by load().',
          '',
          'marshal.load(file)¶',
          '',
          'Read one value from the open file and return it.',
        ],
        question: 'how do I write a value to a file with marshal',
        answer: 'marshal.dump(value, file): Write the value on the open file. The object will not be properly read back by load(). [1]',
      },
    ];
    for (const { page, question, answer } of cases)
      expect(composeAnswer(question, [passage('a', 'https://s/page', page.join('\n'))]).text).toBe(answer);
  });

  it('keeps a paragraph’s run-in heading with its sentence, and goes on to the next such paragraph', () => {
    const modes = [
      'SQLite supports three different threading modes:',
      '',
      'Single-thread. In this mode, all mutexes are disabled and SQLite is unsafe to use in more than a single thread at once.',
      '',
      'Multi-thread. In this mode, SQLite can be safely used by multiple threads provided that no single database connection is used simultaneously in two or more threads.',
      '',
      'Serialized. In serialized mode, SQLite can be safely used by multiple threads with no restriction.',
    ].join('\n');
    expect(composeAnswer('is it safe to use sqlite from several threads at once', [passage('a', 'https://s/threads', modes)]).text).toBe(
      'Multi-thread. In this mode, SQLite can be safely used by multiple threads provided that no single database connection is used simultaneously in two or more threads. Serialized. In serialized mode, SQLite can be safely used by multiple threads with no restriction. [1]',
    );
  });

  it('quotes commands a sentence introduces, each a block of its own, as code: fenced, not items joined with commas', () => {
    const tutorial = [
      'To start the development server, run the following commands:',
      '',
      '$ python manage.py runserver',
      '',
      '...\\> py manage.py runserver',
      '',
      'Then open the page in your browser.',
    ].join('\n');
    expect(composeAnswer('how do I start the development server', [passage('a', 'https://s/t', tutorial)]).text).toBe(
      'To start the development server, run the following commands:\n```\n$ python manage.py runserver\n...\\> py manage.py runserver\n```\nThen open the page in your browser. [1]',
    );
  });

  it('quotes the statement "then" points back at as code, the topic on a line of its own above the fence', () => {
    const partial = [
      'Partial indexes',
      '',
      'Consider a table with an index on two of its columns.',
      '',
      'CREATE INDEX ex2 ON tab2(b,c) WHERE c IS NOT NULL;',
      '',
      'Then any query that compares column c can use the partial index, because the comparison is only true when c is not null.',
    ].join('\n');
    expect(composeAnswer('which query can use the partial index', [passage('a', 'https://s/p', partial)]).text).toBe(
      'Partial indexes:\n```\nCREATE INDEX ex2 ON tab2(b,c) WHERE c IS NOT NULL;\n```\nThen any query that compares column c can use the partial index, because the comparison is only true when c is not null. [1]',
    );
  });

  it('quotes an example with its indentation (Python’s is its syntax)', () => {
    const admin = [
      'One use case for overriding this method is to show objects owned by the logged-in user:',
      '',
      'class MyModelAdmin(admin.ModelAdmin):',
      '    def get_queryset(self, request):',
      '        return super().get_queryset(request).filter(author=request.user)',
    ].join('\n');
    expect(
      composeAnswer('how do I show only objects owned by the logged-in user', [passage('a', 'https://s/admin', admin)]).text,
    ).toContain(
      '```\nclass MyModelAdmin(admin.ModelAdmin):\n    def get_queryset(self, request):\n        return super().get_queryset(request).filter(author=request.user)\n```',
    );
  });

  it('puts the citation below a closing fence: "``` [1]" closes no Markdown block', () => {
    const example = 'To add a column, use a command like:\n\nALTER TABLE products ADD COLUMN description text;';
    expect(composeAnswer('how do I add a column', [passage('a', 'https://s/alter', example)]).text).toMatch(/\n```\n\[1\]$/);
  });

  it('keeps a multi-line example whole, and quotes none that is too long to show', () => {
    const example = (lines: number) =>
      [
        'The simplest server answers every request the same way.',
        'Create a file with this content:',
        ...Array.from({ length: lines }, (_, i) => (i === 0 ? "const http = require('node:http');" : `server.on('event${i}', () => {});`)),
        '',
        'Run it with node and open the page.',
      ].join('\n');
    const short = composeAnswer('how do I write a simplest server', [passage('a', 'https://s/server', example(3))]);
    expect(short.text).toContain(
      "Create a file with this content:\n```\nconst http = require('node:http');\nserver.on('event1', () => {});\nserver.on('event2', () => {});\n```\n",
    );
    // Twelve short lines fit in the quote's words: a synopsis of names, a config block.
    const twelve = composeAnswer('how do I write a simplest server', [passage('a', 'https://s/server', example(12))]);
    expect(twelve.text).toContain("server.on('event11', () => {});\n```\n");
    const long = composeAnswer('how do I write a simplest server', [passage('a', 'https://s/server', example(17))]);
    expect(long.text).toBe('The simplest server answers every request the same way. [1]');
  });

  it('quotes a list of short items after its colon, and no list, heading or parameter line as if it were an example', () => {
    // [question, page, answer]
    const cases: [string, string[], string][] = [
      [
        'ways to change a table',
        ['You can change a table in several ways, listed here:', 'Add columns', 'Remove columns', 'Rename tables'],
        'You can change a table in several ways, listed here: Add columns, Remove columns, Rename tables. [1]',
      ],
      // The first item alone would read as the only one.
      [
        'which template backends are built in',
        [
          'The built-in template backends are:',
          "'django.template.backends.django.DjangoTemplates'",
          "'django.template.backends.jinja2.Jinja2'",
          "You can use a backend that doesn't ship with Django by setting BACKEND to a fully-qualified path (i.e. 'mypackage.whatever.Backend').",
        ],
        "The built-in template backends are: 'django.template.backends.django.DjangoTemplates', 'django.template.backends.jinja2.Jinja2'. You can use a backend that doesn't ship with Django by setting BACKEND to a fully-qualified path (i.e. 'mypackage.whatever.Backend'). [1]",
      ],
      // A bare option is the term of a definition list: what introduces the list ends the quote, and goes.
      [
        'how does reset move the branch head',
        [
          'This form resets the current branch head to the given commit. If the mode is omitted, it defaults to --mixed. The mode must be one of the following:',
          '--soft',
          'Does not touch the index file or the working tree at all.',
        ],
        'This form resets the current branch head to the given commit. If the mode is omitted, it defaults to --mixed. [1]',
      ],
      // Parameter lines of an API reference, on consecutive lines: no list, no example.
      [
        'properties of each cpus object',
        ['The properties included on each object of the cpus list include:\nmodel <string>\nspeed <number> (in MHz)'],
        'The properties included on each object of the cpus list include. [1]',
      ],
      [
        'properties of each cpus object',
        ['The properties included on each object of the cpus list include:', 'model <string>\nspeed <number> (in MHz)'],
        'The properties included on each object of the cpus list include. [1]',
      ],
      // A block of a command's options, one a line with what it does: its lines after the colon (the
      // sentence was quoted alone, "-n" left out), as many as the answer has room for.
      [
        'How do I run a test from the command line without the GUI?',
        [
          'For non-interactive testing, you may choose to run JMeter without the GUI. To do so, use the following command options:',
          '-n This specifies JMeter is to run in non-gui mode\n-t [name of JMX file that contains the Test Plan].\n-l [name of JTL file to log sample results to].',
        ],
        'For non-interactive testing, you may choose to run JMeter without the GUI. To do so, use the following command options: -n This specifies JMeter is to run in non-gui mode; -t [name of JMX file that contains the Test Plan]; -l [name of JTL file to log sample results to]. [1]',
      ],
      [
        'How do I run a test from the command line without the GUI?',
        [
          'For non-interactive testing, you may choose to run JMeter without the GUI. To do so, use the following command options:',
          Array.from({ length: 8 }, (_, k) => `-${'abcdefgh'[k]} This option does a thing of its own, number ${k + 1} of eight`).join('\n'),
        ],
        'Page: For non-interactive testing, you may choose to run JMeter without the GUI. To do so, use the following command options: -a This option does a thing of its own, number 1 of eight; -b This option does a thing of its own, number 2 of eight; -c This option does a thing of its own, number 3 of eight; -d This option does a thing of its own, number 4 of eight; … [1]',
      ],
    ];
    for (const [question, page, answer] of cases)
      expect(composeAnswer(question, [passage('a', 'https://s/page', page.join('\n\n'))]).text, question).toBe(answer);
  });
});

describe('composeAnswer with the site’s word statistics', () => {
  // On the Node.js docs "node" is in four chunks of ten, "available" in one of thirteen, "fetch" in
  // one of two hundred and forty: the question's distinctive word is "fetch".
  const globals = [
    'This global is available only if the Node.js binary was compiled with support for the node:crypto module.',
    '',
    'A browser-compatible implementation of the fetch() function.',
  ].join('\n');
  const question = 'Is fetch available in Node or do I need node-fetch?';

  it('leads with the sentence holding the words that are rare on this site, not the ones rare on the web', () => {
    const site = { node: 0.11, avail: 0.31, fetch: 0.66, need: 0.4 };
    expect(composeAnswer(question, [passage('a', 'https://s/globals', globals)], site).text).toMatch(
      /^A browser-compatible implementation of the fetch\(\) function\./,
    );
    // Without them every word weighs as the web uses it, and the other sentence covers more.
    expect(composeAnswer(question, [passage('a', 'https://s/globals', globals)]).text).toMatch(/^This global is available/);
  });
});

describe('composeAnswer and the words of the question', () => {
  it('weighs a compound once: its parts add half of its weight, not a word each', () => {
    // "JavaScript" splits into java and script; counted as three words, it outweighed "vm" and "module".
    const vm = [
      'The node:vm module is not a security mechanism.',
      'JavaScript code can be compiled and run immediately or compiled, saved, and run later.',
    ].join(' ');
    expect(composeAnswer('Is the vm module safe for JavaScript?', [passage('a', 'https://s/vm', vm)]).text).toMatch(
      /^The node:vm module is not a security mechanism\./,
    );
  });

  it('counts no single letter of an abbreviation ("e.g.") as a word of the question', () => {
    const stems = queryTerms('Is the port taken, e.g. by another server? Is C# or v8 affected?').map((t) => t.stem);
    expect(stems).not.toContain('g');
    expect(stems).toEqual(expect.arrayContaining(['port', 'taken', 'server', 'v8']));
  });

  it('takes a word one letter off for a typing slip only when the site does not use the word as typed', () => {
    const text = analyze('See the lead boots of the divers');
    expect(coverage(queryTerms('boats'), text)).toBeCloseTo(0.7);
    expect(coverage(queryTerms('boats', { boat: 0.7 }), text)).toBe(0);
  });
});

describe('composeAnswer and sentences that lean on the ones before', () => {
  const listen = [
    'Start a server listening for connections.',
    'One of the most common errors raised when listening is EADDRINUSE.',
    'This happens when another server is already listening on the requested port.',
    'One way to handle this would be to retry after a certain amount of time:',
  ].join(' ');

  it('brings what "this" stands for, two sentences back at most', () => {
    expect(composeAnswer('how can I handle it, retry after some time?', [passage('a', 'https://s/net', listen)]).text).toBe(
      'One of the most common errors raised when listening is EADDRINUSE. This happens when another server is already listening on the requested port. One way to handle this would be to retry after a certain amount of time. [1]',
    );
  });

  it('quotes an answering sentence that an example cut in two with its opening and the example', () => {
    const cut = [
      'For example, the following:',
      '[[ ( -f foo || -f bar ) && $report = y* ]] && print File exists.',
      'tests if either file foo or file bar exists, and if so, if the value of the parameter report begins with ‘y’.',
    ].join('\n\n');
    expect(composeAnswer('How do I test whether a file exists?', [passage('a', 'https://s/cond', cut)]).text).toBe(
      'For example, the following:\n```\n[[ ( -f foo || -f bar ) && $report = y* ]] && print File exists.\n```\ntests if either file foo or file bar exists, and if so, if the value of the parameter report begins with ‘y’. [1]',
    );
  });

  it('brings a sentence a command cut in two whole, the command on its lines, when "this" stands for it', () => {
    const manual = [
      'You can replace the most recent commit using',
      '',
      '$ git commit --amend',
      '',
      'which will replace the old commit by a new one, giving you a chance to edit its message first.',
      'This is useful for fixing typos in your last commit.',
    ].join('\n');
    expect(composeAnswer('fix a typo in my last commit', [passage('a', 'https://s/manual', manual)]).text).toBe(
      'You can replace the most recent commit using\n```\n$ git commit --amend\n```\nwhich will replace the old commit by a new one, giving you a chance to edit its message first. This is useful for fixing typos in your last commit. [1]',
    );
    // A lower-case line after a code block that no unfinished sentence leads to is not brought along.
    const notCut = manual.replace('You can replace the most recent commit using', 'You can replace the most recent commit.');
    expect(composeAnswer('fix a typo in my last commit', [passage('a', 'https://s/manual', notCut)]).text).toBe(
      'This is useful for fixing typos in your last commit. [1]',
    );
  });

  it('ends the answering sentence with a full stop when what its colon introduces is not quoted', () => {
    const text = 'Compressing a stream can be done by piping it through a zlib Transform stream:';
    expect(composeAnswer('compress a stream', [passage('a', 'https://s/zlib', text)]).text).toBe(
      'Compressing a stream can be done by piping it through a zlib Transform stream. [1]',
    );
  });

  it('keeps a sentence after the answer whose colon ends a statement of its own, and drops one that needs what follows', () => {
    const warning = [
      'The emitter will output a trace warning indicating that a possible EventEmitter memory leak has been detected.',
      'For any single EventEmitter, the emitter.setMaxListeners() method can be used to temporarily avoid this warning:',
    ].join(' ');
    expect(composeAnswer('how do i get rid of the memory leak warning', [passage('a', 'https://s/events', warning)]).text).toBe(
      'The emitter will output a trace warning indicating that a possible EventEmitter memory leak has been detected. For any single EventEmitter, the emitter.setMaxListeners() method can be used to temporarily avoid this warning. [1]',
    );
    const cpus = [
      'Returns an array of objects containing information about each logical CPU core.',
      'The properties included on each object include:',
    ].join(' ');
    expect(composeAnswer('how many cpu cores', [passage('a', 'https://s/os', cpus)]).text).toBe(
      'Returns an array of objects containing information about each logical CPU core. [1]',
    );
  });
});

describe('composeAnswer and contact details', () => {
  const help = [
    'Servicing',
    '',
    'A yearly service keeps your bike safe. One way to book this is to call the workshop:',
    '',
    '+31 20 123 4567',
    'workshop@bikes.example',
    '',
    'Opening hours are on the contact page.',
  ].join('\n');

  it('answers a contact question with a line that states what it asks, sentence or not, under no heading', () => {
    const home =
      'We fix all makes and models.\n\nDale Street Motors, 42 Dale Street, Sheffield S1 4GH · Tel 0114 496 0321 · Open Mon–Fri 8am–5:30pm';
    const page = [{ ...passage('a', 'https://s/', home), heading: 'Car servicing in Sheffield' }];
    expect(composeAnswer("What's your phone number?", page).text).toBe(
      'Dale Street Motors, 42 Dale Street, Sheffield S1 4GH · Tel 0114\u00a0496\u00a00321 · Open Mon–Fri 8am–5:30pm. [1]',
    );
    // Another question does not quote the line.
    expect(composeAnswer('Do you fix all makes?', page).text).toBe('Car servicing in Sheffield: We fix all makes and models. [1]');
    // A line of details that holds no word of the question ("whats the phone number"), its number with no word before it.
    const inn = passage(
      'b',
      'https://s/',
      'Twelve bedrooms above a pub.\n\nThe Harbour Inn, Quay Street, St Ives TR26 1LT · 01736 496 210 · stay@harbourinn.example',
    );
    // Under a section that is not about them (a footer folded into the home page's last one), and as a "label: details" line.
    const shop = passage(
      'c',
      'https://s/',
      'Digital gift cards from £25.\n\nCustomer care: care@shop.example · 0131 496 0455 (Mon–Fri 9am–5pm)\n\nWren & Thistle Ltd, Unit 4, Leith Workshops, Edinburgh EH6 6QU.',
    );
    expect(composeAnswer('where are you based', [{ ...shop, heading: 'Gift cards' }]).text).toBe(
      'Wren & Thistle Ltd, Unit 4, Leith Workshops, Edinburgh EH6 6QU. [1]',
    );
    expect(composeAnswer('phone number', [{ ...shop, heading: 'Gift cards' }]).text).toBe(
      'Customer care: care@shop.example · 0131\u00a0496\u00a00455 (Mon–Fri 9am–5pm) [1]',
    );
    expect(composeAnswer('whats the phone number', [{ ...inn, heading: 'A harbourside inn' }]).text).toBe(
      'The Harbour Inn, Quay Street, St Ives TR26 1LT · 01736\u00a0496\u00a0210 · stay@harbourinn.example. [1]',
    );
  });

  it('quotes the phone number and address a sentence introduces, after its colon', () => {
    expect(composeAnswer('How do I book a service?', [passage('a', 'https://s/help', help)]).text).toBe(
      'Servicing: A yearly service keeps your bike safe. One way to book this is to call the workshop: +31\u00a020\u00a0123\u00a04567; workshop@bikes.example. Opening hours are on the contact page. [1]',
    );
  });

  it('reads a sentence ending in a number or an address as a sentence, and a bare number as none', () => {
    const s = sentencesOf(
      'Call the workshop: 020 123 4567\nTel 020 123 4567\nWrite to the shop at shop@bikes.example\nReleased 2024-01-15',
    );
    expect(s.map((x) => x.prose)).toEqual([true, false, true, false]);
  });

  it('ends the contact lines at the prose line that follows them without a blank line', () => {
    const workshop =
      'Puncture repair is done while you wait. To book a service, call the workshop:\n020 7946 0321\nbookings@bikes.example\nWe are open Monday to Saturday, 9:00 to 18:00.';
    expect(composeAnswer('How can I book a service?', [passage('a', 'https://s/workshop', workshop)]).text).toBe(
      'To book a service, call the workshop: 020\u00a07946\u00a00321; bookings@bikes.example. We are open Monday to Saturday, 9:00 to 18:00. [1]',
    );
  });

  it('quotes no list that holds no number or address (the colon becomes a full stop)', () => {
    const hours = 'You can visit the workshop at these times:\nMonday to Friday\nSaturday morning';
    expect(composeAnswer('when can I visit the workshop', [passage('a', 'https://s/hours', hours)]).text).toBe(
      'You can visit the workshop at these times. [1]',
    );
  });
});

describe('composeAnswer on a page of questions and answers', () => {
  it('answers with what follows the page’s own question, not with the question', () => {
    const faq = 'Shipping\n\nDo you ship to Spain? Yes, we ship to every EU country within five working days. Returns are free.';
    expect(composeAnswer('Do you ship to Spain?', [passage('a', 'https://s/faq', faq, 'FAQ')]).text).toBe(
      'Shipping: Yes, we ship to every EU country within five working days. Returns are free. [1]',
    );
  });

  it('stops at the page’s next question', () => {
    const faq = 'Do you ship to Spain? Yes, we ship to every EU country.\n\nCan I return a bike? Within 30 days, unused.';
    expect(composeAnswer('Do you ship to Spain?', [passage('a', 'https://s/faq', faq, 'FAQ')]).text).toBe(
      'Yes, we ship to every EU country. [1]',
    );
  });

  it('puts the page’s question under which it quotes before the answer, as the page does', () => {
    // The chunk's heading is the first question; the later ones are lines of their own.
    const faq = [
      'Keep it in an airtight tin, away from light. Most teas stay fresh for a year.',
      '',
      'Are your teas organic?',
      'About half of our range is certified organic by the Soil Association.',
      '',
      'Can I buy gift cards?',
      'Yes, digital gift cards from £10 to £100 are sent by email.',
    ].join('\n');
    const page = [{ ...passage('a', 'https://s/faq', faq, 'FAQ'), heading: 'How should I store my tea?' }];
    expect(composeAnswer('Is your tea organic?', page).text).toBe(
      'Are your teas organic? About half of our range is certified organic by the Soil Association. [1]',
    );
    expect(composeAnswer('How do I keep tea fresh?', page).text).toMatch(/^How should I store my tea\? Most teas stay fresh/);
  });

  it('quotes an answer from its start when the answering sentence is further in, and the chunk holds the start', () => {
    const faq = [
      'Keep it in an airtight tin, away from light. Most teas stay fresh for a year.',
      '',
      'Can I buy gift cards?',
      'Yes, digital gift cards from £10 to £100 are sent by email. They never expire and can be spent online.',
    ].join('\n');
    const page = (continuesSection?: boolean) => [
      { ...passage('a', 'https://s/faq', faq, 'FAQ'), heading: 'How should I store my tea?', continuesSection },
    ];
    // Under a question line of the chunk.
    expect(composeAnswer('Do your gift cards expire?', page(false)).text).toBe(
      'Can I buy gift cards? Yes, digital gift cards from £10 to £100 are sent by email. They never expire and can be spent online. [1]',
    );
    // Under the chunk's heading, when the chunk opens its section…
    expect(composeAnswer('How long does tea stay fresh?', page(false)).text).toMatch(
      /^How should I store my tea\? Keep it in an airtight tin, away from light\. Most teas stay fresh for a year\./,
    );
    // …and not when it goes on with a section begun in the chunk before, or that is not known.
    expect(composeAnswer('How long does tea stay fresh?', page(true)).text).toMatch(/^How should I store my tea\? Most teas stay fresh/);
    expect(composeAnswer('How long does tea stay fresh?', page()).text).toMatch(/^How should I store my tea\? Most teas stay fresh/);
  });

  it('reads an entry that asks by showing what the asker sees as its own question: the entry above is another’s', () => {
    // LIRC's FAQ: a question line and its answer, then an entry in the asker's words ending with the output it shows.
    const faq = [
      'Which kernel module do I have to load for my hardware?',
      '',
      'The documentation contains a detailed list how to setup the various devices supported by LIRC.',
      '',
      'When I run irrecord or mode2 I get an error message like this:',
      '',
      'mode2: error opening /dev/lirc0',
      'mode2: Device or resource busy',
      '',
      'Another application is probably already accessing /dev/lirc0. Only one process can use the device at a time.',
    ].join('\n');
    const page = [{ ...passage('a', 'https://s/faq.html', faq, 'LIRC FAQ'), heading: 'Software setup' }];
    expect(composeAnswer('mode2 says Device or resource busy, what do I do?', page).text).toBe(
      'Software setup: When I run irrecord or mode2 I get an error message like this:\n```\nmode2: error opening /dev/lirc0\nmode2: Device or resource busy\n```\nAnother application is probably already accessing /dev/lirc0. Only one process can use the device at a time. [1]',
    );
    // A sentence of its answer is quoted from the answer's start, after the output: not from the answer above the entry.
    expect(composeAnswer('Can two processes use the device at a time?', page).text).toBe(
      'Software setup: Another application is probably already accessing /dev/lirc0. Only one process can use the device at a time. [1]',
    );
  });

  it('answers a problem shown in the asker’s words with what follows its output, not with the problem alone', () => {
    // LIRC's FAQ: the entry's question run into the paragraph before, the asker's sentence, the output, the answer.
    const faq = [
      'This feature is available in lircd since release 0.8.6.',
      '',
      'Only root can run LIRC applications. When I run LIRC applications (e.g. irexec) I get this error message:',
      '',
      'irexec: could not connect to socket',
      '',
      'Check the permission of the lircd output socket, usually /var/run/lirc/lircd. You might need to restart lircd.',
    ].join('\n');
    const entry = (text: string) => [{ ...passage('a', 'https://s/faq.html', text, 'LIRC FAQ'), heading: 'Software setup' }];
    expect(composeAnswer('irexec says it could not connect to socket, how do I fix it?', entry(faq)).text).toBe(
      'Software setup: When I run LIRC applications (e.g. irexec) I get this error message:\n```\nirexec: could not connect to socket\n```\nCheck the permission of the lircd output socket, usually /var/run/lirc/lircd. You might need to restart lircd. [1]',
    );
    // The page's own sentence before an example is not the asker's: it is the answer, quoted alone.
    const guide = faq.replace(
      'When I run LIRC applications (e.g. irexec) I get this error message:',
      'Running irexec as a user gives this message:',
    );
    expect(composeAnswer('irexec says it could not connect to socket, how do I fix it?', entry(guide)).text).toBe(
      'Software setup: Running irexec as a user gives this message. [1]',
    );
  });

  it('names the numbered question it quotes under, however many words it has, not the chunk’s first section', () => {
    // DocBook's FAQ: short sections run together in one chunk, each under its numbered question.
    const faq = [
      'To keep your partition from overflowing, remember to delete extra files using apt-get clean.',
      '',
      '9.2. Must I go into single user mode in order to upgrade a package?',
      'No. Packages can be upgraded in place, even in running systems.',
    ].join('\n');
    const page = [{ ...passage('a', 'https://s/uptodate.html', faq, 'Chapter 9'), heading: '9.1.2. apt-get and apt-cdrom' }];
    expect(composeAnswer('Do I have to reboot into single user mode before upgrading a package?', page).text).toBe(
      '9.2. Must I go into single user mode in order to upgrade a package? No. Packages can be upgraded in place, even in running systems. [1]',
    );
  });

  it('names no command a sentence runs on into as the section the quote is under', () => {
    const steps = [
      'Now, first get the source package:',
      '',
      'apt-get source foo',
      '',
      'and change to the source tree:',
      '',
      'cd foo-*',
      '',
      'If everything worked out fine, you should now be able to install your package by running',
      '',
      'sudo dpkg -i ../*.deb',
      '',
      'If you prefer to do things manually, follow this procedure:',
      '',
      'You will need all of foo_*.dsc and foo_*.tar.gz to compile the source by hand.',
    ].join('\n');
    const page = [
      {
        ...passage('a', 'https://s/pkg-basics.html', steps, 'Chapter 7'),
        heading: '7.14. How do I build binary packages from a source package?',
      },
    ];
    expect(composeAnswer('Which files do I need to compile the source by hand?', page).text).toMatch(
      /^7\.14\. How do I build binary packages from a source package\? You will need all of foo_\*\.dsc/,
    );
  });

  it('names the entry a field describes by its naming field, without the field’s "Description:" label', () => {
    // DocBook's segmented list: a reference of options, each as Option / Default / Description.
    const options = [
      'Option: Aptitude::Delete-Unused',
      '',
      'Default: true',
      '',
      'Description: If this option is true, packages that are no longer required by any installed package will be removed.',
      '',
      'Option: Aptitude::Forget-New-On-Install',
      '',
      'Default:',
      '',
      'Description: If this option is true, aptitude will clear the list of new packages whenever you install or remove packages.',
    ].join('\n');
    const page = [{ ...passage('a', 'https://s/config.html', options, 'Configuration file reference'), heading: 'Default:' }];
    expect(composeAnswer('How do I clear the list of new packages?', page).text).toBe(
      'Aptitude::Forget-New-On-Install — If this option is true, aptitude will clear the list of new packages whenever you install or remove packages. [1]',
    );
  });

  it('quotes no entry of a table of contents from a related page', () => {
    const answer = 'Alien converts packages between the .rpm and .deb formats of Red Hat and Debian systems.';
    const toc = [
      '4.4. How source code compatible is Debian with other Unix systems?',
      '',
      '4.5. Can I use Debian packages (".deb" files) on my Red Hat/Slackware/... Linux system? Can I use Red Hat packages (".rpm" files) on my Debian system?',
    ].join('\n');
    const text = composeAnswer('Can I install .rpm packages from Red Hat on Debian?', [
      passage('a', 'https://s/compatibility.html', answer),
      passage('b', 'https://s/index.html', toc, 'The Debian FAQ'),
    ]).text;
    expect(text).toBe(`${answer} [1]`);
  });

  it('weighs the words a follow-up took from the question before at half of the visitor’s own', () => {
    const help = 'Shipping to Spain takes five days.\n\nBook a service at the workshop.';
    const page = [passage('a', 'https://s/help', help)];
    const query = 'shipping spain How do I book a service?';
    expect(composeAnswer(query, page, undefined, 'How do I book a service?').text).toMatch(/^Book a service/);
    expect(composeAnswer(query, page).text).toMatch(/^Shipping to Spain/);
  });
});

describe('openingOf: what the business says of itself', () => {
  it('quotes the home page’s first paragraph under the name it stands under, not the next section', () => {
    const home = {
      ...passage(
        'h1',
        'https://yoga.example/',
        [
          'A small, friendly studio above the bakery on Magdalen Street, teaching yoga and mat pilates since 2015. Classes are kept to 14 people so teachers can help everyone.',
          '',
          'Our classes',
          '',
          'Hatha is slow and steady, good for beginners and stiff bodies.',
        ].join('\n'),
        'Oakfield Yoga — yoga and pilates in Norwich',
      ),
      heading: 'Oakfield Yoga',
    };
    expect(openingOf([home])).toEqual({
      text: 'Oakfield Yoga: A small, friendly studio above the bakery on Magdalen Street, teaching yoga and mat pilates since 2015. Classes are kept to 14 people so teachers can help everyone. [1]',
      used: [0],
      score: 1,
    });
  });

  it('goes on into the next paragraph after a short one, and names nothing by a headline of sentences', () => {
    const home = {
      ...passage(
        'h1',
        'https://tally.example/',
        [
          'Time tracking for small teams.',
          '',
          'Log hours from your browser or phone and turn them into an invoice in two clicks.',
          '',
          'Do you have a free plan?',
        ].join('\n'),
      ),
      heading: 'Track time. Send invoices. Get paid.',
    };
    expect(openingOf([home]).text).toBe(
      'Time tracking for small teams. Log hours from your browser or phone and turn them into an invoice in two clicks. [1]',
    );
  });

  it('takes the next passage when the first holds no sentence but a licence, and says nothing when none does', () => {
    const links = passage(
      'a',
      'https://docs.example/',
      'Contents\nInstallation\nUsage\nAPI reference\n\nThis manual is free software; you can redistribute it and/or modify it under the terms of the GNU General Public License.\n\nPermission is granted to make and distribute verbatim copies of this document.',
    );
    const intro = passage('b', 'https://docs.example/', 'This manual describes how to install and run the server on Linux and macOS.');
    expect(openingOf([links, intro])).toMatchObject({ used: [1] });
    expect(openingOf([links])).toEqual({ text: '', used: [], score: 0 });
  });

  it('opens with a name written in lower case that says what it is, at the start of its page only', () => {
    const about =
      'aptitude is a featureful package manager for Debian GNU/Linux systems, based on the renowned apt package management infrastructure. aptitude provides the functionality of dselect and apt-get.';
    expect(openingOf([passage('a', 'https://docs.example/pr01s01.html', about)]).text).toMatch(
      /^aptitude is a featureful package manager for Debian GNU\/Linux systems/,
    );
    // A page's later chunk may open with the rest of a sentence its chunk cut.
    const first = passage('a', 'https://docs.example/pr01s01.html', 'Contents\nIntroduction');
    expect(openingOf([first, passage('b', 'https://docs.example/pr01s01.html', about)]).text).toBe('');
  });
});

describe('priceListOf: the client’s prices', () => {
  it('reads a price table’s rows as sentences under its name, and leaves out what states no amount', () => {
    const prices = {
      ...passage(
        'p1',
        'https://vet.example/prices.html',
        [
          'All prices include VAT.',
          '',
          'Item | Price',
          '',
          'Consultation (15 minutes) | £52',
          '',
          'Microchip | £25',
          '',
          'Regular cleaning | £19 an hour (minimum 2 hours)',
        ].join('\n'),
      ),
      heading: 'Prices',
    };
    expect(priceListOf([prices])).toEqual({
      text: 'Prices — Consultation (15 minutes): £52. Microchip: £25. Regular cleaning: £19 an hour (minimum 2 hours). [1]',
      used: [0],
      score: 1,
    });
  });

  it('quotes a price list’s lines and sentences stating amounts, within a quote’s words', () => {
    const menu = passage(
      'm',
      'https://trattoria.example/menu.html',
      'Margherita £11.\nDiavola with spicy salami £13.\n\nEvery pizza can be made with a gluten-free base for £2 extra.',
    );
    expect(priceListOf([menu]).text).toBe(
      'Margherita £11. Diavola with spicy salami £13. Every pizza can be made with a gluten-free base for £2 extra. [1]',
    );
    const long = passage(
      'l',
      'https://x.example/p',
      Array.from({ length: 30 }, (_, i) => `Item number ${i} costs £${i + 1} a month.`).join('\n'),
    );
    expect(priceListOf([long]).text.split(' ').length).toBeLessThanOrEqual(82);
    expect(priceListOf([passage('n', 'https://x.example/', 'We are open every day.')])).toEqual({ text: '', used: [], score: 0 });
  });

  it('names an amount standing alone by its section: a shop’s products, one a section', () => {
    const shop = {
      ...passage(
        's',
        'https://shop.example/shop.html',
        [
          'Chunky rib-knit jumper in 100% British wool. Sizes XS–XXL. £129.',
          'Leith cardigan\nLightweight merino and lambswool cardigan with horn buttons. Sizes XS–XL. £145.',
          'Lambswool scarf\nSoft lambswool scarf, 180 cm long, in twelve colours. From £45.',
          'Gift cards\nDigital gift cards from £25 to £250, sent by email.',
        ].join('\n\n'),
      ),
      heading: 'Harbour fisherman jumper',
    };
    // Quoted as they stand, these were "Sizes XS–XXL. £129." under the first product's name, then the others' sentences.
    expect(priceListOf([shop]).text).toBe(
      'Harbour fisherman jumper: £129. Leith cardigan: £145. Lambswool scarf: From £45. Digital gift cards from £25 to £250, sent by email. [1]',
    );
  });
});

describe('composeAnswer under a list a sentence introduces', () => {
  it('names the quote by its section, not by the list’s last item above it', () => {
    const areas = {
      ...passage(
        'a',
        'https://plumber.example/areas.html',
        [
          'We work across Leeds and within about 15 miles of the city centre, including:',
          '',
          'Headingley',
          '',
          'Otley',
          '',
          'Rothwell',
          '',
          'Not sure if we cover your postcode? Give us a call and we will tell you straight away.',
        ].join('\n'),
        'Areas we cover — Aire Valley Plumbing',
      ),
      heading: 'Areas we cover',
    };
    // The sentence that says where the plumber works (areas-question.ts), under its section's name, not "Rothwell:".
    expect(composeAnswer('what areas do you cover?', [areas]).text).toBe(
      'Areas we cover: We work across Leeds and within about 15 miles of the city centre, including: Headingley, Otley, Rothwell. [1]',
    );
  });
});
