import { boundedMemo } from '../../memo.ts';
import { porterStem } from './porter-stemmer.ts';

/**
 * The one tokeniser behind the local embedder, the extractive answerer and the follow-up heuristic,
 * so that "matching" means the same thing at indexing time and at question time.
 * Changing what it emits changes stored vectors: bump LOCAL_EMBEDDING_MODEL when you do.
 */

export interface Term {
  /** Lower-cased, accents folded ("memória" → "memoria"). */
  surface: string;
  /** Porter stem of surface (unchanged for non-ASCII words and numbers). */
  stem: string;
  stop: boolean;
  /** Sub-word of a camelCase / PascalCase identifier, emitted after the whole word. */
  part: boolean;
}

// Function words of the five widget languages. Kept as data rather than dropped outright: they are
// down-weighted, because "how do I" carries little meaning but "to be or not" is all stop words.
const STOP_WORDS = new Set(
  [
    // English
    'a about above after again against all also am an and any are aren as at be because been before being below between both but by',
    'can cannot could did didn do does doesn doing don down during each else etc even ever every few for from further get gets got had',
    'has hasn have haven having he her here hers herself him himself his how however i if in into is isn it its itself just let lets like',
    'll may me might mine more most much must my myself no nor not now of off on once only or other our ours ourselves out over own per',
    're really same shall she should so some such than that the their theirs them themselves then there these they this those through',
    'to too under until up upon us use used using ve very via want wants was wasn way we were weren what when where whether which while',
    'who whom whose why will with within without won would yes yet you your yours yourself yourselves s t d m o y',
    // The same contractions typed without the apostrophe ("whats", "dont", "im"), and chat's "pls", "u", "ur".
    'whats hows wheres whens whos whys thats theres heres dont doesnt didnt cant couldnt wouldnt shouldnt isnt arent wasnt werent',
    'hasnt havent im ive youre youve weve theyre pls plz u ur',
    // Prepositions of place the list above lacks ("is the school *near* the station?", "parking *nearby*").
    'near nearby around toward towards onto among beside',
    // Spanish
    'al algo como con cual cuando de del donde el ella ellos en entre era es esa ese eso esta estan este esto hay la las le les lo los mas',
    'me mi mis muy nos o para pero por que quien se si sin sobre su sus tambien te tengo tiene tu un una uno unos y ya yo',
    // …and the verbs its questions ask with ("¿Puedo pagar con Bizum?", "¿Tenéis parking?"), accents folded.
    'puedo puede pueden podeis podemos teneis tienen haceis hacen hace',
    // French
    'au aux avec ce ces cette dans des du elle est et il ils je la le les leur lui ma mais mes mon ne nous ou par pas pour qu que qui sa',
    'se ses son sont sur ta te tes ton tu un une vos votre vous puis peux peut pouvez avez faites',
    // German
    'aber als am an auch auf aus bei bis bitte das dass dem den der des die doch du ein eine einem einen einer es fur hat ich ihr im',
    'in ist ja kann mich mir mit nach nicht noch oder sich sie sind so uber um und uns von vor was wie wir wird zu zum zur',
    // Portuguese
    'ao aos as com da das de do dos e ela ele em entre esta isso mas meu minha na nas no nos o os ou para pela pelo por qual quando que se',
    'seu sua tem um uma voce posso pode podem fazem',
  ]
    .join(' ')
    .split(' '),
);

export function isStopWord(surface: string): boolean {
  return STOP_WORDS.has(surface);
}

// Marks belong to their word: Thai and Devanagari vowel signs are combining marks. Words joined by
// hyphens ("Wi-Fi", "check-in") are matched whole, to be taken apart below.
const WORD = /[\p{L}\p{N}\p{M}]+(?:-[\p{L}\p{N}\p{M}]+)*/gu;
const TWO_PIECES = /^[\p{L}\p{M}]+-[\p{L}\p{M}]+$/u;
// Boundaries inside identifiers: deepStrictEqual → deep|Strict|Equal, HTTPServer → HTTP|Server.
const CAMEL = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;

const NON_ASCII = /[^\x20-\x7e\t\n\r]/;

/** Whether the analyser folds anything in the text: a character past printable ASCII ("é" → "e"). */
export function needsFolding(text: string): boolean {
  return NON_ASCII.test(text);
}

/**
 * The letters every word stemming to `stem` holds, in a text the analyser folds nothing of: a Porter
 * stem opens with its word's letters but for its last three at most (a suffix rewritten: "mobility" →
 * "mobl"), and a camelCase word's parts are substrings of it.
 */
