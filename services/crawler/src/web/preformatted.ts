// A manual page rendered by groff and published as one preformatted block (Postfix's pages, many
// projects' pages made the same way). Its sentences run across hard line breaks at the formatter's
// width, split words with a hyphen at a line's end ("con-" / "figuration") and sit indented — which the
// answer reads as code. Here those lines are read as the paragraphs they are; code examples (lines that
// are no sentence, deeper indentation) keep their lines.

export interface FormattedSection {
  heading: string | null;
  paragraphs: string[];
}

/** A manual page's section name: capitals at the line's start ("NAME", "SYSTEM-WIDE AND USER-LEVEL ALIASING"). */
const SECTION_NAME = /^[A-Z][A-Z0-9]*(?:[ -][A-Z0-9]+)*$/;
/** The running header and footer ("POSTSUPER(1)     POSTSUPER(1)", a date far to the right). */
const RUNNING_LINE = /^\S.*\S {3,}\S|^ {30,}\S/;
/** A line a formatter filled: several words of letters, no code punctuation. */
const PROSE_LINE = /^(?!#|\/\/)(?=(?:.*?[A-Za-z]{2,}[,.;:)'"]?\s+){4})(?!.*[{}|\\]|.*\s=\s|.*;$|.*\s[$#]\s)/;
/** A list item's marker, its text hanging after it: "o ", "1) ", "2. ", "- ", "* ", "• ". */
const LIST_MARKER = /^(?:[o*•-]|\d{1,2}[.)])\s+/;
/** Prose whatever its indentation (an option's description under its name): a filled line, or a sentence. */
const SENTENCE = new RegExp(`${PROSE_LINE.source}|^[A-Z(][^{}=|\\\\]*\\b[a-z]{2,}[^{}=|\\\\]*[.:]$`);
/** How far short of the widest line a filled line may end (a ragged right margin, a long next word). */
const MARGIN = 14;
/** Narrower than this, a block is no formatter's page width. */
const MIN_WIDTH = 60;

/**
 * A whole manual page in one <pre>: its first section name is NAME. Returns its sections, each a list
 * of paragraphs (split at blank lines, lines a formatter filled joined), without the running header
 * and footer; null for any other text.
 */
export function manualPageSections(text: string): FormattedSection[] | null {
  // Most <pre> blocks are code: no line of NAME alone, and nothing to split.
  if (!/^NAME[ \t]*\r?$/m.test(text)) return null;
  const lines = linesOf(text);
  const first = lines.find((l) => l.trim() !== '' && !RUNNING_LINE.test(l));
  if (first !== 'NAME') return null;
  const width = widthOf(lines);
  const sections: FormattedSection[] = [];
  let block: string[] = [];
  const flush = () => {
    const paragraph = refill(block, width);
    if (paragraph && sections.length) sections.at(-1)!.paragraphs.push(paragraph);
    block = [];
  };
  for (const line of lines) {
    if (RUNNING_LINE.test(line)) continue;
    if (SECTION_NAME.test(line)) {
      flush();
      sections.push({ heading: line, paragraphs: [] });
    } else if (line.trim() === '') flush();
    else block.push(line);
  }
  flush();
  return sections.length >= 2 ? sections : null;
}

function linesOf(text: string): string[] {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/\t/g, '        ')
    .split('\n')
    .map((l) => l.trimEnd());
}

function widthOf(lines: string[]): number {
  let w = 0;
  for (const l of lines) if (!RUNNING_LINE.test(l)) w = Math.max(w, l.length);
  return w;
}

/**
 * One block's lines as a paragraph: the block's own indentation dropped, a line the formatter filled
 * joined with the next at its indentation (a word it split with a hyphen made whole), the justified
 * text's double spaces single; a deeper line keeps its line, and when it is no sentence (an example),
 * its extra indentation as no-break spaces.
 */
function refill(block: string[], width: number): string {
  if (block.length === 0) return '';
  const indentOf = (l: string) => l.length - l.trimStart().length;
  const base = Math.min(...block.map(indentOf));
  const out: string[] = [];
  let open = false;
  // Where the filled line's next line starts: its own indentation, or a list item's text's.
  let hanging = -1;
  for (const line of block) {
    const indent = indentOf(line);
    const text = line.trim().replace(/ {2,}/g, ' ');
    const joins = open && indent === hanging;
    if (joins) {
      const last = out.at(-1)!;
      out[out.length - 1] = /[A-Za-z]-$/.test(last) && /^[a-z]/.test(text) ? last.slice(0, -1) + text : `${last} ${text}`;
    } else out.push((SENTENCE.test(text) ? '' : '\u00a0'.repeat(indent - base)) + text);
    open = width >= MIN_WIDTH && line.length >= width - MARGIN && PROSE_LINE.test(text);
    hanging = indent + (joins ? 0 : (LIST_MARKER.exec(line.trim())?.[0].length ?? 0));
  }
  return out.join('\n');
}
