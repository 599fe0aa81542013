import { Parser } from 'htmlparser2';
import { extractText, getDocumentProxy, getMeta } from 'unpdf';
import type { PageSection } from '../crawl/chunker.ts';

/**
 * Text and sections of an uploaded file (docs/sources.md). The type is sniffed from the bytes, never
 * taken from the name or the declared content type alone: `%PDF-` is a PDF, a zip holding
 * word/document.xml is a DOCX, valid UTF-8 without NUL bytes is text — HTML when it starts like a
 * document, Markdown when it is named .md or has Markdown headings, plain text otherwise. Each format
 * goes through a well-kept parser (unpdf for PDF, mammoth for DOCX, htmlparser2 for HTML) into
 * sections (a heading and its text) that the crawler's chunker cuts like any page.
 */
export type FileKind = 'pdf' | 'docx' | 'html' | 'markdown' | 'text';

export interface ParsedFile {
  kind: FileKind;
  /** The document's own title (PDF metadata, first heading), else '' (the caller falls back to the file name). */
  title: string;
  sections: PageSection[];
  /** PDF pages, when a PDF. */
  pages?: number;
}

/** The file is not one of the supported types. */
export class UnsupportedFileError extends Error {}
/** The file claims a supported type but cannot be read (broken, encrypted, no text). */
export class UnparsableFileError extends Error {}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function sniffFileKind(bytes: Uint8Array, fileName = ''): FileKind | undefined {
  const head = Buffer.from(bytes.subarray(0, 1024)).toString('latin1');
  if (head.includes('%PDF-')) return 'pdf';
  if (head.startsWith('PK\u0003\u0004')) {
    // A zip is a DOCX when it holds Word's document part (or, cut short, is named like one: then it is a broken DOCX).
    return Buffer.from(bytes).includes('word/') || /\.docx$/i.test(fileName) ? 'docx' : undefined;
  }
  if (bytes.includes(0)) return undefined;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return undefined;
  }
  const start = text
    .replace(/^\uFEFF/, '')
    .trimStart()
    .slice(0, 200)
    .toLowerCase();
  if (/^(<!doctype html|<html|<head|<body)/.test(start) || /\.html?$/i.test(fileName)) return 'html';
  if (/\.(md|markdown)$/i.test(fileName) || /^#{1,6} \S/m.test(text)) return 'markdown';
  return 'text';
}

export async function parseFile(bytes: Uint8Array, fileName = ''): Promise<ParsedFile> {
  const kind = sniffFileKind(bytes, fileName);
  if (!kind) throw new UnsupportedFileError('not a PDF, DOCX, HTML, Markdown or UTF-8 text file');
  const parsed = await parseAs(kind, bytes);
  if (!parsed.sections.some((s) => s.text.trim().length > 0)) {
    throw new UnparsableFileError(
      kind === 'pdf' ? 'the PDF has no text layer (a scan? text recognition is not supported)' : 'the file has no readable text',
    );
  }
  return parsed;
}

async function parseAs(kind: FileKind, bytes: Uint8Array): Promise<ParsedFile> {
  switch (kind) {
    case 'pdf':
      return parsePdf(bytes);
    case 'docx': {
      let html: string;
      try {
        // Loaded on the first DOCX: ~20 MB the service does not hold until a DOCX comes.
        const { default: mammoth } = await import('mammoth');
        html = (await mammoth.convertToHtml({ buffer: Buffer.from(bytes) })).value;
      } catch (err) {
        throw new UnparsableFileError(`the DOCX could not be read (${(err as Error).message.slice(0, 200)})`);
      }
      return { kind, ...htmlSections(html) };
    }
    case 'html':
      return { kind, ...htmlSections(decodeText(bytes)) };
    case 'markdown':
      return { kind, ...markdownSections(decodeText(bytes)) };
    case 'text':
      return { kind, title: '', sections: [{ heading: null, text: decodeText(bytes) }] };
  }
}

function decodeText(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    throw new UnparsableFileError('the file is not valid UTF-8 text');
  }
}

async function parsePdf(bytes: Uint8Array): Promise<ParsedFile> {
  try {
    // pdf.js takes ownership of the buffer it is given: a copy keeps the caller's bytes (stored as the source's file).
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    const [{ totalPages, text }, meta] = await Promise.all([extractText(pdf, { mergePages: false }), getMeta(pdf).catch(() => undefined)]);
    const info = (meta?.info ?? {}) as { Title?: unknown };
    const title = typeof info.Title === 'string' ? info.Title.trim().slice(0, 300) : '';
    // A page is a section without a heading: short pages fold into the chunk before them.
    const sections = (text as string[]).map((page) => ({ heading: null, text: reflowPdfText(page) }));
    await pdf.cleanup();
    return { kind: 'pdf', title, sections, pages: totalPages };
  } catch (err) {
    if (err instanceof UnparsableFileError) throw err;
    throw new UnparsableFileError(`the PDF could not be read (${(err as Error).message.slice(0, 200)})`);
  }
}

