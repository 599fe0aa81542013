import { type PageSection, trimLineEnds } from '@kbchat/shared/crawl/chunker';
import { Readability } from '@mozilla/readability';
import { Parser } from 'htmlparser2';
import { parseHTML } from 'linkedom';
import { manualPageSections } from './preformatted.ts';

/**
 * Main-content extraction (docs/crawling.md "Extraction").
 *
 * One SAX pass (htmlparser2) builds a slim tree of the body without what is never content — script,
 * style, noscript, template, svg, iframe, form controls, nav, aside, footer, site headers, hidden
 * elements, ARIA navigation/banner/contentinfo/complementary/search/dialog regions and elements whose
 * class or id names boilerplate (navheader/navfooter, breadcrumbs, sidebars, cookie and consent
 * banners, share bars…) — while it reads the head (title, canonical, meta robots, base, lang) and every
 * link of the WHOLE document (nav links are how a crawl discovers pages, even though nav text is not
 * content). The main root is <main>/[role=main]/the one <article> when they hold the text, else the body;
 * inside it, link-dense blocks (menus, link lists) are pruned unless that would leave almost nothing (a
 * table-of-contents page is its links). Sections start at h1–h4 and carry their heading.
 *
 * Why not Readability first: over linkedom it costs ~7 ms/page on the PostgreSQL docs and drops their
 * synopsis blocks; this pass costs about a tenth of that (numbers in docs/crawling.md). Readability
 * (over linkedom) is the fallback when this pass finds next to nothing in a page that has text.
 */
export interface ExtractedPage {
  title: string;
  sections: PageSection[];
  textLength: number;
  links: string[];
  canonical: string | null;
  noindex: boolean;
  nofollow: boolean;
  lang: string | null;
  /** All visible body text, boilerplate included: tells an empty JS shell from a page that is all navigation. */
  bodyTextLength?: number;
  /** True when the body is a bare JS-app mount point (<div id="root|app|__next…"> with no text). */
  appShell?: boolean;
  /** <meta http-equiv="refresh" content="0; url=…"> target, resolved (also listed in links). */
  refreshUrl?: string | null;
  /** Which extractor produced the sections. */
  extractor?: 'heuristic' | 'readability';
  /** <script> elements that run (JSON-LD and other data blocks not counted): 0 means rendering cannot change the page. */
  scripts?: number;
}

export interface ExtractOptions {
  /** The response's X-Robots-Tag header, when there was one. */
  xRobotsTag?: string | null;
  /** User-agent token whose own meta robots tag (e.g. <meta name="kbchat-bot">) also applies. */
  robotsToken?: string;
  /**
   * Keep the site's footer, as the page's last section: on the page a crawl starts from. A small
   * business often states its address, phone number and hours only there; it repeats on every page,
   * so it is kept once.
   */
  keepFooter?: boolean;
}

interface El {
  tag: string;
  children: (El | string)[];
  /** Non-space characters of text inside, and of text inside links. */
  text: number;
  linkText: number;
  links: number;
  pre?: boolean;
  /** A document's division (DOCUMENT_DIVISION). */
  division?: boolean;
  /** A box beside the text (BOX): a heading inside it names only what it holds. */
  box?: boolean;
  /** A <form>: kept only when it wraps the page (ASP.NET WebForms does). */
  form?: boolean;
  /** An <a href="#…">: in a heading, a docs generator's permalink marker. */
  permalink?: boolean;
  /** The site's footer, held apart from the body (keepFooter): its text counts in no ancestor. */
  detached?: boolean;
}

