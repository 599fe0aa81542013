import { describe, expect, it } from 'vitest';
import { extractPage, extractWithReadability } from './extract.ts';
import { needsRender } from './render.ts';

const URL_ = 'https://shop.example.com/docs/page.html';

function doc(body: string, head = '<title>Widgets</title>', htmlAttrs = 'lang="en"'): string {
  return `<!DOCTYPE html><html ${htmlAttrs}><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;
}

const ARTICLE = `<p>Our widgets are made of recycled aluminium and ship within two days to every country in the European Union.</p>
<p>Each widget carries a ten-year warranty. Spare parts stay available for at least fifteen years after a model is discontinued.</p>`;

function allText(html: string, url = URL_): string {
  return extractPage(html, url)
    .sections.map((s) => `${s.heading ?? ''}\n${s.text}`)
    .join('\n');
}

describe('extractPage', () => {
  it('reads title, lang, and splits sections at h1–h4 with their headings', () => {
    const page = extractPage(
      doc(`<main><h1>Widgets</h1><p>Intro text about widgets and why they matter to everyone who owns a shelf.</p>
<h2>Materials</h2><p>Recycled aluminium.</p><h3>Finish</h3><p>Anodised, in four colours.</p>
<h4>Care</h4><p>Wipe with a damp cloth.</p><h5>Small print</h5><p>Colours may vary.</p></main>`),
      URL_,
    );
    expect(page.title).toBe('Widgets');
    expect(page.lang).toBe('en');
    expect(page.sections.map((s) => s.heading)).toEqual(['Widgets', 'Materials', 'Finish', 'Care']);
    expect(page.sections[3]!.text).toBe('Wipe with a damp cloth.\n\nSmall print\n\nColours may vary.');
    expect(page.textLength).toBe(page.sections.reduce((n, s) => n + s.text.length, 0));
    expect(page.extractor).toBe('heuristic');
  });

  it('drops script, style, nav, header, footer, aside, forms, noscript, hidden parts and cookie banners', () => {
    const html = doc(`
<div id="cookie-consent">We use cookies. Accept all cookies?</div>
<div class="cc-window">Cookie notice two</div>
<header class="site-header"><a href="/">Home</a> Tagline of the site</header>
<nav><a href="/a">Menu A</a><a href="/b">Menu B</a></nav>
<div role="navigation"><a href="/c">Role nav</a></div>
<script>var secret = "script text";</script><style>.x{color:red}</style>
<noscript>Enable JavaScript please</noscript>
<template><p>template text</p></template>
<main><h1>Real content</h1>${ARTICLE}
<form><label>Your email</label><input name="e"><button>Subscribe now</button></form>
<div hidden>hidden attribute text</div><div style="display: none">display none text</div>
<span aria-hidden="true">aria hidden text</span>
<svg><text>svg text</text></svg>
</main>
<aside>Related: other things</aside>
<div class="breadcrumbs"><a href="/">Home</a> › Docs</div>
<footer>Copyright footer text</footer>`);
    const text = allText(html);
    expect(text).toContain('recycled aluminium');
    expect(text).toContain('ten-year warranty');
    for (const gone of [
      'cookies',
      'Cookie notice',
      'Tagline',
      'Menu A',
      'Role nav',
      'script text',
      'color:red',
      'Enable JavaScript',
      'template text',
      'Subscribe now',
      'Your email',
      'hidden attribute',
      'display none',
      'aria hidden',
      'svg text',
      'Related:',
      'Copyright footer',
      'Docs',
    ]) {
      expect(text, gone).not.toContain(gone);
    }
  });

  it('takes links from the whole document, nav and footer included, resolved against <base href>', () => {
    const page = extractPage(
      doc(
        `<nav><a href="pricing.html">Pricing</a><a href="/contact#form">Contact</a></nav><main>${ARTICLE}<a href="../guide/">Guide</a>
<a href="mailto:a@b.c">Mail</a><a href="https://other.example.org/x">Other</a><a href="  spaced.html ">Spaced</a><a href="http://[bad">Bad</a>
<map><area href="/area-link"></map></main><footer><a href="/imprint">Imprint</a><a href="pricing.html">Pricing again</a></footer>`,
        '<title>T</title><base href="https://shop.example.com/en/">',
      ),
      URL_,
    );
    expect(page.links).toEqual([
      'https://shop.example.com/en/pricing.html',
      'https://shop.example.com/contact#form',
      'https://shop.example.com/guide/',
      'mailto:a@b.c',
      'https://other.example.org/x',
      'https://shop.example.com/en/spaced.html',
      'https://shop.example.com/area-link',
      'https://shop.example.com/imprint',
    ]);
  });

  it("follows a frameset's frames and an inline frame's page", () => {
    const frameset = extractPage(
      `<!DOCTYPE html><html><head><title>Manual</title></head><frameset cols="256,*"><frame name="left" src="contents.html"><frame name="main" src="main.html"><noframes><body></body></noframes></frameset></html>`,
      URL_,
    );
    expect(frameset.links).toEqual(['https://shop.example.com/docs/contents.html', 'https://shop.example.com/docs/main.html']);
    const inline = extractPage(doc(`<main>${ARTICLE}<iframe src="/booking/widget.html" title="Book"></iframe></main>`), URL_);
    expect(inline.links).toEqual(['https://shop.example.com/booking/widget.html']);
  });

  it('reads canonical, meta robots, X-Robots-Tag and a meta refresh', () => {
    const page = extractPage(
      doc(
        `<main>${ARTICLE}</main>`,
        '<title>T</title><link rel="canonical" href="/docs/page"><meta name="robots" content="NOINDEX, follow"><meta http-equiv="refresh" content="5; url=/next">',
      ),
      URL_,
    );
    expect(page.canonical).toBe('https://shop.example.com/docs/page');
    expect(page).toMatchObject({ noindex: true, nofollow: false, refreshUrl: 'https://shop.example.com/next' });
    expect(page.links).toContain('https://shop.example.com/next');

    const none = extractPage(doc(`<main>${ARTICLE}</main>`, '<meta name="kbchat-bot" content="none">'), URL_);
    expect(none).toMatchObject({ noindex: true, nofollow: true });

    const header = extractPage(doc(`<main>${ARTICLE}</main>`), URL_, { xRobotsTag: 'googlebot: noindex, kbchat-bot: nofollow' });
    expect(header).toMatchObject({ noindex: false, nofollow: true });
    const plain = extractPage(doc(`<main>${ARTICLE}</main>`), URL_, { xRobotsTag: 'noindex' });
    expect(plain.noindex).toBe(true);

    const bad = extractPage(doc(`<main>${ARTICLE}</main>`, '<link rel="canonical" href="javascript:alert(1)">'), URL_);
    expect(bad.canonical).toBeNull();
  });

  it('drops permalink markers from headings', () => {
    const page = extractPage(
      doc(
        `<main><h2>Promise example<a class="mark" href="#p">#</a></h2><p>Text one.</p><h3>Usage<a class="headerlink" href="#u">¶</a></h3><p>Text two.</p><h3>C#</h3><p>Three.</p><h3><a href="#x">Linked heading</a></h3><p>Four.</p></main>`,
      ),
      URL_,
    );
    expect(page.sections.map((s) => s.heading)).toEqual(['Promise example', 'Usage', 'C#', 'Linked heading']);
  });

  it('falls back from <title> to og:title, then the first h1, then the URL', () => {
    expect(extractPage(doc('<p>x</p>', '<title>  Spaced\n  title </title>'), URL_).title).toBe('Spaced title');
    expect(extractPage(doc('<h1>OG heading</h1>', '<meta property="og:title" content="OG title">'), URL_).title).toBe('OG title');
    expect(extractPage(doc('<div><h1>First <em>heading</em></h1></div><h1>Second</h1>', ''), URL_).title).toBe('First heading');
    expect(extractPage(doc('<p>x</p>', ''), URL_).title).toBe(URL_);
    // An SVG <title> is not the page's title.
    expect(extractPage(doc('<svg><title>Icon</title></svg><h1>Real</h1>', ''), URL_).title).toBe('Real');
  });

  it('puts the h1 in front of a title that shares no word with it, as a site with one title on every page gives', () => {
    const lirc = '<title>LIRC - Linux Infrared Remote Control</title>';
    expect(extractPage(doc('<h1>IRSEND</h1><p>Send infrared commands.</p>', lirc), URL_).title).toBe(
      'IRSEND — LIRC - Linux Infrared Remote Control',
    );
    // A title that names the page already keeps its words.
    expect(extractPage(doc('<h1>Apache Module mod_dir</h1><p>x</p>', '<title>mod_dir - Apache HTTP Server</title>'), URL_).title).toBe(
      'mod_dir - Apache HTTP Server',
    );
    // A site's name in a header's h1 is not the page's heading.
    expect(extractPage(doc('<header><h1>Acme</h1></header><p>x</p>', '<title>Pricing</title>'), URL_).title).toBe('Pricing');
  });

  it('prunes link-dense menus but keeps a page that is its links (a table of contents)', () => {
    const menu = `<div class="menu">${Array.from({ length: 8 }, (_, i) => `<a href="/m${i}">Menu entry ${i}</a>`).join(' ')}</div>`;
    const withMenu = allText(doc(`<div id="page">${menu}<h1>Guide</h1>${ARTICLE}</div>`));
    expect(withMenu).toContain('ten-year warranty');
    expect(withMenu).not.toContain('Menu entry');

    const toc = `<h1>Contents</h1><ul>${Array.from({ length: 20 }, (_, i) => `<li><a href="/c${i}">Chapter ${i}: a long descriptive chapter title</a></li>`).join('')}</ul>`;
    const tocText = allText(doc(toc));
    expect(tocText).toContain('Chapter 0: a long descriptive chapter title');
    expect(tocText).toContain('Chapter 19');
  });

  it('drops the PostgreSQL docs navheader/navfooter tables but keeps ids made from content', () => {
    const html =
      doc(`<div class="navheader"><table><tr><th>SELECT</th></tr><tr><td><a href="a.html">Prev</a></td><td><a href="b.html">Up</a></td><th>SQL Commands</th><td><a href="index.html">Home</a></td><td><a href="c.html">Next</a></td></tr></table><hr></div>
<div class="refentry" id="SQL-COMMENT"><div class="refnamediv"><h2>COMMENT</h2><p>COMMENT — define or change the comment of an object</p></div>
<div class="refsect1" id="id-1"><h2>Description</h2><p>COMMENT stores a comment about a database object.</p><pre class="synopsis">COMMENT ON
{
  TABLE <em>object_name</em> |
  COLUMN <em>relation_name</em>.<em>column_name</em>
} IS '<em>text</em>'</pre></div></div>
<div class="navfooter"><hr><table><tr><td><a href="a.html">Prev</a></td><td><a href="b.html">Up</a></td><td><a href="c.html">Next</a></td></tr><tr><td>ALTER VIEW</td><td><a href="index.html">Home</a></td><td>COMMIT</td></tr></table></div>`);
    const page = extractPage(html, 'http://127.0.0.1/sql-comment.html');
    const text = page.sections.map((s) => s.text).join('\n');
    expect(page.sections.map((s) => s.heading)).toEqual(['COMMENT', 'Description']);
    expect(text).toContain('COMMENT stores a comment');
    // <pre> keeps its lines and the spaces around inline elements.
    // The synopsis keeps its lines and their indentation.
    expect(text).toContain("COMMENT ON\n{\n  TABLE object_name |\n  COLUMN relation_name.column_name\n} IS 'text'");
    for (const gone of ['Prev', 'Next', 'SQL Commands', 'ALTER VIEW', 'COMMIT']) expect(text).not.toContain(gone);
    expect(page.links).toContain('http://127.0.0.1/index.html');
  });

  it('writes tables row by row with cell separators, and list items as lines', () => {
    const text = allText(
      doc(`<main><h1>Plans</h1><table><tr><th>Plan</th><th>Price</th></tr><tr><td>Starter</td><td>290 EUR</td></tr></table>
<ul><li>Fast</li><li>Cheap</li></ul><p>Line one<br>Line two</p></main>`),
    );
    expect(text).toContain('Plan | Price\n\nStarter | 290 EUR');
    expect(text).toContain('Fast\n\nCheap');
    expect(text).toContain('Line one\nLine two');
  });

  it("keeps an FAQ accordion's questions but not button labels", () => {
    const text = allText(
      doc(`<main><h1>FAQ</h1><button class="accordion">What is your refund policy for annual plans?</button>
<div class="panel"><p>We refund unused months within 30 days of a cancellation.</p></div><button>Show more</button></main>`),
    );
    expect(text).toContain('What is your refund policy for annual plans?\n\nWe refund unused months');
    expect(text).not.toContain('Show more');
  });

  it('keeps an ASP.NET page wrapped in one <form>, drops a small form', () => {
    const text = allText(
      doc(`<form id="form1" method="post" action="./page.aspx"><h1>Welcome</h1>${ARTICLE}<input type="hidden" name="__VIEWSTATE"></form>`),
    );
    expect(text).toContain('ten-year warranty');
  });

  it('prefers <main>, keeps an article header, and falls back to the body when <main> is nearly empty', () => {
    const page = extractPage(
      doc(`<div class="promo">Promo text outside main that should not be indexed at all, long enough to count for something here.</div>
<main><article><header><h1>Article title</h1><p class="byline">By Ada</p></header>${ARTICLE}</article></main>`),
      URL_,
    );
    const text = page.sections.map((s) => s.text).join('\n');
    expect(page.sections[0]!.heading).toBe('Article title');
    expect(text).toContain('By Ada');
    expect(text).not.toContain('Promo text');

    const misused = allText(doc(`<main><p>Skip</p></main><div class="content"><h1>Body</h1>${ARTICLE}</div>`));
    expect(misused).toContain('ten-year warranty');
  });

  it('decodes entities and collapses whitespace', () => {
    const text = allText(doc('<main><p>Fish &amp; chips&nbsp;&mdash; &quot;fresh&quot;\n\n\t daily &#x1F41F;</p></main>'));
    expect(text).toContain('Fish & chips — "fresh" daily 🐟');
  });

  it('survives malformed, deeply nested and empty documents', () => {
    expect(extractPage('', URL_)).toMatchObject({ title: URL_, sections: [], textLength: 0, links: [] });
    expect(extractPage('<p>Unclosed <b>bold <i>italic', URL_).sections[0]!.text).toBe('Unclosed bold italic');
    const deep = `${'<div>'.repeat(20_000)}deep text${'</div>'.repeat(20_000)}`;
    expect(allText(deep)).toContain('deep text');
    expect(extractPage('<html><body></div></span><p>ok</p></body>', URL_).sections[0]!.text).toBe('ok');
  });

  it('reads a frame drawn with bars in a <pre> in linear time (a pattern that backtracked held the CPU for minutes)', () => {
    // aptitude's manual: a screenshot's text alternative, the Minesweeper board's frame.
    const frame = `<pre>Minesweeper  10/10 mines\n${'   |        |\n'.repeat(40)}   +--------+\n</pre>`;
    const text = allText(doc(frame));
    expect(text).toContain('Minesweeper');
    expect(text).toContain('+--------+');
    // Nor does a run of a million tabs or spaces that no line end follows.
    const run = allText(doc(`<pre>${'\t'.repeat(1_000_000)}x\nend</pre><p>a${' '.repeat(1_000_000)}b\n c</p>`));
    expect(run).toContain('x\nend');
    expect(run).toContain('a b c');
    // Empty cells at a row's end still go.
    expect(allText(doc('<table><tr><td>Price</td><td>20 €</td><td></td><td> </td></tr></table>'))).toContain('Price | 20 €');
  });

  it("drops DocBook's link to a screenshot's long description ('[D]')", () => {
    const shot =
      '<p>Pressing Control+t will open the Actions menu:</p><div class="mediaobject"><img src="menu.png" alt="[menu]"><div class="longdesc-link"><span class="longdesc-link">[<a href="ld-idm272.html">D</a>]</span></div></div><p>Use the arrow keys to select an item.</p>';
    const page = extractPage(doc(shot), URL_);
    expect(page.sections.map((s) => s.text).join('\n')).not.toContain('[D]');
    expect(page.links).toContain('https://shop.example.com/docs/ld-idm272.html');
  });

  it('says when a page is a JS shell, and needsRender agrees', () => {
    const shell = extractPage(doc('<div id="root"></div><script src="/app.js"></script>'), URL_);
    expect(shell).toMatchObject({ appShell: true, textLength: 0, scripts: 1 });
    expect(needsRender(shell)).toBe(true);

    const thin = extractPage(doc('<main><p>Loading…</p></main><script>load()</script>'), URL_);
    expect(needsRender(thin)).toBe(true);

    const full = extractPage(doc(`<div id="root"><main>${ARTICLE}${ARTICLE}</main></div><script src="/app.js"></script>`), URL_);
    expect(full.appShell).toBe(false);
    expect(needsRender(full)).toBe(false);

    // No script can run: rendering could not add anything.
    const static_ = extractPage(doc('<main><p>Short.</p></main><script type="application/ld+json">{}</script>'), URL_);
    expect(static_.scripts).toBe(0);
    expect(needsRender(static_)).toBe(false);
  });

  it('keeps the site footer as the last section only when asked (the start page), outside textLength', () => {
    const html = doc(
      `<header><a href="/">Home</a></header><div class="cookie-banner">We use cookies. <button>Accept all cookies</button></div><main><h1>MOT testing</h1><p>Our MOT costs £45.</p></main><footer class="site-footer"><nav><a href="/privacy">Privacy</a> <a href="/terms">Terms</a></nav><p>Dale Street Motors, 42 Dale Street, Sheffield S1 4GH · Tel 0114 496 0321</p></footer>`,
    );
    const plain = extractPage(html, URL_);
    expect(plain.sections).toEqual([{ heading: 'MOT testing', text: 'Our MOT costs £45.' }]);
    const start = extractPage(html, URL_, { keepFooter: true });
    expect(start.sections).toEqual([
      { heading: 'MOT testing', text: 'Our MOT costs £45.' },
      { heading: null, text: 'Dale Street Motors, 42 Dale Street, Sheffield S1 4GH · Tel 0114 496 0321' },
    ]);
    expect(start.textLength).toBe(plain.textLength);
    // A short page keeps what the heuristic found: Readability finds the same sentence beside the cookie banner, and loses the <h1>.
    expect(plain.extractor).toBe('heuristic');
  });

  it('falls back to Readability when the heuristic finds next to nothing in a page that has text', () => {
    // Every block is link-dense except text the heuristic's boilerplate rules drop (class "sidebar").
    const html = doc(`<div class="sidebar"><h1>Only article</h1>${ARTICLE}${ARTICLE}</div>`);
    const page = extractPage(html, URL_);
    expect(page.extractor).toBe('readability');
    expect(page.sections.map((s) => s.text).join(' ')).toContain('ten-year warranty');
    expect(extractWithReadability(html, URL_)?.length).toBeGreaterThan(0);
  });
  it('reads a manual page published as one <pre> as its sections and paragraphs, not one indented block', () => {
    // groff's layout, as Postfix and many projects publish their manual pages: running header, capitals
    // section names at the margin, text indented and filled to the page width, words hyphenated at a
    // line's end, an option's description under its name, an example deeper than the text.
    const page = extractPage(
      doc(`<pre>
POSTSUPER(1)                                                      POSTSUPER(1)

<b>NAME</b>
       postsuper - Postfix superintendent

<b>DESCRIPTION</b>
       The  <a href="postsuper.1.html"><b>postsuper</b>(1)</a>  command  does maintenance jobs on the Postfix queue.
       Use  of  the  command  is  restricted  to  the  superuser.    See   the
       <b>postqueue</b>(1) command for unprivileged queue operations such as listing
       or flushing the mail queue.

       <b>-h</b> <i>queue</i><b>_</b><i>id</i>
              Put mail "on hold" so that no attempt is  made  to  deliver  it.
              Move  one  message  with  the named queue ID from the named mail
              queue(s) to the hold queue. Note: in order to refresh the con-
              figuration, use the <b>reload</b> command instead.

              o      The  message  will be returned to the sender when the
                     queue manager attempts to deliver that message.

              For example:

              postqueue -j | jq -r '
                  select(.recipients[0].address == "user@example.com")
               ' | postsuper -d -

<b>SEE ALSO</b>
       postqueue(1), Postfix unprivileged queue operations

                                                                  POSTSUPER(1)
</pre>`),
      URL_,
    );
    expect(page.sections.map((s) => s.heading)).toEqual(['NAME', 'DESCRIPTION', 'SEE ALSO']);
    expect(page.sections[1]!.text.split('\n\n')).toEqual([
      'The postsuper(1) command does maintenance jobs on the Postfix queue. Use of the command is restricted to the superuser. See the postqueue(1) command for unprivileged queue operations such as listing or flushing the mail queue.',
      '-h queue_id\nPut mail "on hold" so that no attempt is made to deliver it. Move one message with the named queue ID from the named mail queue(s) to the hold queue. Note: in order to refresh the configuration, use the reload command instead.',
      'o The message will be returned to the sender when the queue manager attempts to deliver that message.',
      'For example:',
      'postqueue -j | jq -r \'\n    select(.recipients[0].address == "user@example.com")\n \' | postsuper -d -',
    ]);
    expect(page.sections[2]!.text).toBe('postqueue(1), Postfix unprivileged queue operations');
    // A <pre> that is no manual page (its first capitals line is not NAME) stays one block, as written.
    const code = extractPage(doc('<p>Query:</p><pre>SELECT\n    a, b\nFROM\n    t\nWHERE a > 1</pre>'), URL_);
    expect(code.sections.map((s) => s.text)).toEqual(['Query:\n\nSELECT\n    a, b\nFROM\n    t\nWHERE a > 1']);
  });
  it('reads a line in bold that text follows as the name of its section, and keeps bold items and sentences as text', () => {
    const page = extractPage(
      doc(`<p>Welcome to the bakery.</p><p><b>Opening hours</b></p><p>Monday to Friday, 7am to 6pm.</p>
<table><tr><td bgcolor="#525D76"><font color="#ffffff"><a name="nongui"><strong>2.4.4 Non-GUI Mode</strong></a></font></td></tr>
<tr><td><p>For non-interactive testing, you may run JMeter without the GUI.</p></td></tr></table>
<p><strong>All prices include VAT.</strong></p><p>Cakes are made to order.</p>
<table><tr><td><b>Sourdough</b></td><td><b>£4.50</b></td></tr></table>
<h2>Services</h2><p><b>Free parking</b></p><p><b>Free Wi-Fi</b></p><h2>Contact</h2><p>Call 555-0100.</p>`),
      URL_,
    );
    expect(page.sections.map((s) => [s.heading, s.text])).toEqual([
      [null, 'Welcome to the bakery.'],
      ['Opening hours', 'Monday to Friday, 7am to 6pm.'],
      [
        '2.4.4 Non-GUI Mode',
        'For non-interactive testing, you may run JMeter without the GUI.\n\nAll prices include VAT.\n\nCakes are made to order.\n\nSourdough | £4.50',
      ],
      ['Services', 'Free parking\n\nFree Wi-Fi'],
      ['Contact', 'Call 555-0100.'],
    ]);
  });

  it("keeps a document's own sidebar (DocBook's boxed aside) and drops a page's sidebar column and a Publican docnav", () => {
    const page = extractPage(
      doc(`<ul class="docnav top"><li class="previous"><a href="a.html"><strong>Prev</strong></a></li><li class="home">The Handbook</li><li class="next"><a href="c.html"><strong>Next</strong></a></li></ul>
<div class="section"><h2>6.2. Installing and Removing</h2><div class="para">With APT, packages can be added or removed from the system.</div>${ARTICLE}
<div class="sidebar"><div class="titlepage"><p class="title"><strong>GOING FURTHER The cache of .deb files</strong></p></div>
<div class="para">APT keeps a copy of each downloaded .deb file in /var/cache/apt/archives/; apt-get clean empties it.</div></div></div>
<div class="sidebar"><h3>Recent posts</h3><p>Our summer opening hours are here, read all about them.</p></div>`),
      URL_,
    );
    expect(page.extractor).toBe('heuristic');
    const text = page.sections.map((s) => s.text).join('\n');
    expect(text).toContain('apt-get clean empties it');
    // Its title, a line in bold, names its section.
    expect(page.sections.find((s) => s.heading === 'GOING FURTHER The cache of .deb files')?.text).toContain('apt-get clean empties it');
    expect(text).not.toContain('Recent posts');
    expect(text).not.toContain('summer opening hours');
    expect(text).not.toMatch(/Prev|Next/);
  });

  it("ends a box's heading with the box: the text after a note or an aside is its section's again", () => {
    const page = extractPage(
      doc(`<div class="section"><h2>19.3. Starting the Server</h2><p>Start the server with pg_ctl start, as the database user.</p>
<div class="note"><h3 class="title">Note</h3><p>On some platforms the server must be started as a service instead.</p></div>
<p>The default port is 5432; clients connect to it unless told otherwise.</p>
<div class="sidebar"><div class="titlepage"><p class="title"><strong>SECURITY Using a shell as init</strong></p></div>
<div class="para">Anyone at the console can pass init=/bin/sh to the kernel.</div></div>
<div class="para">To control whether a service starts at boot, use systemctl enable.</div>
<div class="admonition tip"><p><b>Before you upgrade</b></p></div>
<p>Stop the server with pg_ctl stop before upgrading it.</p>
<p><b>Logging</b></p><div class="alert alert-info"><p>The log goes to stderr by default.</p></div><p>Set logging_collector to keep it in files.</p></div>${ARTICLE}`),
      URL_,
    );
    const under = (text: string) => page.sections.find((s) => s.text.includes(text))?.heading;
    expect(under('must be started as a service')).toBe('Note');
    expect(under('The default port is 5432')).toBe('19.3. Starting the Server');
    expect(under('init=/bin/sh')).toBe('SECURITY Using a shell as init');
    expect(under('use systemctl enable')).toBe('19.3. Starting the Server');
    // A line in bold a box ends with is the box's text, not the heading of what follows it.
    expect(page.sections.map((s) => s.text).join('\n')).toContain('Before you upgrade');
    expect(under('Stop the server with pg_ctl stop')).toBe('19.3. Starting the Server');
    // A bold line before a box names the box's text and what follows it, as before.
    expect(under('The log goes to stderr')).toBe('Logging');
    expect(under('Set logging_collector')).toBe('Logging');
  });
});
