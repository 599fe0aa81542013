import { answerForm, createAnswer } from './answers.ts';
import { call, clientPath, describe, isMissing, query } from './api.ts';
import { button, card, field, h, type Row, select, table, text, when } from './dom.ts';
import { fail, say } from './notify.ts';

/**
 * Knowledge gaps: questions the bot declined or visitors rated down, grouped. Each can be dismissed
 * or answered: "Write the answer" creates a curated answer for it; "Add to an answer" makes its
 * wording another way of asking for a curated answer that already says it.
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

  let answers: Row[] = [];

  function addToAnswer(gap: Row): void {
    const wording = String(gap.question ?? '');
    // The answer the wording comes closest to (the server's matcher: closestAnswerId) first and chosen.
    const closest = answers.find((a) => a.answerId === gap.closestAnswerId);
    const ordered = closest ? [closest, ...answers.filter((a) => a !== closest)] : answers;
    const choice = select(ordered.map((a) => [String(a.answerId), a === closest ? `${String(a.question)} (closest)` : String(a.question)]));
    const headingId = `add-${String(gap.gapId)}`;
    const cancel = button('Cancel');
    cancel.addEventListener('click', () => editor.replaceChildren());
    const form = h(
      'form',
      { class: 'card', 'aria-labelledby': headingId },
      h('h3', { id: headingId }, 'Add to an answer'),
      h('p', {}, `“${wording}”`),
      field('Answer', choice, 'The chat gives this answer to questions worded like this one from now on.'),
      h('div', { class: 'row' }, button('Add this wording', 'primary', 'submit'), cancel),
    );
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      try {
        await call('POST', clientPath(clientId, `/answers/${encodeURIComponent(choice.value)}/questions`), { question: wording });
        editor.replaceChildren();
        say('Wording added: the chat answers it with that answer from now on.');
        void reload();
      } catch (err) {
        fail(err);
      }
    });
    editor.replaceChildren(form);
    choice.focus();
  }

  async function reload(): Promise<void> {
    try {
      const params = query({
        from: from.value ? `${from.value}T00:00:00.000Z` : undefined,
        to: to.value ? `${to.value}T23:59:59.999Z` : undefined,
      });
      // The gaps, and the answers a gap's wording can be added to (none: "Add to an answer" is not offered), at once.
      const [{ items }, curated] = await Promise.all([
        call<{ items: Row[] }>('GET', `${base}${params}`),
        call<{ items: Row[] }>('GET', clientPath(clientId, '/answers')).then(
          (r) => r.items,
          () => [],
        ),
      ]);
      answers = curated;
      listBody.replaceChildren(
        table(
          'Knowledge gaps',
          [
            { label: 'Question', cell: (r) => h('span', { class: 'words' }, text(r.question)) },
            { label: 'Asked', cell: (r) => text(r.count) },
            { label: 'Last asked', cell: (r) => when(r.lastAskedAt) },
            { label: 'Why', cell: (r) => h('span', { class: 'nowrap' }, r.reason === 'thumbs-down' ? 'rated down' : 'declined') },
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
                const actions = h('div', { class: 'row tight' }, write);
                if (answers.length > 0) {
                  const attach = button('Add to an answer', '', 'button', { 'aria-label': `Add ${String(r.question)} to an answer` });
                  attach.addEventListener('click', () => addToAnswer(r));
                  actions.append(attach);
                }
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
                actions.append(dismiss);
                return actions;
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