/**
 * pdf.js gives a page's text line by line, as typeset: lines are joined back into paragraphs (a
 * sentence wrapped over two lines is one sentence again), a line that ends a sentence and is short
 * next to the page's longest ends its paragraph, and a word hyphenated at a line end is rejoined.
 */
export function reflowPdfText(page: string): string {
  const lines = page.split(/\r?\n/).map((l) => l.replace(/\s+/g, ' ').trim());
  const longest = Math.max(0, ...lines.map((l) => l.length));
  const paragraphs: string[] = [];
  let current = '';
  for (const [i, line] of lines.entries()) {
    if (!line) {
      if (current) paragraphs.push(current);
      current = '';
      continue;
    }
    if (!current) current = line;
    else if (/[a-z]-$/.test(current) && /^[a-z]/.test(line)) current = `${current.slice(0, -1)}${line}`;
    else current = `${current} ${line}`;
    const next = lines[i + 1] ?? '';
    const endsSentence = /[.!?:;)]["'”’]?$/.test(line);
    if (endsSentence && (line.length < longest * 0.8 || /^[-•*–\d]/.test(next))) {
      paragraphs.push(current);
      current = '';
    }
  }
  if (current) paragraphs.push(current);
  return paragraphs.join('\n\n');
}

const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'nav', 'header', 'footer', 'head', 'iframe', 'form']);
const BLOCKS = new Set(['p', 'div', 'li', 'tr', 'pre', 'blockquote', 'section', 'article', 'table', 'ul', 'ol', 'dd', 'dt', 'br', 'hr']);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4']);

/** Sections of an HTML document: a new one at each h1–h4; what is never content is left out. */
export function htmlSections(html: string): { title: string; sections: PageSection[] } {
  const sections: PageSection[] = [];
  let current: { heading: string | null; parts: string[] } = { heading: null, parts: [] };
  let title = '';
  let inTitle = false;
  let skipDepth = 0;
  let heading: string[] | undefined;
  const flush = () => {
    const text = current.parts
      .join('')
      .replace(/[ \t]+/g, ' ')
      .replace(/\n[ \t]+/g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
    if (text) sections.push({ heading: current.heading, text });
  };
  const parser = new Parser(
    {
      onopentag(name) {
        if (name === 'title') inTitle = true;
        if (SKIPPED.has(name)) skipDepth++;
        else if (skipDepth === 0 && HEADINGS.has(name)) heading = [];
        else if (skipDepth === 0 && BLOCKS.has(name)) current.parts.push('\n\n');
      },
      ontext(text) {
        if (inTitle) {
          title += text;
          return;
        }
        if (skipDepth > 0) return;
        if (heading) heading.push(text);
        else current.parts.push(text);
      },
      onclosetag(name) {
        if (name === 'title') inTitle = false;
        if (SKIPPED.has(name)) skipDepth = Math.max(0, skipDepth - 1);
        else if (skipDepth === 0 && HEADINGS.has(name) && heading) {
          const text = heading.join('').replace(/\s+/g, ' ').trim();
          heading = undefined;
          if (!text) return;
          flush();
          current = { heading: text, parts: [] };
          if (name === 'h1' && !title.trim()) title = text;
        } else if (skipDepth === 0 && BLOCKS.has(name)) current.parts.push('\n\n');
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  flush();
  return { title: title.replace(/\s+/g, ' ').trim().slice(0, 300), sections };
}

/** Sections of a Markdown document: a new one at each heading; links, images and emphasis read as their text. */
export function markdownSections(markdown: string): { title: string; sections: PageSection[] } {
  const sections: PageSection[] = [];
  let current: { heading: string | null; lines: string[] } = { heading: null, lines: [] };
  let title = '';
  let fenced = false;
  const flush = () => {
    const text = current.lines
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
    if (text) sections.push({ heading: current.heading, text });
  };
  for (const line of markdown.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    const h = fenced ? null : /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(line);
    if (h) {
      flush();
      const text = inlineMarkdown(h[2] as string);
      current = { heading: text, lines: [] };
      if ((h[1] as string).length === 1 && !title) title = text;
      continue;
    }
    current.lines.push(fenced ? line : inlineMarkdown(line.replace(/^\s{0,3}>\s?/, '')));
  }
  flush();
  return { title: title.slice(0, 300), sections };
}

function inlineMarkdown(line: string): string {
  return line
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=[\s).,;:!?]|$)/g, '$1$2')
    .replace(/`([^`]+)`/g, '$1');
}