// Never content, wherever they are.
const DROP_TAGS = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'canvas',
  'video',
  'audio',
  'map',
  'select',
  'option',
  'input',
  'textarea',
  'label',
  'nav',
  'aside',
  'footer',
  'dialog',
  'menu',
  'head',
]);
const DROP_ROLES = new Set([
  'navigation',
  'banner',
  'contentinfo',
  'complementary',
  'search',
  'menubar',
  'menu',
  'dialog',
  'alertdialog',
  'toolbar',
]);
// Words that name boilerplate in a class or id. Matched per token between separators, so "share" does
// not hit "shareholders". A class may carry a prefix ("site-footer", "wp-cookie-notice"); an id may not,
// because ids are often made from content ("sql-comment", "plpython-sharing" in the PostgreSQL docs).
const BOILERPLATE_WORDS =
  'nav|navbar|navigation|navheader|navfooter|navlinks|docnav|breadcrumbs?|skip-?link|skip-?to-content|cookies?|cookie-?banner|cookie-?consent|cookie-?notice|consent|gdpr|cc-window|onetrust|share|sharing|social|socials|site-?header|site-?footer|global-?header|global-?footer|masthead|footer|toolbar|pagination|pager|subscribe|newsletter|advert|advertisement|sponsored|related-?posts|comments|longdesc-?link';
const BOILERPLATE = namePatterns(BOILERPLATE_WORDS);
/**
 * A page's sidebar column (widgets, menus) — but a sidebar inside a document's section is the
 * document's: DocBook's and docutils' boxed asides ("GOING FURTHER The cache of .deb files", "BACK TO
 * BASICS", "TIP"), written as part of the text they stand beside.
 */
const SIDEBAR = namePatterns('sidebar|side-bar');
/**
 * A box set beside the text — an admonition ("Note", "Tip", "Warning": DocBook's, Sphinx's, Docusaurus'
 * and GitHub's markup), a document's sidebar ("SECURITY Using a shell as init…") — whose title names
 * the box, not the text after it. The last class token names it, a prefix allowed ("markdown-alert").
 */
const BOX = {
  cls: /^(?:[a-z0-9]+[-_])*(?:sidebar|side-bar|admonition|note|tip|hint|warning|caution|important|attention|danger|callout|notecard|alert)$/,
  // By class only: ids are made from content ("note-on-locking").
  id: /(?!)/,
};
/** A division of a document as DocBook and docutils mark it up (`<div class="section">`, "sect2", "chapter"). */
const DOCUMENT_DIVISION = /(?:^|\s)(?:section|chapter|appendix|preface|part|simplesect|sect[1-5]|refsect[1-3]|refsection)(?:\s|$)/i;
// The site's footer by name, the same way (kept on the start page: ExtractOptions.keepFooter).
const FOOTER = namePatterns('site-?footer|global-?footer|footer');

/** A class token that holds one of `words` (a prefix allowed), and an id that starts with one. */
function namePatterns(words: string): { cls: RegExp; id: RegExp } {
  return {
    cls: new RegExp(`^(?:[a-z0-9]+[-_])*(?:${words})(?:[-_][a-z0-9]+)*$`),
    id: new RegExp(`^(?:${words})(?:[-_][a-z0-9]+)*$`),
  };
}

/** Whether an element's id or one of its class tokens names what `names` describes. */
function namedBy(attrs: Record<string, string>, names: { cls: RegExp; id: RegExp }): boolean {
  if (attrs.id && names.id.test(attrs.id.toLowerCase())) return true;
  return (attrs.class ?? '')
    .toLowerCase()
    .split(/\s+/)
    .some((token) => token !== '' && names.cls.test(token));
}
const BLOCK_TAGS = new Set([
  'p',
  'div',
  'section',
  'article',
  'main',
  'header',
  'li',
  'ul',
  'ol',
  'dl',
  'dt',
  'dd',
  'table',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'caption',
  'blockquote',
  'figure',
  'figcaption',
  'h5',
  'h6',
  'pre',
  'address',
  'details',
  'summary',
  'hr',
  'form',
  'fieldset',
  'center',
  'button',
  'body',
]);
/** A line break inside a paragraph (the one void element that shapes text). */
const BR: El = { tag: 'br', children: [], text: 0, linkText: 0, links: 0 };
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4']);
const PRUNABLE = new Set(['ul', 'ol', 'dl', 'table', 'div', 'section', 'p', 'center']);
const VOID = new Set(['br', 'hr', 'img', 'meta', 'link', 'base', 'input', 'area', 'col', 'embed', 'source', 'track', 'wbr', 'param']);
// Text inside these is never rendered as text.
const RAW_TEXT = new Set(['script', 'style', 'template', 'noscript']);
const APP_ROOT_IDS = /^(?:root|app|__next|__nuxt|___gatsby|svelte|main-app|application)$/i;

