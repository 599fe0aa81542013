import iconv from 'iconv-lite';

/**
 * Bytes → text for fetched HTML, and the sniffing that keeps binaries out (docs/crawling.md "Fetching").
 *
 * Encoding, in the order the HTML standard gives it: a byte-order mark, the Content-Type charset, a
 * <meta charset> / <meta http-equiv="Content-Type"> (or an XML declaration) near the top; with none of
 * them, UTF-8 when the bytes are valid UTF-8, else windows-1252. Labels map as the WHATWG Encoding
 * standard maps them (iso-8859-1, latin1 and us-ascii mean windows-1252; a meta claiming UTF-16 means
 * UTF-8), and iconv-lite decodes (Shift_JIS, EUC-JP, GBK, Big5, KOI8-R, windows-125x…).
 */

const LABEL_ALIASES: Record<string, string> = {
  'iso-8859-1': 'windows-1252',
  iso8859_1: 'windows-1252',
  'iso_8859-1': 'windows-1252',
  latin1: 'windows-1252',
  l1: 'windows-1252',
  'us-ascii': 'windows-1252',
  ascii: 'windows-1252',
  cp1252: 'windows-1252',
  'x-cp1252': 'windows-1252',
  'x-sjis': 'shift_jis',
  sjis: 'shift_jis',
  'shift-jis': 'shift_jis',
  ms_kanji: 'shift_jis',
  'windows-31j': 'shift_jis',
  'x-euc-jp': 'euc-jp',
  gb2312: 'gbk',
  'x-gbk': 'gbk',
  'ks_c_5601-1987': 'euc-kr',
  unicode: 'utf-16le',
  'utf-16': 'utf-16le',
  utf8: 'utf-8',
  'unicode-1-1-utf-8': 'utf-8',
};

/** The encoding name for a charset label (iconv-lite's, or failing that ICU's), or undefined when unknown. */
export function encodingForLabel(label: string | null | undefined): string | undefined {
  if (!label) return undefined;
  const l = label
    .trim()
    .toLowerCase()
    .replace(/^["']|["']$/g, '');
  const mapped = LABEL_ALIASES[l] ?? l;
  if (iconv.encodingExists(mapped)) return mapped;
  try {
    // ISO-2022-JP and a few other stateful encodings are ICU's only.
    return new TextDecoder(mapped).encoding;
  } catch {
    return undefined;
  }
}

function decodeWith(bytes: Uint8Array, encoding: string): string {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  return iconv.encodingExists(encoding) ? iconv.decode(buf, encoding) : new TextDecoder(encoding).decode(buf);
}

export function charsetFromContentType(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*("?)([^";,\s]+)\1/i.exec(contentType ?? '');
  return m ? m[2] : undefined;
}

function bomEncoding(bytes: Uint8Array): { encoding: string; length: number } | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  return undefined;
}

const PRESCAN_BYTES = 4096;

/** The charset a document declares about itself in its first bytes (<meta>, XML declaration). */
export function declaredCharset(bytes: Uint8Array): string | undefined {
  // Only ASCII matters for the declaration; latin1 maps every byte to one character.
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, PRESCAN_BYTES)).toString('latin1');
  const meta = /<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([a-zA-Z0-9_:.+-]+)/i.exec(head);
  if (meta) return meta[1];
  const xml = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([a-zA-Z0-9_:.+-]+)["']/i.exec(head);
  return xml ? xml[1] : undefined;
}

const utf8Strict = new TextDecoder('utf-8', { fatal: true });

