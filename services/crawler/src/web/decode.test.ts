import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { declaredCharset, decodeHtml, encodingForLabel, looksBinary, looksLikeHtml } from './decode.ts';

const page = (head: string, body: string) => `<!DOCTYPE html><html><head>${head}<title>t</title></head><body>${body}</body></html>`;

describe('decodeHtml', () => {
  it('follows BOM, then header, then <meta>, then UTF-8 validity, then windows-1252', () => {
    const text = 'Größe café ☕';
    const utf8 = Buffer.from(page('', text));
    expect(decodeHtml(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8]), 'text/html; charset=iso-8859-1')).toMatchObject({
      charset: 'utf-8',
    });
    expect(decodeHtml(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8])).text.startsWith('<!DOCTYPE')).toBe(true);

    const latin = iconv.encode(page('<meta charset="utf-8">', 'Größe café'), 'latin1');
    // The header wins over <meta>.
    expect(decodeHtml(latin, 'text/html; charset="ISO-8859-1"').text).toContain('Größe café');
    // No declaration at all and not valid UTF-8: windows-1252.
    expect(decodeHtml(iconv.encode(page('', 'Größe café'), 'latin1'))).toMatchObject({ charset: 'windows-1252' });
    // No declaration, valid UTF-8.
    expect(decodeHtml(utf8)).toMatchObject({ charset: 'utf-8', text: expect.stringContaining(text) });
  });

  it.each([
    ['<meta charset="Shift_JIS">', 'shift_jis', '会社概要 データ分析'],
    ['<meta http-equiv="Content-Type" content="text/html; charset=EUC-JP">', 'euc-jp', '東京都千代田区'],
    ['<meta charset=gb2312>', 'gbk', '数据分析公司'],
    ['<meta charset="windows-1251">', 'windows-1251', 'Аналитика данных'],
    ["<meta content='text/html; charset=koi8-r' http-equiv='Content-Type'>", 'koi8-r', 'Привет'],
  ])('reads %s', (meta, charset, words) => {
    const bytes = iconv.encode(page(meta, words), charset);
    const out = decodeHtml(bytes, 'text/html');
    expect(out.charset).toBe(charset);
    expect(out.text).toContain(words);
  });

  it('maps labels the way browsers do', () => {
    expect(encodingForLabel('ISO-8859-1')).toBe('windows-1252');
    expect(encodingForLabel('latin1')).toBe('windows-1252');
    expect(encodingForLabel('us-ascii')).toBe('windows-1252');
    expect(encodingForLabel('x-sjis')).toBe('shift_jis');
    expect(encodingForLabel('"utf-8"')).toBe('utf-8');
    expect(encodingForLabel('no-such-charset')).toBeUndefined();
    // windows-1252 bytes 0x93/0x94 are curly quotes, not C1 controls.
    expect(decodeHtml(Buffer.from([0x93, 0x68, 0x69, 0x94]), 'text/html; charset=iso-8859-1').text).toBe('“hi”');
  });

  it('treats a <meta> claiming UTF-16 as UTF-8, and an unknown label as undeclared', () => {
    expect(decodeHtml(Buffer.from(page('<meta charset="utf-16">', 'héllo')))).toMatchObject({
      charset: 'utf-8',
      text: expect.stringContaining('héllo'),
    });
    expect(decodeHtml(Buffer.from(page('<meta charset="klingon">', 'héllo')))).toMatchObject({ charset: 'utf-8' });
  });

  it('finds the declaration in the XML prolog of XHTML', () => {
    expect(declaredCharset(Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><html>'))).toBe('ISO-8859-1');
  });
});

describe('sniffing', () => {
  it.each([
    ['PNG', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
    ['PDF', [...Buffer.from('%PDF-1.7\n')]],
    ['ZIP', [0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]],
    ['gzip', [0x1f, 0x8b, 0x08, 0x00]],
    ['mp4', [0x00, 0x00, 0x00, 0x18, 0x66, 0x74, 0x79, 0x70]],
    ['NUL bytes', [...Buffer.from('<html>'), 0x00, 0x00, 0x41]],
  ])('%s is binary', (_name, bytes) => {
    expect(looksBinary(Buffer.from(bytes))).toBe(true);
  });

  it('text in any encoding is not binary', () => {
    expect(looksBinary(Buffer.from(page('', 'plain')))).toBe(false);
    expect(looksBinary(iconv.encode(page('', '会社概要'), 'shift_jis'))).toBe(false);
    const iso2022jp = Buffer.concat([
      Buffer.from('<p>'),
      Buffer.from([0x1b, 0x24, 0x42, 0x32, 0x71, 0x3c, 0x52, 0x1b, 0x28, 0x42]),
      Buffer.from('</p>'),
    ]);
    expect(looksBinary(iso2022jp)).toBe(false);
    expect(decodeHtml(iso2022jp, 'text/html; charset=ISO-2022-JP').text).toBe('<p>会社</p>');
    expect(looksBinary(Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode('<html>hi</html>', 'utf-16le')]))).toBe(false);
    expect(looksBinary(Buffer.alloc(0))).toBe(false);
  });

  it('recognises HTML without a Content-Type', () => {
    expect(looksLikeHtml(Buffer.from('\n\n  <!DOCTYPE html><html>'))).toBe(true);
    expect(looksLikeHtml(Buffer.from('\uFEFF<html lang="en">'))).toBe(true);
    expect(looksLikeHtml(Buffer.from('<?xml version="1.0"?><!-- c --><html xmlns="http://www.w3.org/1999/xhtml">'))).toBe(true);
    expect(looksLikeHtml(Buffer.from('{"json": true}'))).toBe(false);
    expect(looksLikeHtml(Buffer.from('<?xml version="1.0"?><urlset>'))).toBe(false);
    expect(looksLikeHtml(Buffer.from('<!-- a -->\n<!-- b --> <html>'))).toBe(true);
    expect(looksLikeHtml(Buffer.from('<!-- never closed <html>'))).toBe(false);
  });

  it('reads a head of comments that never end as expected in linear time (a pattern that backtracked never returned)', () => {
    expect(looksLikeHtml(Buffer.from(`<!--0${'--><!--b'.repeat(60)}`))).toBe(false);
  });
});
