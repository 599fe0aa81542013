import { call, clientPath, describe, query } from './api.ts';
import { button, field, h, nextId, type Row, select, text, when } from './dom.ts';
import { fail, say } from './notify.ts';
import { pagedList } from './paged-list.ts';

/** A day picked in a date input as the ISO instant the API filters on (the start of that day, UTC; `to` its end). */
const dayStart = (v: string) => (v ? `${v}T00:00:00.000Z` : undefined);
const dayEnd = (v: string) => (v ? `${v}T23:59:59.999Z` : undefined);

/** What visitors asked (docs/operators.md): filtered list, transcript with sources and feedback, erasure. */
export function conversationsSection(clientId: string) {
  const base = clientPath(clientId, '/conversations');
  let openSession = '';

  const from = h('input', { type: 'date' });
  const to = h('input', { type: 'date' });
  const q = h('input', { type: 'search', placeholder: 'words in any message' });
  const lead = select([
    ['', 'Any'],
    ['true', 'With a lead'],
    ['false', 'Without a lead'],
  ]);
  const feedback = select([
    ['', 'Any'],
    ['up', 'Rated up'],
    ['down', 'Rated down'],
  ]);
  const filters = h(
    'form',
    { class: 'filters', 'aria-label': 'Filter conversations' },
    field('From', from),
    field('To', to),
    field('Search', q),
    field('Lead', lead),
    field('Feedback', feedback),
    h('div', { class: 'row' }, button('Apply', 'primary', 'submit')),
  );

  const transcript = h('div');
  const list = pagedList({
    title: 'Conversations',
    toolbar: filters,
    empty: 'No conversations match.',
    selected: (r) => r.sessionId === openSession,
    load: async (limit, offset) => {
      const data = await call<{ items: Row[]; total: number }>(
        'GET',
        `${base}${query({ limit, offset, from: dayStart(from.value), to: dayEnd(to.value), q: q.value.trim(), lead: lead.value, feedback: feedback.value })}`,
      );
      return { rows: data.items, total: data.total };
    },
    columns: [
      { label: 'Last active', cell: (r) => when(r.lastMessageAt) },
      {
        label: 'First question',
        cell: (r) => {
          const b = button(text(r.firstQuestion), 'link');
          b.addEventListener('click', () => void open(String(r.sessionId)));
          return b;
        },
      },
      { label: 'Messages', cell: (r) => text(r.messageCount) },
      { label: 'Page', cell: (r) => text(r.pageUrl) },
      { label: 'Lead', cell: (r) => (r.leadCaptured ? 'yes' : 'no') },
      { label: 'Declined', cell: (r) => text(r.declinedCount) },
      {
        label: 'Feedback',
        cell: (r) => {
          const f = (r.feedback ?? {}) as Row;
          return `up ${String(f.up ?? 0)}, down ${String(f.down ?? 0)}`;
        },
      },
    ],
  });
  filters.addEventListener('submit', (e) => {
    e.preventDefault();
    void list.reset();
  });

  function message(m: Row): HTMLElement {
    const who = m.role === 'user' ? 'Visitor' : 'Assistant';
    const item = h(
      'li',
      { class: `msg ${String(m.role)}` },
      h('p', { class: 'who' }, `${who} · ${when(m.createdAt)}`),
      h('p', { class: 'content' }, text(m.content)),
    );
    const sources = Array.isArray(m.sources) ? (m.sources as Row[]) : [];
    if (sources.length) {
      item.append(
        h(
          'div',
          { class: 'src' },
          h('p', {}, 'Sources'),
          h('ol', {}, ...sources.map((s) => h('li', {}, text(s.title), ' ', h('small', { class: 'muted mono' }, text(s.url))))),
        ),
      );
    }
    const notes: string[] = [];
    if (m.declined) notes.push('Declined: no answer from the knowledge base');
    if (m.leadCaptureIntent) notes.push('Offered the contact form');
    if (notes.length) item.append(h('p', { class: 'muted' }, notes.join(' · ')));
    if (m.feedback) {
      item.append(
        h(
          'p',
          { class: `feedback feedback-${String(m.feedback)}`, 'data-feedback': String(m.feedback) },
          `Feedback: ${String(m.feedback)}`,
          ...(m.feedbackComment ? [` — “${String(m.feedbackComment)}”`] : []),
        ),
      );
    }
    return item;
  }

  async function open(sessionId: string): Promise<void> {
    openSession = sessionId;
    const headingId = nextId('h');
    const del = button('Delete conversation', 'danger');
    const box = h(
      'section',
      { class: 'card', 'aria-labelledby': headingId },
      h('h3', { id: headingId, tabindex: '-1' }, 'Transcript'),
      h('p', { class: 'muted' }, 'Session ', h('code', {}, sessionId)),
      h('p', { class: 'muted' }, 'Loading…'),
      h('div', { class: 'row' }, del),
    );
    transcript.replaceChildren(box);
    void list.reload();
    del.addEventListener('click', async () => {
      if (!confirm('Delete this conversation and its messages? A lead the visitor left stays.')) return;
      try {
        await call('DELETE', `${base}/${encodeURIComponent(sessionId)}`);
        transcript.replaceChildren();
        openSession = '';
        say('Conversation deleted.');
        void list.reload();
      } catch (err) {
        fail(err);
      }
    });
    try {
      const data = await call<{ messages: Row[] }>('GET', `${base}/${encodeURIComponent(sessionId)}`);
      box.children[2]?.replaceWith(h('ol', { class: 'transcript' }, ...data.messages.map(message)));
    } catch (err) {
      box.children[2]?.replaceWith(h('p', { class: 'alert' }, describe(err)));
    }
    box.querySelector('h3')?.focus();
  }

  return { el: h('div', { class: 'stack' }, list.el, transcript), reload: list.reload, open };
}
