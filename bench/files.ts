// Issue 18's file figure: the parse time of a 100-page PDF (unpdf), against reading the same text
// from a plain-text file in the same run, and the chunks it gives. The PDF is made here with pdf-lib.
import { chunkSections } from '@kbchat/shared/crawl/chunker';
import { parseFile } from '@kbchat/shared/ingest/parse-file';
import { makePdf } from '../test/support/make-documents.ts';
import { log, round } from './lib/env.ts';
import type { PartResult } from './lib/report.ts';

const WORDS = 'price plan month user support delivery warranty return invoice account order refund shipping contract renewal'.split(' ');

function pageText(page: number): string[] {
  return Array.from({ length: 6 }, (_, p) => {
    const words = Array.from({ length: 60 }, (_, i) => WORDS[(page * 7 + p * 13 + i * 3) % WORDS.length]);
    return `Section ${page + 1}.${p + 1}: ${words.join(' ')}.`;
  });
}

async function median(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)] as number;
}

export async function filesBench(options: { pages: number; runs: number }): Promise<PartResult> {
  const pages = Array.from({ length: options.pages }, (_, i) => pageText(i));
  const pdf = await makePdf(pages, 'Bench document');
  const text = new TextEncoder().encode(pages.map((p) => p.join('\n\n')).join('\n\n'));
  log(`files: ${options.pages}-page PDF of ${pdf.byteLength} bytes, ${options.runs} runs each`);
  const parsed = await parseFile(pdf, 'bench.pdf');
  const chunks = chunkSections(parsed.sections).length;
  const pdfMs = await median(options.runs, () => parseFile(pdf, 'bench.pdf'));
  const textMs = await median(options.runs, () => parseFile(text, 'bench.txt'));
  return {
    part: 'files',
    title: `18. Parse a ${options.pages}-page PDF (unpdf)`,
    oursLabel: `parseFile on the PDF (${round(pdf.byteLength / 1024)} KB)`,
    baselineLabel: 'parseFile on the same text as a .txt file',
    rows: [
      { metric: 'ms to parse (median)', ours: round(pdfMs), baseline: round(textMs, 2), ratio: round(pdfMs / textMs) },
      { metric: 'pages / sections', ours: `${parsed.pages} / ${parsed.sections.length}`, baseline: '—' },
      { metric: 'chunks', ours: chunks, baseline: chunkSections([{ heading: null, text: new TextDecoder().decode(text) }]).length },
    ],
    notes: ['The ratio is PDF time / plain-text time (how much the PDF format costs over its text).'],
    details: { pdfBytes: pdf.byteLength, runs: options.runs },
  };
}