export function decodeHtml(bytes: Uint8Array, contentType?: string): { text: string; charset: string } {
  const bom = bomEncoding(bytes);
  if (bom) return { text: decodeWith(bytes.subarray(bom.length), bom.encoding), charset: bom.encoding };

  let encoding = encodingForLabel(charsetFromContentType(contentType));
  if (!encoding) {
    encoding = encodingForLabel(declaredCharset(bytes));
    // A document cannot be read to find it says UTF-16 unless it is ASCII-compatible: it is not UTF-16.
    if (encoding?.startsWith('utf-16')) encoding = 'utf-8';
  }
  if (!encoding) {
    try {
      return { text: utf8Strict.decode(bytes), charset: 'utf-8' };
    } catch {
      encoding = 'windows-1252';
    }
  }
  if (encoding === 'utf-8') return { text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8'), charset: 'utf-8' };
  return { text: decodeWith(bytes, encoding), charset: encoding };
}

// Signatures of formats that are never HTML, whatever the server says.
const MAGIC: [number, number[]][] = [
  [0, [0x89, 0x50, 0x4e, 0x47]], // PNG
  [0, [0x47, 0x49, 0x46, 0x38]], // GIF8
  [0, [0xff, 0xd8, 0xff]], // JPEG
  [0, [0x25, 0x50, 0x44, 0x46, 0x2d]], // %PDF-
  [0, [0x50, 0x4b, 0x03, 0x04]], // ZIP, docx, xlsx, jar
  [0, [0x50, 0x4b, 0x05, 0x06]], // empty ZIP
  [0, [0x1f, 0x8b]], // gzip
  [0, [0x42, 0x5a, 0x68]], // bzip2
  [0, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]], // xz
  [0, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]], // 7z
  [0, [0x52, 0x61, 0x72, 0x21]], // Rar!
  [0, [0x7f, 0x45, 0x4c, 0x46]], // ELF
  [0, [0x52, 0x49, 0x46, 0x46]], // RIFF (webp, wav, avi)
  [0, [0x4f, 0x67, 0x67, 0x53]], // OggS
  [0, [0x49, 0x44, 0x33]], // ID3 (mp3)
  [0, [0x77, 0x4f, 0x46, 0x46]], // wOFF
  [0, [0x77, 0x4f, 0x46, 0x32]], // wOF2
  [0, [0x00, 0x61, 0x73, 0x6d]], // wasm
  [0, [0xd0, 0xcf, 0x11, 0xe0]], // OLE (doc, xls)
  [4, [0x66, 0x74, 0x79, 0x70]], // ....ftyp (mp4, mov, heic)
];

/** True when the first bytes are a known binary format or do not look like text at all. */
export function looksBinary(bytes: Uint8Array): boolean {
  for (const [offset, sig] of MAGIC) {
    if (bytes.length >= offset + sig.length && sig.every((b, i) => bytes[offset + i] === b)) return true;
  }
  if (bomEncoding(bytes)?.encoding.startsWith('utf-16')) return false;
  const n = Math.min(bytes.length, 1024);
  let control = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if (b === 0) return true;
    // C0 controls other than tab, LF, FF, CR and ESC (ISO-2022-JP uses ESC) do not occur in text.
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0c && b !== 0x0d && b !== 0x1b) control++;
  }
  return n > 0 && control / n > 0.05;
}

/** For a response without a usable Content-Type: does it start like an HTML document? */
export function looksLikeHtml(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024))
    .toString('latin1')
    .replace(/^\uFEFF|^\xEF\xBB\xBF/, '')
    .trimStart()
    .toLowerCase();
  // Past an XML declaration and comments, by a scan: as one pattern, /^(?:<!--[\s\S]*?-->\s*)*</ backtracks
  // exponentially on comments that never end as it expects ("<!--0" then "--><!--b" again and again: 30
  // repeats held the crawler for seconds, the 1,024 characters read here for ever).
  let at = 0;
  const skipSpace = () => {
    while (at < head.length && /\s/.test(head[at] as string)) at++;
  };
  if (head.startsWith('<?xml')) {
    const end = head.indexOf('>', at);
    if (end < 0) return false;
    at = end + 1;
    skipSpace();
  }
  while (head.startsWith('<!--', at)) {
    const end = head.indexOf('-->', at + 4);
    if (end < 0) return false;
    at = end + 3;
    skipSpace();
  }
  return /^<(?:!doctype html|html|head|body|title|meta|div|p\b|h1|script)/.test(head.slice(at));
}
