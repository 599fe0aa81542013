import { call, clientPath } from './api.ts';
import { button, card, field, h, select } from './dom.ts';
import { fail, say } from './notify.ts';
import type { SourcesContext } from './sources.ts';

const lines = (v: string) =>
  v
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/**
 * The ways to add to a client's knowledge base (docs/sources.md): crawl a website, add a text, upload
 * a file; and generate the embeddings still missing. Each started job shows in the Jobs panel.
 */
export function sourceForms(ctx: SourcesContext, reload: () => Promise<void>): HTMLElement[] {
  const base = clientPath(ctx.clientId);
  // Crawl a website
  const crawlUrl = h('input', { type: 'url', required: '', placeholder: 'https://www.example.com/' });
  const maxPages = h('input', { type: 'number', min: '1', value: '50' });
  const render = select([
    ['auto', 'auto'],
    ['never', 'never'],
    ['always', 'always'],
  ]);
  const include = h('textarea', { placeholder: '/docs/**' });
  const exclude = h('textarea', { placeholder: '/blog/*/comments' });
  const crawlForm = h(
    'form',
    { class: 'card', 'aria-labelledby': 'crawl-h' },
    h('h3', { id: 'crawl-h' }, 'Crawl a website'),
    field('Start URL', crawlUrl),
    field('Max pages', maxPages),
    field('Render JavaScript', render, 'auto: in Chromium only when the static page has too little text.'),
    field('Include', include, 'Optional URL patterns, one per line.'),
    field('Exclude', exclude, 'Optional URL patterns, one per line.'),
    h('div', { class: 'row' }, button('Start crawl', 'primary', 'submit')),
  );
  crawlForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    const url = crawlUrl.value.trim();
    try {
      const started = await call('POST', '/api/admin/crawl', {
        clientId: ctx.clientId,
        url,
        maxPages: Number(maxPages.value) || undefined,
        render: render.value,
        include: include.value.trim() ? lines(include.value) : undefined,
        exclude: exclude.value.trim() ? lines(exclude.value) : undefined,
        wait: false,
      });
      if (typeof started.jobId === 'string') {
        ctx.activity.watch(started.jobId, 'crawl', url);
        say('Crawl started: its progress shows under Jobs.');
      } else say(String(started.message ?? 'Crawl finished.'));
      void reload();
    } catch (err) {
      fail(err);
    }
  });

  // Add a text
  const textTitle = h('input', { required: '', maxlength: '300' });
  const textBody = h('textarea', { required: '', class: 'tall' });
  const textUrl = h('input', { type: 'url', placeholder: 'https://www.example.com/prices' });
  const textForm = h(
    'form',
    { class: 'card', 'aria-labelledby': 'text-h' },
    h('h3', { id: 'text-h' }, 'Add a text'),
    field('Title', textTitle),
    field('Text', textBody),
    field('Cited URL', textUrl, 'Optional: the page answers from this text link to.'),
    h('div', { class: 'row' }, button('Add text', 'primary', 'submit')),
  );
  textForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const added = await call('POST', `${base}/sources/text`, {
        title: textTitle.value,
        text: textBody.value,
        url: textUrl.value.trim() || undefined,
      });
      if (typeof added.jobId === 'string') ctx.activity.watch(added.jobId, 'generate-embeddings', String(added.title));
      textForm.reset();
      say(`Text “${String(added.title)}” added (${String(added.documentsCreated)} documents).`);
      void reload();
    } catch (err) {
      fail(err);
    }
  });

  // Upload a file
  const file = h('input', { type: 'file', required: '', accept: '.pdf,.docx,.md,.markdown,.html,.htm,.txt' });
  const fileTitle = h('input', { maxlength: '300' });
  const fileUrl = h('input', { type: 'url' });
  const fileForm = h(
    'form',
    { class: 'card', 'aria-labelledby': 'file-h' },
    h('h3', { id: 'file-h' }, 'Upload a file'),
    field('File', file, 'PDF, DOCX, Markdown, HTML or plain text.'),
    field('Title', fileTitle, 'Optional: else the document’s own title or its file name.'),
    field('Cited URL', fileUrl, 'Optional.'),
    h('div', { class: 'row' }, button('Upload', 'primary', 'submit')),
  );
  fileForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    const chosen = file.files?.[0];
    if (!chosen) return;
    const form = new FormData();
    if (fileTitle.value.trim()) form.append('title', fileTitle.value.trim());
    if (fileUrl.value.trim()) form.append('url', fileUrl.value.trim());
    form.append('file', chosen);
    try {
      const added = await call('POST', `${base}/sources/files`, form);
      if (typeof added.jobId === 'string') ctx.activity.watch(added.jobId, 'generate-embeddings', String(added.title));
      fileForm.reset();
      say(`File “${String(added.title)}” added (${String(added.documentsCreated)} documents).`);
      void reload();
    } catch (err) {
      fail(err);
    }
  });

  // Embeddings
  const embedButton = button('Generate embeddings', 'primary');
  embedButton.addEventListener('click', async () => {
    try {
      const started = await call('POST', '/api/admin/generate-embeddings', { clientId: ctx.clientId, wait: false });
      if (typeof started.jobId === 'string') ctx.activity.watch(started.jobId, 'generate-embeddings', 'All documents without an embedding');
      else say(String(started.message ?? 'Embeddings generated.'));
    } catch (err) {
      fail(err);
    }
  });
  const embedCard = card(
    'Embeddings',
    h('p', { class: 'muted' }, 'Embeds documents that have no embedding, or one from another model.'),
    h('div', { class: 'row' }, embedButton),
  );

  return [crawlForm, textForm, fileForm, embedCard];
}
