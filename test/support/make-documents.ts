// PDF and DOCX files made by the tests themselves (pdf-lib, docx), so what is uploaded is known.
import { Document, HeadingLevel, Packer, Paragraph } from 'docx';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/** One page per entry; each page's paragraphs are wrapped at about 90 characters a line. */
export async function makePdf(pages: string[][], title?: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  if (title) doc.setTitle(title);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const paragraphs of pages) {
    const page = doc.addPage([595, 842]);
    let y = 800;
    for (const paragraph of paragraphs) {
      for (const line of wrap(paragraph, 90)) {
        page.drawText(line, { x: 40, y, size: 10, font });
        y -= 14;
      }
      y -= 10;
    }
  }
  return doc.save();
}

/** Headings (level 1) and paragraphs, in order: a string starting with "# " is a heading. */
export async function makeDocx(blocks: string[]): Promise<Uint8Array> {
  const doc = new Document({
    sections: [
      {
        children: blocks.map((b) =>
          b.startsWith('# ') ? new Paragraph({ text: b.slice(2), heading: HeadingLevel.HEADING_1 }) : new Paragraph(b),
        ),
      },
    ],
  });
  return new Uint8Array(await Packer.toBuffer(doc));
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}
