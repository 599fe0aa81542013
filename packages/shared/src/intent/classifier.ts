/**
 * Offline lead-intent classifier (DESIGN.md §5): true when the visitor asks to be contacted or
 * called, for a quote / demo / pricing conversation, to talk to a person, or leaves an email or
 * phone number — in English, Spanish, French, German and Portuguese. Hard negatives such as
 * "what is your phone number?" are false.
 * CONTRACT (owner: the "providers" work package), tested on test/fixtures/lead-intent.json.
 * STUB: a few English patterns.
 */
export function detectLeadIntent(message: string): boolean {
  return /\b(call|contact|email) me\b|\bquote\b|\bdemo\b/i.test(message);
}
