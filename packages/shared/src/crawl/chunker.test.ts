import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHUNK_OVERLAP, CHUNK_SIZE, type Chunk, chunkEmbeddingText, chunkSections, MIN_SECTION_CHARS } from './chunker.ts';

function sentence(i: number): string {
  return `Sentence number ${i} tells the reader about product feature ${i * 7} and why it matters.`;
}

function expectWellFormed(chunks: Chunk[]): void {
  chunks.forEach((c, i) => {
    expect(c.index).toBe(i);
    expect(c.content.trim()).toBe(c.content);
    expect(c.content.length).toBeGreaterThan(0);
    expect(c.content.length).toBeLessThanOrEqual(CHUNK_SIZE);
    expect(c.hash).toBe(createHash('sha256').update(c.content).digest('hex'));
  });
}

/** Every word of the source appears in some chunk, in order (nothing dropped at a cut). */
function expectCovers(source: string, chunks: Chunk[]): void {
  const joined = chunks.map((c) => c.content).join(' ');
  for (const word of new Set(source.split(/\s+/).filter(Boolean))) expect(joined).toContain(word);
}

describe('chunkSections', () => {
  it('keeps a tiny page whole, with its heading', () => {
    const chunks = chunkSections([{ heading: 'Contact', text: 'Call us on 555-0100.' }]);
    expect(chunks).toEqual([
      {
        index: 0,
        heading: 'Contact',
        content: 'Call us on 555-0100.',
        hash: createHash('sha256').update('Call us on 555-0100.').digest('hex'),
      },
    ]);
  });

  it('never makes an empty or whitespace-only chunk', () => {
    expect(chunkSections([])).toEqual([]);
    expect(chunkSections([{ heading: 'Empty', text: '' }])).toEqual([]);
    expect(chunkSections([{ heading: null, text: ' \n\n \t \u00a0\n ' }])).toEqual([]);
    const chunks = chunkSections([{ heading: 'A', text: '\n\n\n   \n\nreal text\n\n\n\n  \n' }]);
    expect(chunks.map((c) => c.content)).toEqual(['real text']);
  });

  it('keeps the line breaks and indentation of a code example it cuts or carries over, as the page has them', () => {
    const code = [
      'from django.contrib.sites.models import Site',
      'from django.db import models',
      'class Article(models.Model):',
      '    headline = models.CharField(max_length=200)',
      '    sites = models.ManyToManyField(Site)',
    ].join('\n');
    const text = `${'An article is associated with one or more sites. '.repeat(6).trim()}\n\n${code}\n\n${'This accomplishes several things quite nicely. '.repeat(4).trim()}`;
    const chunks = chunkSections([{ heading: 'Associating content with multiple sites', text }], { size: 400, overlap: 200 });
    expect(chunks.length).toBeGreaterThan(1);
    for (const c of chunks) {
      expect(c.content).not.toMatch(/modelsclass|\):headline/);
      // Every line of the example a chunk holds is a line of the page.
      for (const line of c.content.split('\n')) if (/models|Site\)/.test(line)) expect(code.split('\n')).toContain(line);
    }
  });

  it('packs whole paragraphs and cuts long ones at sentence ends, with sentence overlap', () => {
    const paragraphs = Array.from({ length: 6 }, (_, p) => Array.from({ length: 5 }, (_, s) => sentence(p * 10 + s)).join(' '));
    const text = paragraphs.join('\n\n');
    const chunks = chunkSections([{ heading: 'Features', text }]);
    expectWellFormed(chunks);
    expectCovers(text, chunks);
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) {
      expect(c.heading).toBe('Features');
      // Cuts fall at sentence ends: every chunk starts with "Sentence" and ends with a full stop.
      expect(c.content).toMatch(/^Sentence number \d+/);
      expect(c.content).toMatch(/\.$/);
    }
    // Consecutive chunks share the sentence at the cut.
    for (let i = 1; i < chunks.length; i++) {
      const firstSentence = chunks[i]!.content.split(/(?<=\.)\s+/)[0]!;
      expect(firstSentence.length).toBeLessThanOrEqual(CHUNK_OVERLAP);
      expect(chunks[i - 1]!.content.endsWith(firstSentence)).toBe(true);
    }
  });

  it('starts a chunk that goes on with a table with its column names, and never carries part of a row', () => {
    const head = 'Attribute | Description | Required';
    const rows = Array.from(
      { length: 30 },
      (_, i) => `Setting ${i} | What setting ${i} changes, in a sentence. And a second sentence about it. | ${i % 2 ? 'Yes' : 'No'}`,
    );
    const text = ['The parameters of the element.', head, ...rows, 'After the table, a closing remark. It ends here.'].join('\n\n');
    const chunks = chunkSections([{ heading: 'Random Variable', text }]);
    expectWellFormed(chunks);
    expectCovers(text, chunks);
    expect(chunks.length).toBeGreaterThan(2);
    const paragraphs = new Set(text.split('\n\n'));
    for (const c of chunks.slice(1)) {
      const [first] = c.content.split('\n\n');
      // A chunk that opens with a row opens with the table's first row; no row is cut.
      if (first?.includes(' | ')) expect(first).toBe(head);
      for (const p of c.content.split('\n\n')) expect(paragraphs.has(p) || !p.includes('|')).toBe(true);
    }
  });

  it("keeps an FAQ's question with its answer: a question never ends a chunk after other text", () => {
    const pairs = Array.from({ length: 12 }, (_, i) => [
      `Can I use remote number ${i} with the receiver I built myself?`,
      `Yes. Remote ${i} sends the RC-5 protocol, which the home-built receiver decodes. Press a button and watch irw print its name; if nothing shows, check the wiring of pin ${i}.`,
    ]);
    const text = pairs.flat().join('\n\n');
    const chunks = chunkSections([{ heading: 'FAQ', text }]);
    expectWellFormed(chunks);
    expectCovers(text, chunks);
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) {
      const paragraphs = c.content.split('\n\n');
      if (paragraphs.length > 1) expect(paragraphs.at(-1)).not.toMatch(/\?$/);
    }
    for (const [question, answer] of pairs) expect(chunks.some((c) => c.content.includes(`${question}\n\n${answer}`))).toBe(true);
    // A question right after a cut, its answer too long to join it: no chunk of the overlap alone.
    const long = Array.from({ length: 14 }, (_, i) => `Sentence ${i} of a long introduction says one more thing about the remote.`)
      .join(' ')
      .slice(0, 985);
    const answer = Array.from({ length: 15 }, (_, i) => `Answer line ${i} explains how the receiver decodes the signal.`).join(' ');
    expect(long.length + 2 + 'Can I use two remotes at once?'.length).toBeGreaterThan(CHUNK_SIZE);
    expect(answer.length).toBeGreaterThan(CHUNK_SIZE - CHUNK_OVERLAP - 40);
    const cut = chunkSections([{ heading: 'FAQ', text: [long, 'Can I use two remotes at once?', answer].join('\n\n') }]);
    expectWellFormed(cut);
    cut.forEach((c, i) => {
      if (i > 0) expect(cut[i - 1]!.content.includes(c.content)).toBe(false);
    });
  });

  it('splits one giant paragraph without sentence ends at word boundaries', () => {
    const words = Array.from({ length: 3000 }, (_, i) => `word${i}`);
    const text = words.join(' ');
    const chunks = chunkSections([{ heading: null, text }]);
    expectWellFormed(chunks);
    expectCovers(text, chunks);
    for (const c of chunks) {
      // no word cut in half
      for (const w of c.content.split(' ')) expect(w).toMatch(/^word\d+$/);
    }
    expect(chunks.length).toBeGreaterThanOrEqual(Math.ceil(text.length / CHUNK_SIZE));
    expect(chunks.length).toBeLessThan(Math.ceil(text.length / (CHUNK_SIZE - CHUNK_OVERLAP)) + 2);
  });

  it('splits CJK text without spaces at 。！？, and hard-splits a run without any break', () => {
    const jp = Array.from(
      { length: 80 },
      (_, i) => `当社のサービス番号${i}は、お客様の業務を効率化します。料金は月額${i * 1000}円です！ご質問はありますか？`,
    ).join('');
    const chunks = chunkSections([{ heading: 'サービス', text: jp }]);
    expectWellFormed(chunks);
    for (const c of chunks) {
      expect(c.content).toMatch(/^(当社のサービス番号\d+は|料金は月額|ご質問は)/);
      expect(c.content).toMatch(/[。！？]$/);
      expect(c.content).not.toContain(' ');
    }
    const joined = chunks.map((c) => c.content).join('');
    for (let i = 0; i < 80; i++) expect(joined).toContain(`番号${i}は`);

    const run = '漢'.repeat(2500);
    const hard = chunkSections([{ heading: null, text: run }]);
    expectWellFormed(hard);
    expect(hard.map((c) => c.content.length)).toEqual([1000, 1000, 650]);
  });

  it('does not split surrogate pairs', () => {
    const text = '😀'.repeat(1200);
    const chunks = chunkSections([{ heading: null, text }]);
    expectWellFormed(chunks);
    for (const c of chunks) expect(c.content).toMatch(/^(?:😀)+$/u);
  });

  it('keeps each section heading with its chunks and folds short sections into the chunk before', () => {
    const long = Array.from({ length: 30 }, (_, i) => sentence(i)).join(' ');
    const chunks = chunkSections([
      { heading: 'Pricing', text: long },
      { heading: 'Enterprise plan', text: 'Custom pricing with SSO.' },
      { heading: null, text: 'x'.repeat(MIN_SECTION_CHARS) },
      { heading: '  Support\n hours ', text: long },
    ]);
    expectWellFormed(chunks);
    const headings = [...new Set(chunks.map((c) => c.heading))];
    expect(headings).toEqual(['Pricing', null, 'Support hours']);
    const pricingLast = chunks.filter((c) => c.heading === 'Pricing').at(-1)!;
    expect(pricingLast.content).toContain('Enterprise plan\nCustom pricing with SSO.');
    // No overlap across sections: the Support chunks start fresh.
    expect(chunks.find((c) => c.heading === 'Support hours')!.content.startsWith(sentence(0))).toBe(true);
  });

  it('never puts the page title in content; chunkEmbeddingText adds title and heading', () => {
    expect(chunkEmbeddingText('Acme — Pricing', 'Enterprise plan', 'Custom pricing.')).toBe(
      'Acme — Pricing\nEnterprise plan\n\nCustom pricing.',
    );
    expect(chunkEmbeddingText('About', 'About', 'We are Acme.')).toBe('About\n\nWe are Acme.');
    expect(chunkEmbeddingText(null, null, 'Just text.')).toBe('Just text.');
    expect(chunkEmbeddingText('', 'Heading', 'Text')).toBe('Heading\n\nText');
  });

  it('chunks a 1 MB page quickly and deterministically', () => {
    const paragraphs: string[] = [];
    let size = 0;
    for (let i = 0; size < 1_000_000; i++) {
      const p = i % 7 === 0 ? '数据库'.repeat(200) + '。' : Array.from({ length: (i % 9) + 1 }, (_, s) => sentence(i * 10 + s)).join(' ');
      paragraphs.push(p);
      size += p.length + 2;
    }
    const sections = [{ heading: 'Big', text: paragraphs.join('\n\n') }];
    const started = performance.now();
    const chunks = chunkSections(sections);
    const elapsed = performance.now() - started;
    expectWellFormed(chunks);
    expect(chunks.length).toBeGreaterThan(1000);
    expect(chunkSections(sections)).toEqual(chunks);
    // Not a timing assertion: recorded for the report.
    console.info(`chunker: 1 MB → ${chunks.length} chunks in ${elapsed.toFixed(1)} ms`);
  });

  it('holds its invariants for arbitrary text (property)', () => {
    const token = fc.oneof(
      fc.constantFrom('alpha', 'beta', 'Gamma.', 'delta!', 'eps?', '\n', '\n\n', '。', '日本語', '、', '😀', '  ', 'x'.repeat(120)),
      fc.string({ maxLength: 30 }),
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            heading: fc.option(fc.string({ maxLength: 20 })),
            text: fc.array(token, { maxLength: 200 }).map((t) => t.join(' ')),
          }),
          {
            maxLength: 5,
          },
        ),
        (sections) => {
          const chunks = chunkSections(sections);
          expectWellFormed(chunks);
          expect(chunkSections(sections)).toEqual(chunks);
          const sourceChars = sections.reduce((n, s) => n + s.text.replace(/\s/g, '').length, 0);
          const chunkChars = chunks.reduce((n, c) => n + c.content.replace(/\s/g, '').length, 0);
          // Nothing but whitespace is ever dropped (overlap and folded headings only add).
          expect(chunkChars).toBeGreaterThanOrEqual(sourceChars);
        },
      ),
      { numRuns: 300 },
    );
  });
});