/** Non-space characters a <button> needs to count as content (an accordion's question, not "Send"). */
const MIN_BUTTON_TEXT = 20;
/** Minimum main text below which Readability gets a try, when the body holds much more. */
const FALLBACK_BELOW = 200;

export function extractPage(html: string, url: string, options: ExtractOptions = {}): ExtractedPage {
  const parsed = parse(html, options.keepFooter === true);
  const base = resolveBase(parsed.baseHref, url);
  const resolve = (href: string): string | null => {
    try {
      return new URL(href.trim(), base).toString();
    } catch {
      return null;
    }
  };

  const links: string[] = [];
  const seen = new Set<string>();
  const addLink = (href: string | null) => {
    if (href && !seen.has(href)) {
      seen.add(href);
      links.push(href);
    }
  };
  for (const href of parsed.hrefs) addLink(resolve(href));
  const refreshUrl = parsed.refresh ? resolve(parsed.refresh) : null;
  addLink(refreshUrl);

  const canonicalUrl = parsed.canonical ? resolve(parsed.canonical) : null;
  const canonical = canonicalUrl && /^https?:/i.test(canonicalUrl) ? canonicalUrl : null;

  const robots = [...parsed.robots, ...robotsHeaderTokens(options.xRobotsTag, options.robotsToken)];
  const none = robots.includes('none');

  const { root, pruneLimit } = chooseRoot(parsed.body);
  let sections = emitSections(root, pruneLimit);
  let textLength = sumText(sections);
  let extractor: ExtractedPage['extractor'] = 'heuristic';
  if (textLength < FALLBACK_BELOW && parsed.bodyText > Math.max(FALLBACK_BELOW, textLength * 2)) {
    const fallback = extractWithReadability(html, url);
    // Only when it finds clearly more: on a short page (a small business's contact page) Readability
    // finds the same few sentences plus the cookie banner beside them, and loses the page's <h1>.
    if (fallback && sumText(fallback) >= 2 * textLength) {
      sections = fallback;
      textLength = sumText(fallback);
      extractor = 'readability';
    }
  }

  // The footer's text as the page's last section, under no heading: the page's own words come first.
  // It is not counted in textLength: whether a page has content (or needs rendering) is its own text.
  for (const footer of parsed.footers) {
    const text = walkSections(footer, true)
      .map((s) => (s.heading ? `${s.heading}\n${s.text}` : s.text))
      .filter(Boolean)
      .join('\n\n');
    if (text) sections = [...sections, { heading: null, text }];
  }

  const h1 = firstHeading(parsed.body);
  const named = clean(parsed.title) || clean(parsed.ogTitle);
  const title = named ? withHeading(named, h1) : h1 || url;
  return {
    title,
    sections,
    textLength,
    links,
    canonical,
    noindex: none || robots.includes('noindex'),
    nofollow: none || robots.includes('nofollow'),
    lang: parsed.lang ? parsed.lang.split(',')[0]!.trim() || null : null,
    bodyTextLength: parsed.bodyText,
    appShell: parsed.appRoot && parsed.body.text < FALLBACK_BELOW,
    refreshUrl,
    extractor,
    scripts: parsed.scripts,
  };
}

function isExecutable(type: string | undefined): boolean {
  if (!type) return true;
  const t = type.trim().toLowerCase();
  return t === '' || t === 'module' || /^(?:text|application)\/(?:x-)?(?:java|ecma)script$/.test(t);
}

interface Parsed {
  body: El;
  title: string;
  ogTitle: string;
  baseHref: string | null;
  canonical: string | null;
  refresh: string | null;
  robots: string[];
  lang: string | null;
  hrefs: string[];
  /** Non-space characters of all body text before anything is dropped (script/style excluded). */
  bodyText: number;
  appRoot: boolean;
  scripts: number;
  /** The site's footers (keepFooter), outside the body's tree. */
  footers: El[];
}

