import { call, clientPath, describe, isMissing } from './api.ts';
import { button, card, field, h, nextId, type Row, table, text, when } from './dom.ts';
import { fail, say } from './notify.ts';

export interface AnswerBody {
  question: string;
  alternateQuestions: string[];
  answer: string;
  url?: string | null;
}

/** A question with the operator's answer: create (from scratch or from a knowledge gap) or edit. */
export function answerForm(opts: {
  title: string;
  initial?: { question?: string; alternateQuestions?: string[]; answer?: string; url?: string | null };
  submitLabel: string;
  onSubmit(body: AnswerBody): Promise<void>;
  onCancel?(): void;
}): HTMLFormElement {
  const question = h('textarea', { required: '', maxlength: '500' });
  question.value = opts.initial?.question ?? '';
  const alternates = h('textarea', {});
  alternates.value = (opts.initial?.alternateQuestions ?? []).join('\n');
  const answer = h('textarea', { required: '', class: 'tall', maxlength: '4000' });
  answer.value = opts.initial?.answer ?? '';
  const url = h('input', { type: 'url', placeholder: 'https://www.example.com/page' });
  url.value = opts.initial?.url ?? '';
  const headingId = nextId('h');
  const actions = h('div', { class: 'row' }, button(opts.submitLabel, 'primary', 'submit'));
  if (opts.onCancel) {
    const cancel = button('Cancel');
    cancel.addEventListener('click', () => opts.onCancel?.());
    actions.append(cancel);
  }
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': headingId },
    h('h3', { id: headingId }, opts.title),
    field('Question', question),
    field(
      'Other ways of asking',
      alternates,
      'Optional, one per line: wordings visitors use that share no words with the question ("can I get online here" for "Do you have free Wi-Fi?").',
    ),
    field('Answer', answer),
    field('Link', url, 'Optional: the page the answer cites.'),
    actions,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      await opts.onSubmit({
        question: question.value.trim(),
        alternateQuestions: alternates.value
          .split('\n')
          .map((line) => line.trim())
          .filter(Boolean),
        answer: answer.value.trim(),
        url: url.value.trim() || undefined,
      });
    } catch (err) {
      fail(err);
    }
  });
  return form;
}

export function createAnswer(clientId: string, body: AnswerBody): Promise<Row> {
  return call('POST', clientPath(clientId, '/answers'), body);
}

/** The other wordings of an answer's question, one per line. */
function alsoAskedAs(v: unknown): Node | string {
  const list = Array.isArray(v) ? (v as string[]) : [];
  return list.length ? h('ul', { class: 'plain' }, ...list.map((q) => h('li', {}, q))) : '—';
}

/** Curated answers: what the chat answers with first when a visitor asks one of these questions. */
export function answersSection(clientId: string) {
  const base = clientPath(clientId, '/answers');
  const listBody = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  const editor = h('div');
  const list = card('Curated answers', listBody);

  async function reload(): Promise<void> {
    try {
      const { items } = await call<{ items: Row[] }>('GET', base);
      listBody.replaceChildren(
        table(
          'Curated answers',
          [
            { label: 'Question', cell: (r) => h('span', { class: 'words' }, text(r.question)) },
            { label: 'Also asked as', cell: (r) => alsoAskedAs(r.alternateQuestions) },
            { label: 'Answer', cell: (r) => h('span', { class: 'clip' }, text(r.answer)) },
            { label: 'Link', cell: (r) => text(r.url) },
            { label: 'Updated', cell: (r) => when(r.updatedAt) },
            {
              label: 'Actions',
              cell: (r) => {
                const edit = button('Edit', '', 'button', { 'aria-label': `Edit the answer to ${String(r.question)}` });
                edit.addEventListener('click', () => openEditor(r));
                const del = button('Delete', 'danger', 'button', { 'aria-label': `Delete the answer to ${String(r.question)}` });
                del.addEventListener('click', async () => {
                  if (!confirm('Delete this curated answer?')) return;
                  try {
                    await call('DELETE', `${base}/${encodeURIComponent(String(r.answerId))}`);
                    say('Answer deleted.');
                    void reload();
                  } catch (err) {
                    fail(err);
                  }
                });
                return h('div', { class: 'row tight' }, edit, del);
              },
            },
          ],
          items,
          'No curated answers yet. Write one below, or from a knowledge gap.',
        ),
      );
    } catch (err) {
      listBody.replaceChildren(
        isMissing(err)
          ? h('p', { class: 'muted empty' }, 'No curated answers yet (this gateway does not offer them yet).')
          : h('p', { class: 'alert' }, describe(err)),
      );
    }
  }

  function openEditor(r: Row): void {
    const form = answerForm({
      title: 'Edit the answer',
      initial: {
        question: String(r.question ?? ''),
        alternateQuestions: Array.isArray(r.alternateQuestions) ? (r.alternateQuestions as string[]) : [],
        answer: String(r.answer ?? ''),
        url: (r.url as string | null) ?? '',
      },
      submitLabel: 'Save answer',
      onCancel: () => editor.replaceChildren(),
      onSubmit: async (body) => {
        await call('PATCH', `${base}/${encodeURIComponent(String(r.answerId))}`, { ...body, url: body.url ?? null });
        editor.replaceChildren();
        say('Answer saved.');
        void reload();
      },
    });
    editor.replaceChildren(form);
    form.querySelector('textarea')?.focus();
  }

  const create = answerForm({
    title: 'New curated answer',
    submitLabel: 'Add answer',
    onSubmit: async (body) => {
      await createAnswer(clientId, body);
      create.reset();
      say('Answer added.');
      void reload();
    },
  });

  return { el: h('div', { class: 'stack' }, list, editor, create), reload };
}
