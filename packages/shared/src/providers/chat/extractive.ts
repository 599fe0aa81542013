import { asksForDelivery } from '../../chat/delivery-question.ts';
import { asksForPaymentMethod, paymentMethodsUnsaid } from '../../chat/payment-question.ts';
import { namesIn } from '../../chat/ranking.ts';
import { detectLeadIntent, foldForIntent } from '../../intent/classifier.ts';
import { contactOfferReply, dontKnowReply, notMentionedLead, replyLanguage } from './canned-replies.ts';
import type { ChatInput, ChatOutput, ChatPassage, ChatProvider } from './chat-provider.ts';
import { stripCitationMarks } from './citations.ts';
import { composeAnswer } from './extractive-answer.ts';
import { rewriteFollowUp } from './follow-up.ts';

/**
 * The offline answerer: no model, so it answers with the site's own words (extractive-answer.ts
 * picks them), with the lead-intent handling around them.
 */
export const EXTRACTIVE_MODEL = 'extractive-v2';

/** A lead request whose question part covers less than this gets only the contact offer. */
const LEAD_ONLY_COVERAGE = 0.3;

export function composeExtractiveAnswer(input: ChatInput): ChatOutput {
  const lang = replyLanguage(input.message, input.history);
  const leadCaptureIntent = input.contactRequested === true || detectLeadIntent(input.message);
  if (input.passages.length === 0) {
    return {
      answer: leadCaptureIntent ? contactOfferReply(input.clientName, lang) : dontKnowReply(input.clientName, lang),
      usedPassageIds: [],
      leadCaptureIntent,
    };
  }
  const composed = composeAnswer(
    input.query || input.message,
    input.passages,
    input.specificity,
    input.focus ?? input.message,
    input.siteChunks,
  );
  if (leadCaptureIntent && composed.score < LEAD_ONLY_COVERAGE) {
    return { answer: contactOfferReply(input.clientName, lang), usedPassageIds: [], leadCaptureIntent };
  }
  // No whole sentence anywhere (a page of lists or code): its opening words, still cited.
  const first = input.passages[0] as ChatPassage;
  let answer = composed.text || `${stripCitationMarks(first.content).split(/\s+/).slice(0, 60).join(' ')}… [1]`;
  const used = composed.text ? composed.used.map((i) => (input.passages[i] as ChatPassage).id) : [first.id];
  const unnamed = unnamedThings(input.focus ?? input.message, input.passages);
  if (unnamed.length > 0) answer = `${notMentionedLead(unnamed, input.clientName, lang)} ${answer}`;
  if (leadCaptureIntent) answer += `\n\n${contactOfferReply(input.clientName, lang)}`;
  return { answer, usedPassageIds: used, leadCaptureIntent };
}

/**
 * What a question names that no passage found for it names, as typed: the places a question whether the
 * business delivers names ("Do you deliver to *Australia*?"), the ways of paying one how it is paid names
 * ("Can I pay in *bitcoin*?"). A thing the site names is a word of the question the search ranks by, so
 * its pages are among them: the page that says where the business delivers, how it is paid
 * (stated-questions.ts) answers, which the visitor should read as what the site says, not as a yes.
 */
function unnamedThings(message: string, passages: ChatPassage[]): string[] {
  const text = () => passages.map((p) => `${p.title} ${p.heading ?? ''} ${p.content}`).join(' ');
  if (!asksForDelivery(message)) return asksForPaymentMethod(message) ? paymentMethodsUnsaid(message, text()) : [];
  // Accents folded both sides: "México" asked of a page that says "Mexico".
  const said = foldForIntent(text());
  const typed = message.match(/\p{L}+/gu) ?? [];
  return namesIn(message)
    .filter((name) => !said.includes(foldForIntent(name)))
    .map((name) => typed.find((w) => w.toLowerCase() === name) ?? name);
}

export function createExtractiveChatProvider(): ChatProvider {
  return {
    kind: 'extractive',
    model: EXTRACTIVE_MODEL,
    async answer(input) {
      input.signal?.throwIfAborted();
      return composeExtractiveAnswer(input);
    },
    async *stream(input) {
      input.signal?.throwIfAborted();
      const output = composeExtractiveAnswer(input);
      // Word by word, like a model would, so the widget's streaming path is the same for both.
      for (const piece of output.answer.match(/\S+\s*|\s+/g) ?? []) yield { type: 'token', text: piece };
      yield { type: 'done', output };
    },
    async rewriteQuery(message, history) {
      return { query: rewriteFollowUp(message, history) };
    },
  };
}
