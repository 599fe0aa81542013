import { answerForm, createAnswer } from './answers.ts';
import { call, clientPath, describe, isMissing, query } from './api.ts';
import { button, card, field, h, type Row, table, text, when } from './dom.ts';
import { fail, say } from './notify.ts';

/**
 * Knowledge gaps: questions the bot declined or visitors rated down, grouped. Each can be dismissed
 * or answered: "Write the answer" creates a curated answer for it.
 */
export function gapsSection(clientId: string, openConversation: (sessionId: string) => void) {
  const base = clientPath(clientId, '/knowledge-gaps');
  const from = h('input', { type: 'date' });
  const to = h('input', { type: 'date' });
  const filters = h(
    'form',
    { class: 'filters', 'aria-label': 'Filter knowledge gaps' },
    field('From', from),
    field('To', to),
    h('div', { class: 'row' }, button('Apply', 'primary', 'submit')),
  );
  const listBody = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  const editor = h('div');
  const el = h('div', { class: 'stack' }, card('Knowledge gaps', filters, listBody), editor);
  filters.addEventListener('submit', (e) => {
    e.preventDefault();
    void reload();
  });

  function writeAnswer(gap: Row): void {
    const form = answerForm({
      title: 'Write the answer',
      initial: { question: String(gap.question ?? '') },
      submitLabel: 'Save as curated answer',
      onCancel: () => editor.replaceChildren(),
      onSubmit: async (body) => {
        await createAnswer(clientId, body);
        editor.replaceChildren();
        say('Curated answer created: the chat answers this question with it from now on.');
        void reload();
      },
    });
    editor.replaceChildren(form);
    form.querySelectorAll('textarea')[1]?.focus();
  }

  async function reload(): Promise<void> {
    try {
      const params = query({
        from: from.value ? `${from.value}T00:00:00.000Z` : undefined,
        to: to.value ? `${to.value}T23:59:59.999Z` : undefined,
      });
      const { items } = await call<{ items: Row[] }>('GET', `${base}${params}`);
      listBody.replaceChildren(
        table(
          'Knowledge gaps',
          [
            { label: 'Question', cell: (r) => text(r.question) },
            { label: 'Asked', cell: (r) => text(r.count) },
            { label: 'Last asked', cell: (r) => when(r.lastAskedAt) },
            { label: 'Why', cell: (r) => (r.reason === 'thumbs-down' ? 'rated down' : 'declined') },
            {
              label: 'Conversations',
              cell: (r) => {
                const ids = Array.isArray(r.sessionIds) ? (r.sessionIds as string[]) : [];
                const box = h('div', { class: 'row tight' });
                ids.slice(0, 5).forEach((id, i) => {
                  const b = button(`#${i + 1}`, 'link', 'button', { 'aria-label': `Conversation ${i + 1} of ${String(r.question)}` });
                  b.addEventListener('click', () => openConversation(id));
                  box.append(b);
                });
                return ids.length ? box : '—';
              },
            },
            {
              label: 'Actions',
              cell: (r) => {
                const write = button('Write the answer', 'primary', 'button', {
                  'aria-label': `Write the answer to ${String(r.question)}`,
                });
                write.addEventListener('click', () => writeAnswer(r));
                const dismiss = button('Dismiss', '', 'button', { 'aria-label': `Dismiss ${String(r.question)}` });
                dismiss.addEventListener('click', async () => {
                  try {
                    await call('POST', `${base}/${encodeURIComponent(String(r.gapId))}/dismiss`);
                    say('Gap dismissed.');
                    void reload();
                  } catch (err) {
                    fail(err);
                  }
                });
                return h('div', { class: 'row tight' }, write, dismiss);
              },
            },
          ],
          items,
          'No knowledge gaps: every question found an answer.',
        ),
      );
    } catch (err) {
      listBody.replaceChildren(
        isMissing(err)
          ? h('p', { class: 'muted empty' }, 'No knowledge gaps to show (this gateway does not report them yet).')
          : h('p', { class: 'alert' }, describe(err)),
      );
    }
  }
  return { el, reload };
}
