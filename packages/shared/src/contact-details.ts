/**
 * Phone numbers and e-mail addresses in a text: what the lead classifier looks for in a visitor's
 * message (intent/classifier.ts) and what the extractive answer keeps with the sentence that
 * introduces it (providers/chat/extractive-answer.ts). Each decides what counts for it; this finds
 * the candidates and leaves out what is surely no phone number: a date, a version, an IPv4 address,
 * fewer than 7 or more than 15 digits.
 */
export interface Found {
  index: number;
  text: string;
}

const EMAIL = /[a-z0-9._%+-]+@([a-z0-9-]+\.)+[a-z]{2,}/gi;
const PHONE_CANDIDATE = /(?:\+|\b00)?\(?\d[\d ()./-]{5,}\d/g;

export function emailsIn(text: string): Found[] {
  return [...text.matchAll(EMAIL)].map((m) => ({ index: m.index ?? 0, text: m[0] }));
}

export function phonesIn(text: string): Found[] {
  const out: Found[] = [];
  for (const m of text.matchAll(PHONE_CANDIDATE)) {
    const raw = m[0];
    const digits = raw.replace(/\D/g, '').length;
    if (digits < 7 || digits > 15) continue;
    if (/^\d{1,3}(\.\d{1,3}){3}$/.test(raw)) continue; // IPv4
    if (/^(\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})$/.test(raw)) continue; // dates
    if (/^\d+(\.\d+){1,3}$/.test(raw) && !/^\d{3}\.\d{3}\.\d{4}$/.test(raw)) continue; // versions
    out.push({ index: m.index ?? 0, text: raw });
  }
  return out;
}

/**
 * Phone numbers as a page gives them to visitors: opening with "+", "00", "0" or "(", or written
 * 555-123-4567 — not a bare run of digits, which is more often an amount or an identifier.
 */
export function listedPhonesIn(text: string): Found[] {
  return phonesIn(text).filter((p) => /^[+0(]/.test(p.text) || /^\d{3}[-.]\d{3}[-.]\d{4}$/.test(p.text));
}
