import { sendFeedback } from './chat-api.ts';
import { h, icon } from './dom.ts';
import { t } from './strings.ts';

export type Rating = 'up' | 'down';

const THUMB_UP =
  'M2 21h4V9H2v12zm20-11a2 2 0 0 0-2-2h-6.3l1-4.6v-.3c0-.4-.2-.8-.4-1.1L13.2 1 6.6 7.6c-.4.3-.6.8-.6 1.4v10a2 2 0 0 0 2 2h9c.8 0 1.5-.5 1.8-1.2l3-7.1c.1-.2.2-.5.2-.7v-2z';
const THUMB_DOWN =
  'M22 3h-4v12h4V3zM2 14a2 2 0 0 0 2 2h6.3l-1 4.6v.3c0 .4.2.8.4 1.1l1.1 1 6.6-6.6c.4-.3.6-.8.6-1.4V5a2 2 0 0 0-2-2H7c-.8 0-1.5.5-1.8 1.2l-3 7.1c-.1.2-.2.5-.2.7v2z';

export interface FeedbackContext {
  api: string;
  clientId: string;
  sessionId(): string | undefined;
  /** Keeps the rating with the answer in the tab's transcript, so a reload shows it pressed. */
  remember(messageId: string, rating: Rating): void;
}

/**
 * Thumbs up / down under an answer: two toggle buttons (aria-pressed) in a labelled group. The
 * latest rating wins on the server, so changing one's mind is just another click.
 */
export function feedbackButtons(ctx: FeedbackContext, messageId: string, rated?: Rating): HTMLElement {
  const make = (rating: Rating, label: string, d: string) =>
    h('button', { type: 'button', 'aria-label': label, 'aria-pressed': String(rated === rating), 'data-rating': rating }, icon(d));
  const up = make('up', t().helpful, THUMB_UP);
  const down = make('down', t().notHelpful, THUMB_DOWN);
  const group = h('div', { class: 'fb', role: 'group', 'aria-label': t().rate }, up, down);
  // Not disabled while sending: a disabled button would drop the keyboard focus.
  let pending = false;
  group.addEventListener('click', async (e) => {
    const button = (e.target as Element).closest('button');
    const sessionId = ctx.sessionId();
    if (!button || !sessionId || pending) return;
    const rating = button.dataset.rating as Rating;
    pending = true;
    const ok = await sendFeedback(ctx.api, { clientId: ctx.clientId, sessionId, messageId, rating });
    pending = false;
    if (!ok) return;
    up.setAttribute('aria-pressed', String(rating === 'up'));
    down.setAttribute('aria-pressed', String(rating === 'down'));
    ctx.remember(messageId, rating);
  });
  return group;
}