function parse(html: string, keepFooter = false): Parsed {
  const body: El = { tag: 'body', children: [], text: 0, linkText: 0, links: 0 };
  const out: Parsed = {
    body,
    title: '',
    ogTitle: '',
    baseHref: null,
    canonical: null,
    refresh: null,
    robots: [],
    lang: null,
    hrefs: [],
    bodyText: 0,
    appRoot: false,
    scripts: 0,
    footers: [],
  };
  // One frame per open element; `el` is set when the element is kept in the tree.
  const stack: { tag: string; el: El | null; dropped: boolean }[] = [];
  let current: El = body;
  let dropDepth = 0;
  let rawDepth = 0; // inside script/style/template: text that is never visible
  let inHead = false;
  let inTitle = false;
  let titleDone = false;
  let linkDepth = 0;
  let contentDepth = 0; // inside main/article: their <header> is the article's own
  let divisionDepth = 0; // inside a document's section (DOCUMENT_DIVISION): its sidebars are its own
  let footerDepth = 0; // inside a footer held apart (keepFooter)

  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'html') {
          if (attrs.lang) out.lang = attrs.lang;
          else if (attrs['xml:lang']) out.lang = attrs['xml:lang'];
        }
        if (name === 'head') inHead = true;
        else if (name === 'body') inHead = false;
        if (name === 'title' && !titleDone && (inHead || dropDepth === 0)) inTitle = true;
        if (name === 'meta') readMeta(attrs, out);
        else if (name === 'link' && attrs.href && out.canonical === null && /(?:^|\s)canonical(?:\s|$)/i.test(attrs.rel ?? ''))
          out.canonical = attrs.href;
        else if (name === 'base' && attrs.href && out.baseHref === null) out.baseHref = attrs.href;
        if ((name === 'a' || name === 'area') && attrs.href) out.hrefs.push(attrs.href);
        // A frameset's pages are its frames: a help system or an old site whose home page is one
        // (HomeBank's manual: a contents frame and a page frame) has no other link to them.
        else if ((name === 'frame' || name === 'iframe') && attrs.src) out.hrefs.push(attrs.src);
        if (name === 'div' && attrs.id && APP_ROOT_IDS.test(attrs.id)) out.appRoot = true;
        if (name === 'script' && isExecutable(attrs.type)) out.scripts++;

        if (VOID.has(name)) {
          if (name === 'br' && dropDepth === 0 && !inHead) current.children.push(BR);
          stack.push({ tag: name, el: null, dropped: false });
          return;
        }
        if (RAW_TEXT.has(name)) rawDepth++;
        const footer = keepFooter && footerDepth === 0 && dropDepth === 0 && !inHead && contentDepth === 0 && isSiteFooter(name, attrs);
        const drop =
          !footer && (dropDepth > 0 || inHead || name === 'head' || shouldDrop(name, attrs, contentDepth > 0, divisionDepth > 0));
        if (drop || name === 'html' || name === 'body' || name === 'title') {
          const dropped = drop && name !== 'html' && name !== 'body';
          if (dropped) dropDepth++;
          stack.push({ tag: name, el: null, dropped });
          return;
        }
        const el: El = { tag: name, children: [], text: 0, linkText: 0, links: 0 };
        if (name === 'pre' || name === 'textarea') el.pre = true;
        if (name === 'form') el.form = true;
        if (name === 'a') {
          linkDepth++;
          el.links = 1;
          if (attrs.href?.startsWith('#')) el.permalink = true;
        }
        if (name === 'main' || name === 'article') contentDepth++;
        if (namedBy(attrs, BOX)) el.box = true;
        if (DOCUMENT_DIVISION.test(attrs.class ?? '')) {
          el.division = true;
          divisionDepth++;
        }
        if (footer) {
          el.detached = true;
          footerDepth++;
          out.footers.push(el);
        } else current.children.push(el);
        stack.push({ tag: name, el, dropped: false });
        current = el;
      },
      ontext(data) {
        if (inTitle) {
          out.title += data;
          return;
        }
        if (rawDepth > 0 || inHead) return;
        const n = countVisible(data);
        out.bodyText += n;
        if (dropDepth > 0) return;
        current.children.push(data);
        current.text += n;
        if (linkDepth > 0) current.linkText += n;
      },
      onclosetag(name) {
        if (name === 'title' && inTitle) {
          inTitle = false;
          titleDone = true;
        }
        if (name === 'head') inHead = false;
        // htmlparser2 balances tags itself; look down the stack only to survive its edge cases.
        let i = stack.length - 1;
        while (i >= 0 && stack[i]!.tag !== name) i--;
        while (i >= 0 && stack.length > i) closeFrame();
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );

  function closeFrame(): void {
    const frame = stack.pop()!;
    if (frame.dropped) dropDepth--;
    if (RAW_TEXT.has(frame.tag)) rawDepth--;
    const el = frame.el;
    if (!el) return;
    if (el.tag === 'a') linkDepth--;
    if (el.tag === 'main' || el.tag === 'article') contentDepth--;
    if (el.division) divisionDepth--;
    const parent = parentOf(stack, body);
    if (el.detached) {
      footerDepth--;
      current = parent;
      return;
    }
    parent.text += el.text;
    parent.linkText += el.linkText;
    parent.links += el.links;
    current = parent;
  }

  parser.end(html);
  // parser.end() closes what the document left open; anything still here would lose its counts.
  while (stack.length) closeFrame();
  return out;
}