export function stemOpening(stem: string): string {
  return stem.slice(0, Math.max(2, stem.length - 3));
}

// Accents go only from Latin letters ("memória" → "memoria"): in other scripts a combining mark
// changes the letter (Japanese デ is テ plus a voicing mark), so NFC puts those back together.
const LATIN_MARKS = /(\p{Script=Latin})\p{M}+/gu;

function fold(text: string): string {
  return needsFolding(text) ? text.normalize('NFKD').replace(LATIN_MARKS, '$1').normalize('NFC') : text;
}

// Stemming is the costliest step and vocabularies are small: remember each word's stem.
const stemOf = boundedMemo(100_000, porterStem);

function makeTerm(surface: string, part: boolean): Term {
  return { surface, stem: stemOf(surface), stop: STOP_WORDS.has(surface), part };
}

// Scripts written without spaces: a "word" match there is a whole phrase or sentence. Script
// extensions, so marks shared between scripts (the Katakana-Hiragana prolonged sound mark ー) count too.
const UNSPACED_SCRIPTS = '\\p{scx=Han}\\p{scx=Hiragana}\\p{scx=Katakana}\\p{scx=Thai}\\p{scx=Lao}\\p{scx=Khmer}\\p{scx=Myanmar}';
const UNSPACED = new RegExp(`[${UNSPACED_SCRIPTS}]`, 'u');
const UNSPACED_RUNS = new RegExp(`[${UNSPACED_SCRIPTS}]+|[^${UNSPACED_SCRIPTS}]+`, 'gu');

/** Overlapping character bigrams, the usual index unit for unsegmented text ("東京都" → 東京, 京都). */
function unspacedTerms(run: string, out: Term[]) {
  const chars = [...run];
  if (chars.length === 1) out.push({ surface: run, stem: run, stop: false, part: false });
  for (let i = 0; i + 1 < chars.length; i++) {
    const bigram = chars[i]! + chars[i + 1]!;
    out.push({ surface: bigram, stem: bigram, stop: false, part: false });
  }
}

/**
 * Words of the text in order. A camelCase identifier yields the whole word and then its parts,
 * so "deepStrictEqual" matches both itself and "strict equal"; so does a hyphenated word ("wifi", "wi", "fi"). Chinese, Japanese, Thai and similar
 * runs yield character bigrams.
 */
export function analyze(text: string): Term[] {
  const out: Term[] = [];
  for (const match of fold(text).matchAll(WORD)) {
    const raw = match[0];
    if (UNSPACED.test(raw)) {
      for (const run of raw.match(UNSPACED_RUNS) ?? []) {
        if (UNSPACED.test(run)) unspacedTerms(run, out);
        else out.push(...analyze(run));
      }
      continue;
    }
    // A word of two hyphened pieces of letters is the word written without its hyphen, then its pieces
    // as parts (as a camelCase identifier's): "Wi-Fi" meets "wifi", and "fi" alone counts a little. Other
    // hyphened runs (an option's name, a date) are their pieces, each a word.
    if (raw.includes('-')) {
      if (TWO_PIECES.test(raw)) {
        out.push(makeTerm(raw.replace('-', '').toLowerCase(), false));
        for (const piece of raw.split('-')) out.push(makeTerm(piece.toLowerCase(), true));
      } else out.push(...analyze(raw.replaceAll('-', ' ')));
      continue;
    }
    const word = raw.toLowerCase();
    out.push(makeTerm(word, false));
    if (raw.length > 3 && raw !== word && raw !== raw.toUpperCase()) {
      const parts = raw.split(CAMEL);
      if (parts.length > 1) for (const p of parts) out.push(makeTerm(p.toLowerCase(), true));
    }
  }
  return out;
}

/** Distinct content stems of a text (stop words and camelCase parts excluded). */
export function keyStems(text: string): Set<string> {
  const out = new Set<string>();
  for (const t of analyze(text)) if (!t.stop && !t.part) out.add(t.stem);
  return out;
}

/** True when a and b differ by one edit (insert, delete, substitute, swap): "strng" ≈ "string". */
export function oneEditApart(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1 || a === b) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/**
 * True when `typed` is `word` with one letter left out, not its last ("strng" for "string",
 * "memri" for "memori"): the commonest typing slip. A missing last letter is left out of it
 * because stems differ that way ("offic" office, "offici" official).
 */
export function missesOneLetter(typed: string, word: string): boolean {
  if (word.length !== typed.length + 1) return false;
  let i = 0;
  while (i < typed.length && typed[i] === word[i]) i++;
  return i < typed.length && /\p{L}/u.test(word[i] as string) && word.slice(i + 1) === typed.slice(i);
}
