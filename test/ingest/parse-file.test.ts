// The file parsers on files the tests make: the type comes from the bytes, each format gives its
// text in sections, and a broken or foreign file is refused with a reason.
import { parseFile, sniffFileKind, UnparsableFileError, UnsupportedFileError } from '@kbchat/shared/ingest/parse-file';
import { describe, expect, it } from 'vitest';
import { makeDocx, makePdf } from '../support/make-documents.ts';

const enc = (s: string) => new TextEncoder().encode(s);

describe('parseFile', () => {
  it('reads a PDF page by page, with its metadata title, whatever the file is called', async () => {
    const pdf = await makePdf(
      [['Standard plan costs 12 euros a month.'], ['Premium plan costs 30 euros a month and includes phone support.']],
      'Price list 2026',
    );
    expect(sniffFileKind(pdf, 'prices.txt')).toBe('pdf');
    const parsed = await parseFile(pdf, 'prices.txt');
    expect(parsed).toMatchObject({ kind: 'pdf', title: 'Price list 2026', pages: 2 });
    expect(parsed.sections).toHaveLength(2);
    expect(parsed.sections[1]?.text).toContain('Premium plan costs 30 euros');
  });

  it('reads a DOCX into sections at its headings', async () => {
    const docx = await makeDocx(['# Delivery', 'We deliver within 3 working days.', '# Returns', 'Returns are free for 30 days.']);
    const parsed = await parseFile(docx, 'policy.docx');
    expect(parsed.kind).toBe('docx');
    expect(parsed.title).toBe('Delivery');
    expect(parsed.sections).toEqual([
      { heading: 'Delivery', text: 'We deliver within 3 working days.' },
      { heading: 'Returns', text: 'Returns are free for 30 days.' },
    ]);
  });

  it('reads Markdown, HTML and plain text', async () => {
    const md = await parseFile(
      enc('# Guide\n\nSee [the shop](https://x.example) for **hours**.\n\n## Hours\n\nOpen 9 to 5.\n'),
      'guide.md',
    );
    expect(md).toMatchObject({ kind: 'markdown', title: 'Guide' });
    expect(md.sections).toEqual([
      { heading: 'Guide', text: 'See the shop for hours.' },
      { heading: 'Hours', text: 'Open 9 to 5.' },
    ]);
    const html = await parseFile(
      enc(
        '<!doctype html><title>FAQ</title><nav>Home | Shop</nav><h2>Parking</h2><p>Free parking behind the store.</p><script>x()</script>',
      ),
      'faq.bin',
    );
    expect(html).toMatchObject({ kind: 'html', title: 'FAQ', sections: [{ heading: 'Parking', text: 'Free parking behind the store.' }] });
    const text = await parseFile(enc('Our phone line is open on weekdays.'), 'notes');
    expect(text).toMatchObject({ kind: 'text', sections: [{ heading: null, text: 'Our phone line is open on weekdays.' }] });
  });

  it('refuses a broken PDF, a broken DOCX, a binary file and a file without text', async () => {
    const pdf = await makePdf([['Some text that will be cut off.']]);
    await expect(parseFile(pdf.slice(0, 400), 'cut.pdf')).rejects.toBeInstanceOf(UnparsableFileError);
    const docx = await makeDocx(['Hello']);
    await expect(parseFile(docx.slice(0, 200), 'cut.docx')).rejects.toBeInstanceOf(UnparsableFileError);
    await expect(parseFile(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]), 'image.png')).rejects.toBeInstanceOf(UnsupportedFileError);
    await expect(parseFile(enc('   \n\n  '), 'empty.txt')).rejects.toBeInstanceOf(UnparsableFileError);
    await expect(parseFile(await makePdf([[]]), 'blank.pdf')).rejects.toThrow(/no text layer/);
  });
});