function parentOf(stack: { el: El | null }[], body: El): El {
  for (let i = stack.length - 1; i >= 0; i--) {
    const el = stack[i]!.el;
    if (el) return el;
  }
  return body;
}

function readMeta(attrs: Record<string, string>, out: Parsed): void {
  const name = (attrs.name ?? attrs.property ?? '').toLowerCase();
  const content = attrs.content ?? '';
  if (name === 'og:title' && !out.ogTitle) out.ogTitle = content;
  else if (name === 'robots' || name === 'kbchat-bot' || name === 'kbchat')
    out.robots.push(
      ...content
        .toLowerCase()
        .split(/[\s,]+/)
        .filter(Boolean),
    );
  const equiv = (attrs['http-equiv'] ?? '').toLowerCase();
  if (equiv === 'refresh' && out.refresh === null) {
    const m = /url\s*=\s*['"]?([^'"\s>]+)/i.exec(content);
    if (m) out.refresh = m[1]!;
  } else if (equiv === 'content-language' && !out.lang && content) out.lang = content;
}

/** The page's footer: <footer>, the contentinfo landmark, or an element whose id or class names one. */
function isSiteFooter(tag: string, attrs: Record<string, string>): boolean {
  return tag === 'footer' || attrs.role?.toLowerCase() === 'contentinfo' || namedBy(attrs, FOOTER);
}

function shouldDrop(tag: string, attrs: Record<string, string>, insideContent: boolean, insideDivision: boolean): boolean {
  if (DROP_TAGS.has(tag)) return true;
  // A page's own <header> is boilerplate; an article's header holds its title and byline.
  if (tag === 'header' && !insideContent) return true;
  if ('hidden' in attrs || attrs['aria-hidden'] === 'true') return true;
  const role = attrs.role?.toLowerCase();
  if (role && DROP_ROLES.has(role)) return true;
  const style = attrs.style;
  if (style && /(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style)) return true;
  return namedBy(attrs, BOILERPLATE) || (!insideDivision && namedBy(attrs, SIDEBAR));
}

/** <main>, [role=main] or a lone <article>, when it holds most of the text; else the whole body. */
function chooseRoot(body: El): { root: El; pruneLimit: number } {
  const mains: El[] = [];
  const articles: El[] = [];
  const walk: El[] = [body];
  while (walk.length) {
    const el = walk.pop()!;
    if (el.tag === 'main') mains.push(el);
    else if (el.tag === 'article') articles.push(el);
    for (const c of el.children) if (typeof c !== 'string') walk.push(c);
  }
  const candidate = mains[0] ?? (articles.length === 1 ? articles[0] : undefined);
  const root = candidate && candidate.text >= body.text * 0.3 ? candidate : body;
  return { root, pruneLimit: root.text };
}

/** Link-dense containers are menus and link lists: at least 3 links and 70% of the text in them. */
function isLinkDense(el: El): boolean {
  return PRUNABLE.has(el.tag) && el.links >= 3 && el.linkText >= el.text * 0.7;
}

function emitSections(root: El, rootText: number): PageSection[] {
  const pruned = walkSections(root, true);
  // A page that is its links (a table of contents, a sitemap page) keeps them.
  if (sumText(pruned) < Math.min(FALLBACK_BELOW, rootText * 0.25) && rootText > 0) return walkSections(root, false);
  return pruned;
}

/**
 * The text without the empty cells' bars and spaces it ends with ("Price | 20 € | |"). A scan, not
 * /(?:\s*\|\s*)+$/: that pattern backtracks exponentially on bars and spaces that do not end the
 * text — a screenshot's frame drawn in a `<pre>` ("|        |" on twenty lines, then "+--------+")
 * held a crawler's CPU for minutes on one page of 1,185 bytes.
 */
function withoutTrailingBars(text: string): string {
  let end = text.length;
  let bar = false;
  while (end > 0) {
    const c = text[end - 1] as string;
    if (c === '|') bar = true;
    else if (!/\s/.test(c)) break;
    end--;
  }
  return bar ? text.slice(0, end) : text;
}

/** Blocks that may be a line in bold standing for a heading: a paragraph, a division, a table's one-cell row. */
const BOLD_LINE_BLOCKS = new Set(['p', 'div', 'center', 'tr']);
const BOLD = new Set(['b', 'strong']);
/** At most this many words and characters: a name, not a sentence in bold. */
const BOLD_LINE_WORDS = 10;
const BOLD_LINE_CHARS = 80;

/**
 * The text of a block that is one short line in bold and nothing else ("<p><b>Opening hours</b></p>",
 * the 2000s Apache template's "<tr><td bgcolor=…><font><strong>2.4.4 Non-GUI Mode</strong></font></td></tr>"),
 * else null. Not a sentence (it ends in . ! ?), not a row of several cells.
 */
function boldLine(el: El): string | null {
  // Cheap refusals first: every division of every page is asked, most hold far more than a line.
  if (el.text === 0 || el.text > BOLD_LINE_CHARS) return null;
  if (el.tag === 'tr' && el.children.filter((c) => typeof c !== 'string' && (c.tag === 'td' || c.tag === 'th')).length > 1) return null;
  const out: string[] = [];
  const walk: [El | string, boolean][] = [[el, false]];
  while (walk.length) {
    const [n, bold] = walk.pop()!;
    if (typeof n === 'string') {
      if (!bold && /\S/.test(n)) return null;
      out.push(n);
      continue;
    }
    if (n === BR || (n !== el && BLOCK_TAGS.has(n.tag))) return null;
    const inBold = bold || BOLD.has(n.tag);
    for (let i = n.children.length - 1; i >= 0; i--) walk.push([n.children[i]!, inBold]);
  }
  const text = clean(out.join(''));
  if (text.length < 2 || text.length > BOLD_LINE_CHARS || text.split(' ').length > BOLD_LINE_WORDS) return null;
  return /\p{L}/u.test(text) && !/[.!?…]["'”’)]*$/u.test(text) ? text : null;
}

function walkSections(root: El, prune: boolean): PageSection[] {
  const sections: PageSection[] = [];
  let heading: string | null = null;
  let paragraphs: string[] = [];
  let parts: string[] = [];
  // A line in bold (boldLine) names the next section when text follows it; before another heading,
  // another such line or the end it stays a paragraph (a list of items in bold is content).
  let pending: string | null = null;

  const pushParagraph = (p: string) => {
    if (pending !== null) {
      if (paragraphs.length || heading) sections.push({ heading, text: paragraphs.join('\n\n') });
      paragraphs = [];
      heading = pending;
      pending = null;
    }
    paragraphs.push(p);
  };
  const demote = () => {
    if (pending !== null) paragraphs.push(pending);
    pending = null;
  };
  const flushParagraph = () => {
    if (parts.length === 0) return;
    const p = trimLineEnds(parts.join(''), ' \t', true).replace(/ {2,}/g, ' ');
    const q = withoutTrailingBars(p)
      .trim()
      // A code example's indentation (flushPreText kept it as no-break spaces) is spaces again.
      .replace(/^\u00a0+/gm, (indent) => ' '.repeat(indent.length));
    if (q) pushParagraph(q);
    parts = [];
  };
  const flushSection = () => {
    flushParagraph();
    demote();
    if (paragraphs.length || heading) sections.push({ heading, text: paragraphs.join('\n\n') });
    paragraphs = [];
  };

  // Iterative walk: documents can nest deeper than the call stack.
  // A box (El.box) remembers the heading its text came under: a heading inside it ends with it.
  type Step = { el: El; i: number; cells: number; pre: boolean; outside?: { heading: string | null; pending: string | null } };
  const steps: Step[] = [{ el: root, i: 0, cells: 0, pre: Boolean(root.pre) }];
  while (steps.length) {
    const step = steps[steps.length - 1]!;
    const { el } = step;
    if (step.i === 0 && el !== root) {
      if (el.box && !step.outside) {
        flushParagraph();
        step.outside = { heading, pending };
      }
      if (HEADINGS.has(el.tag)) {
        flushSection();
        heading = clean(textOf(el, true)) || null;
        steps.pop();
        continue;
      }
      if (BLOCK_TAGS.has(el.tag)) flushParagraph();
      const named = BOLD_LINE_BLOCKS.has(el.tag) && !step.pre ? boldLine(el) : null;
      if (named !== null) {
        demote();
        pending = named;
        steps.pop();
        continue;
      }
      if (el.tag === 'td' || el.tag === 'th') {
        const row = steps[steps.length - 2];
        if (row && row.cells++ > 0) parts.push(' | ');
        else parts.push(' ');
      }
    }
    if (step.i >= el.children.length) {
      steps.pop();
      if (step.outside) {
        flushParagraph();
        // A line in bold the box ends with is the box's own text ("<div class=alert><b>Closed on Monday</b></div>").
        if (pending !== null && pending !== step.outside.pending) demote();
        // The heading before the box again — or the bold line that stood before it, which its text took.
        const before = step.outside.pending !== null && pending === null ? step.outside.pending : step.outside.heading;
        if (heading !== before) {
          flushSection();
          heading = before;
        }
        continue;
      }
      if (BLOCK_TAGS.has(el.tag)) flushParagraph();
      else if (el.tag === 'td' || el.tag === 'th') parts.push(' ');
      continue;
    }
    const child = el.children[step.i++]!;
    if (typeof child === 'string') {
      if (step.pre) flushPreText(child, parts);
      else parts.push(collapse(child));
      continue;
    }
    if (child === BR) {
      parts.push('\n');
      continue;
    }
    // "Submit", "Accept all cookies": button labels are not content; an FAQ accordion's question is.
    if (child.tag === 'button' && child.text < MIN_BUTTON_TEXT) continue;
    if (prune && isLinkDense(child)) continue;
    if (child.form && child.text < root.text * 0.25) continue;
    if (child.tag === 'pre' && !step.pre) {
      // A formatter's page in a <pre> (a manual page): its sections and paragraphs, not one block of code.
      const manual = manualPageSections(textOf(child));
      if (manual) {
        flushSection();
        for (const s of manual) {
          heading = s.heading;
          for (const p of s.paragraphs) {
            parts.push(p);
            flushParagraph();
          }
          flushSection();
        }
        continue;
      }
    }
    steps.push({ el: child, i: 0, cells: 0, pre: step.pre || Boolean(child.pre) });
  }
  flushSection();
  return sections.filter((s) => s.text.trim().length > 0);
}

function flushPreText(text: string, parts: string[]): void {
  // Preformatted text keeps its lines, and its lines their indentation (Python's is its syntax): as
  // no-break spaces, which the paragraph's whitespace clean-up leaves alone, a tab as four. Blank
  // lines inside it stay single so it remains one paragraph.
  parts.push(
    trimLineEnds(text.replace(/\r\n?/g, '\n'))
      .replace(/\n{2,}/g, '\n')
      .replace(/\n[ \t]+/g, (indent) => `\n${'\u00a0'.repeat(indent.length - 1 + 3 * (indent.match(/\t/g)?.length ?? 0))}`),
  );
}

/** Text of an element; for a heading, without permalink markers ("Usage¶", "Promise example#"). */
function textOf(el: El, skipPermalinks = false): string {
  const out: string[] = [];
  const walk: (El | string)[] = [el];
  while (walk.length) {
    const n = walk.pop()!;
    if (typeof n === 'string') out.push(n);
    else if (skipPermalinks && n.permalink && n.text <= 2) continue;
    else for (let i = n.children.length - 1; i >= 0; i--) walk.push(n.children[i]!);
  }
  return out.join('');
}

/** A title's or heading's words, lower-cased: letters and digits. */
function wordsOf(s: string): string[] {
  return s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The page's title, with its h1 in front when the title shares no word with it: a site that gives every
 * page one title ("LIRC - Linux Infrared Remote Control" on each of its 60 manual pages, a shop's name on
 * every page) names the page by its h1 — "IRSEND — LIRC - Linux Infrared Remote Control" in a source
 * list, not sixty sources of one name. A title that holds a word of its h1 ("mod_dir - Apache HTTP Server"
 * under "Apache Module mod_dir") already names the page.
 */
function withHeading(title: string, h1: string): string {
  if (!h1 || h1.length > 100) return title;
  const words = new Set(wordsOf(title));
  return wordsOf(h1).some((w) => words.has(w)) ? title : `${h1} — ${title}`;
}

function firstHeading(body: El): string {
  // Depth-first in document order: the first <h1> a reader meets.
  const walk: El[] = [body];
  while (walk.length) {
    const el = walk.pop()!;
    if (el.tag === 'h1') return clean(textOf(el));
    for (let i = el.children.length - 1; i >= 0; i--) {
      const c = el.children[i]!;
      if (typeof c !== 'string') walk.push(c);
    }
  }
  return '';
}

/** Sections as @mozilla/readability (over linkedom) finds them: the fallback, exported for measurement. */
export function extractWithReadability(html: string, url: string): PageSection[] | null {
  try {
    const { document } = parseHTML(html);
    // Readability resolves relative links against the document's URL; linkedom has none unless told.
    void url;
    const article = new Readability(document as unknown as Document, { charThreshold: 100 }).parse();
    if (!article?.content) return null;
    const again = parse(`<body>${article.content}</body>`);
    return walkSections(again.body, false);
  } catch {
    // Readability throws on some malformed documents; the heuristic result stands.
    return null;
  }
}

/**
 * Directives of an X-Robots-Tag header that apply to us: "noindex, nofollow" applies to every bot;
 * "googlebot: noindex, nofollow" only to that bot, until another "name:" prefix starts.
 */
function robotsHeaderTokens(header: string | null | undefined, token = 'kbchat-bot'): string[] {
  if (!header) return [];
  const me = token.toLowerCase();
  const out: string[] = [];
  let target = '*';
  for (const raw of header.toLowerCase().split(',')) {
    let directive = raw.trim();
    const m = /^([a-z0-9_-]+)\s*:\s*(.*)$/.exec(directive);
    if (m && !VALUED_DIRECTIVES.has(m[1]!)) {
      target = m[1]!;
      directive = m[2]!.trim();
    }
    if (directive && (target === '*' || target === me)) out.push(directive.split(/\s+/)[0]!);
  }
  return out;
}
const VALUED_DIRECTIVES = new Set(['unavailable_after', 'max-snippet', 'max-image-preview', 'max-video-preview']);

function resolveBase(baseHref: string | null, url: string): string {
  if (!baseHref) return url;
  try {
    const b = new URL(baseHref.trim(), url);
    return /^https?:$/.test(b.protocol) ? b.toString() : url;
  } catch {
    return url;
  }
}

function sumText(sections: PageSection[]): number {
  let n = 0;
  for (const s of sections) n += s.text.length;
  return n;
}

function collapse(s: string): string {
  return s.replace(/[\s\u200b\ufeff]+/g, ' ');
}

function clean(s: string | null | undefined): string {
  return s ? collapse(s).trim() : '';
}

function countVisible(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 32 && c !== 160) n++;
  }
  return n;
}
