/**
 * A deliberately small JS minifier (the JSMin idea): drops comments and whitespace, and nothing else
 * — no renaming, no rewriting — so it cannot change what the code means. esbuild/terser are not
 * available at run time without a build step; this gets the served widget to roughly 60% of its
 * readable size, and gzip does the rest.
 *
 * It relies on one property of the sources it is used on (our own, formatted by Biome): every
 * statement ends with a semicolon, so no newline is significant (no ASI hazard). String, template
 * and regular-expression literals are copied byte for byte.
 */

const isWordChar = (c: string | undefined): boolean => c !== undefined && (/[A-Za-z0-9_$\\]/.test(c) || c.charCodeAt(0) > 127);

// After these keywords a `/` starts a regular expression, not a division.
const REGEX_AFTER_WORDS = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
]);

export function minifyJs(source: string): string {
  let out = '';
  let i = 0;
  const n = source.length;
  let pendingSpace = false;
  // The last significant token emitted, to tell a regex from a division.
  let lastWord = '';
  let lastChar = '';

  const emit = (text: string) => {
    if (pendingSpace && out.length > 0) {
      const prev = out[out.length - 1];
      const next = text[0];
      // Keep a space only where removing it would join two tokens: `let x`, `a + +b`, `a - -b`.
      if ((isWordChar(prev) && isWordChar(next)) || (prev === '+' && next === '+') || (prev === '-' && next === '-')) out += ' ';
    }
    pendingSpace = false;
    out += text;
  };

  /** Copies a quoted string starting at i (the quote); returns the index after it. */
  const readString = (start: number): number => {
    const quote = source[start];
    let j = start + 1;
    while (j < n && source[j] !== quote) {
      if (source[j] === '\\') j++;
      else if (source[j] === '\n') throw new Error(`unterminated string literal at ${start}`);
      j++;
    }
    if (j >= n) throw new Error(`unterminated string literal at ${start}`);
    return j + 1;
  };

  /** Copies a template literal, including `${ … }` expressions (nested strings and templates too). */
  const readTemplate = (start: number): number => {
    let j = start + 1;
    while (j < n) {
      const c = source[j];
      if (c === '\\') j += 2;
      else if (c === '`') return j + 1;
      else if (c === '$' && source[j + 1] === '{') {
        j += 2;
        let depth = 1;
        while (j < n && depth > 0) {
          const d = source[j];
          if (d === '{') depth++;
          else if (d === '}') depth--;
          if (depth === 0) break;
          if (d === "'" || d === '"') j = readString(j);
          else if (d === '`') j = readTemplate(j);
          else j++;
        }
        j++;
      } else j++;
    }
    throw new Error(`unterminated template literal at ${start}`);
  };

  const readRegex = (start: number): number => {
    let j = start + 1;
    let inClass = false;
    while (j < n) {
      const c = source[j];
      if (c === '\\') j++;
      else if (c === '[') inClass = true;
      else if (c === ']') inClass = false;
      else if (c === '/' && !inClass) break;
      else if (c === '\n') throw new Error(`unterminated regular expression at ${start}`);
      j++;
    }
    j++;
    while (j < n && /[a-z]/.test(source[j] ?? '')) j++;
    return j;
  };

  const regexAllowed = (): boolean => {
    if (lastWord) return REGEX_AFTER_WORDS.has(lastWord);
    return lastChar === '' || !/[)\]}]/.test(lastChar);
  };

  while (i < n) {
    const c = source[i] as string;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      pendingSpace = true;
      i++;
    } else if (c === '/' && source[i + 1] === '/') {
      while (i < n && source[i] !== '\n') i++;
      pendingSpace = true;
    } else if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      if (end < 0) throw new Error(`unterminated comment at ${i}`);
      i = end + 2;
      pendingSpace = true;
    } else if (c === "'" || c === '"' || c === '`' || (c === '/' && regexAllowed())) {
      const end = c === '`' ? readTemplate(i) : c === '/' ? readRegex(i) : readString(i);
      emit(source.slice(i, end));
      lastWord = '';
      lastChar = ')'; // a literal is a value: a following `/` divides
      i = end;
    } else if (isWordChar(c)) {
      let j = i + 1;
      while (j < n && isWordChar(source[j])) j++;
      // A number such as 1.5e-3 or 0.5: take the fraction and exponent along.
      if (/[0-9]/.test(c)) {
        while (j < n && /[0-9a-zA-Z_.]/.test(source[j] ?? '')) {
          if (/[eE]/.test(source[j] ?? '') && /[+-]/.test(source[j + 1] ?? '')) j++;
          j++;
        }
      }
      const word = source.slice(i, j);
      emit(word);
      lastWord = /^[0-9]/.test(word) ? '' : word;
      lastChar = /^[0-9]/.test(word) ? ')' : word[word.length - 1]!;
      i = j;
    } else {
      emit(c);
      lastWord = '';
      lastChar = c;
      i++;
    }
  }
  return out;
}
