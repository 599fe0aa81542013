/**
 * The operator page's script, served as /admin/app.js. Like the widget it runs in the browser and is
 * served from its own source text (see widget.ts): self-contained, semicolons everywhere.
 *
 * Every piece of data is rendered with textContent (through h()), never innerHTML: page titles,
 * lead names and webhook errors are input from strangers.
 */
type Row = Record<string, unknown>;
interface ApiFailure {
  status: number;
  error: string;
  details: string[] | string;
}
interface Column {
  label: string;
  cell: (r: Row) => Node | string;
}

const KEY_STORE = 'kbchat-admin-key';
const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const main = byId('main');
const notice = byId('notice');
const alertBox = byId('alert');
const keyInput = byId<HTMLInputElement>('auth-key');

function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...kids: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...kids);
  return e;
}
const button = (label: string, cls = '', type: 'button' | 'submit' = 'button') => h('button', { type, class: cls }, label);
const text = (v: unknown): string => (v === null || v === undefined || v === '' ? '—' : String(v));
const when = (v: unknown): string => (typeof v === 'string' && v ? new Date(v).toLocaleString() : '—');
const words = (camel: string) =>
  camel
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/^./, (c) => c.toUpperCase());
let uid = 0;
const nextId = (p: string) => `${p}-${++uid}`;

const store = {
  get: (k: string): string => {
    try {
      return sessionStorage.getItem(k) ?? '';
    } catch {
      return '';
    }
  },
  set: (k: string, v: string): void => {
    try {
      if (v) sessionStorage.setItem(k, v);
      else sessionStorage.removeItem(k);
    } catch {
      /* not persisted */
    }
  },
};

function say(message: string): void {
  alertBox.textContent = '';
  notice.textContent = message;
}
function describe(err: unknown): string {
  const f = err as Partial<ApiFailure>;
  if (f.status === 401 || f.status === 403) return `${f.error}: enter the admin API key at the top of the page.`;
  const details = Array.isArray(f.details) ? f.details.join('; ') : f.details;
  return `${f.error ?? String(err)}${details ? ` — ${details}` : ''}`;
}
function fail(err: unknown): void {
  notice.textContent = '';
  alertBox.textContent = describe(err);
  const status = (err as Partial<ApiFailure>).status;
  if (status === 401 || status === 403) keyInput.focus();
}

async function call<T = Row>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const key = store.get(KEY_STORE);
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw { status: 0, error: 'The server could not be reached', details: [] } satisfies ApiFailure;
  }
  const data = (await res.json().catch(() => ({}))) as Row;
  if (!res.ok) {
    throw {
      status: res.status,
      error: typeof data.error === 'string' ? data.error : `HTTP ${res.status}`,
      details: (data.details as string[] | string | undefined) ?? [],
    } satisfies ApiFailure;
  }
  return data as T;
}

function table(caption: string, columns: Column[], rows: Row[], empty: string, selected?: (r: Row) => boolean): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'muted' }, empty);
  const body = h('tbody');
  for (const r of rows) {
    const tr = h('tr', selected?.(r) ? { class: 'sel' } : {});
    for (const c of columns) tr.append(h('td', {}, c.cell(r)));
    body.append(tr);
  }
  return h(
    'div',
    { class: 'scroll' },
    h(
      'table',
      {},
      h('caption', { class: 'sr' }, caption),
      h('thead', {}, h('tr', {}, ...columns.map((c) => h('th', { scope: 'col' }, c.label)))),
      body,
    ),
  );
}

function statusCell(v: unknown): HTMLElement {
  return h('span', { class: `status-${String(v)}` }, text(v));
}

/** A titled, paginated table over a list endpoint ({<listKey>: [...], total, limit, offset}). */
function listSection(title: string, path: string, listKey: string, columns: Column[], empty: string, pageSize = 20) {
  let offset = 0;
  const headingId = nextId('h');
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  const info = h('span', { class: 'muted' });
  const prev = button('Previous');
  const next = button('Next');
  const refresh = button('Refresh');
  const el = h(
    'section',
    { 'aria-labelledby': headingId },
    h('h3', { id: headingId }, title),
    body,
    h('div', { class: 'row' }, prev, next, info, refresh),
  );
  async function reload(): Promise<void> {
    try {
      const sep = path.includes('?') ? '&' : '?';
      const data = await call('GET', `${path}${sep}limit=${pageSize}&offset=${offset}`);
      const rows = (Array.isArray(data) ? data : (data[listKey] as Row[] | undefined)) ?? [];
      const total = typeof data.total === 'number' ? data.total : rows.length;
      body.replaceChildren(table(title, columns, rows, empty));
      info.textContent = rows.length ? `${offset + 1}–${offset + rows.length} of ${total}` : '';
      prev.disabled = offset === 0;
      next.disabled = offset + rows.length >= total;
    } catch (err) {
      body.replaceChildren(h('p', { class: 'alert' }, describe(err)));
    }
  }
  prev.addEventListener('click', () => {
    offset = Math.max(0, offset - pageSize);
    void reload();
  });
  next.addEventListener('click', () => {
    offset += pageSize;
    void reload();
  });
  refresh.addEventListener('click', () => void reload());
  void reload();
  return { el, reload };
}

/** Progress of an admin job, polled from /api/admin/jobs/:jobId until it completes or fails. */
function jobPanel(label: string, storeKey: string, onFinished: (job: Row) => void) {
  const status = h('p', { role: 'status' });
  const bar = h('progress', { 'aria-label': `${label} progress`, max: '1' });
  const counters = h('dl', { class: 'counters' });
  const result = h('p');
  const el = h('div', { class: 'job', hidden: '' }, status, bar, counters, result);
  let watching = '';

  function render(job: Row): void {
    const p = (job.progress ?? {}) as Record<string, unknown>;
    const num = (k: string) => (typeof p[k] === 'number' ? (p[k] as number) : 0);
    const finished = job.status === 'completed' || job.status === 'failed';
    const live = !finished && typeof job.message === 'string' ? ` — ${job.message}` : '';
    status.textContent = `${label}: ${text(job.status)}${live}`;
    status.className = `status-${String(job.status)}`;
    // Crawling: pages settled (unchanged ones count as indexed) out of pages to visit (discovered,
    // capped by maxPages); embedding: vectors settled out of documents created. Unknown totals
    // leave the bar indeterminate.
    const maxPages = Number((job.options as Row | undefined)?.maxPages) || Number.POSITIVE_INFINITY;
    const [done, total] =
      job.phase === 'crawling' || (job.kind === 'crawl' && job.phase !== 'embedding')
        ? [num('pagesIndexed') + num('pagesSkipped') + num('pagesFailed'), Math.min(num('pagesDiscovered'), maxPages)]
        : [num('embeddingsDone') + num('embeddingsFailed'), num('documentsCreated')];
    if (finished) {
      bar.max = 1;
      bar.value = 1;
    } else if (total > 0) {
      bar.max = total;
      bar.value = Math.min(done, total);
    } else bar.removeAttribute('value');
    counters.replaceChildren();
    for (const [k, v] of Object.entries(p)) {
      // An embeddings run has no pages: its page counters would only be noise.
      if (job.kind === 'generate-embeddings' && /^(pages|skip)/.test(k)) continue;
      let shown: string;
      if (typeof v === 'number') shown = v.toLocaleString();
      else if (v && typeof v === 'object') {
        const parts = Object.entries(v as Record<string, unknown>).map(([r, n]) => `${r} ${String(n)}`);
        if (parts.length === 0) continue;
        shown = parts.join(', ');
      } else continue;
      counters.append(h('div', {}, h('dt', {}, words(k)), h('dd', { 'data-counter': k }, shown)));
    }
    const res = (job.result ?? {}) as Row;
    const message = job.error ?? job.message ?? res.message;
    const notes = Array.isArray(job.notes) && job.notes.length ? ` (${job.notes.join(' ')})` : '';
    result.textContent = finished && message ? `${String(message)}${notes}` : '';
    result.className = job.status === 'failed' ? 'alert' : '';
  }

  async function poll(jobId: string): Promise<void> {
    if (watching !== jobId) return;
    try {
      const job = await call('GET', `/api/admin/jobs/${encodeURIComponent(jobId)}`);
      if (watching !== jobId) return;
      render(job);
      if (job.status === 'completed' || job.status === 'failed') {
        watching = '';
        store.set(storeKey, '');
        onFinished(job);
        return;
      }
    } catch (err) {
      status.textContent = describe(err);
      if ((err as ApiFailure).status === 404) {
        watching = '';
        store.set(storeKey, '');
        return;
      }
    }
    setTimeout(() => void poll(jobId), 1000);
  }

  return {
    el,
    watch(jobId: string): void {
      watching = jobId;
      store.set(storeKey, jobId);
      el.hidden = false;
      status.textContent = `${label}: queued`;
      counters.replaceChildren();
      result.textContent = '';
      bar.removeAttribute('value');
      void poll(jobId);
    },
    stop(): void {
      watching = '';
    },
  };
}

function field(label: string, control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, hint?: string): HTMLElement {
  control.id ||= nextId('f');
  const box = h('div', {}, h('label', { for: control.id }, label), control);
  if (hint) {
    const hintEl = h('small', { class: 'muted', id: `${control.id}-hint` }, hint);
    control.setAttribute('aria-describedby', hintEl.id);
    box.append(hintEl);
  }
  return box;
}
function formatSelect(value = 'envelope'): HTMLSelectElement {
  const s = h('select', {}, h('option', { value: 'envelope' }, 'envelope (event + data)'), h('option', { value: 'flat' }, 'flat'));
  s.value = value;
  return s;
}
const origins = (v: string) =>
  v
    .split(/[\s,]+/)
    .map((o) => o.trim())
    .filter(Boolean);

function secretBox(secret: string): HTMLElement {
  const copy = button('Copy');
  copy.addEventListener('click', () => {
    navigator.clipboard?.writeText(secret).then(
      () => say('Secret copied.'),
      () => say('Copy failed: select the text and copy it.'),
    );
  });
  return h(
    'div',
    { class: 'secret', role: 'region', 'aria-label': 'Webhook signing secret' },
    h('strong', {}, 'Webhook signing secret — shown only this once. Store it where your webhook receiver can verify signatures:'),
    h('pre', { class: 'mono', 'data-secret': '' }, secret),
    copy,
  );
}

// ---------------------------------------------------------------- clients list

let selectedId = '';
let detail: { stop(): void } | undefined;
const clientsBody = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
const clientsInfo = h('p', { class: 'muted' });

async function loadClients(): Promise<void> {
  try {
    const data = await call<{ clients: Row[]; total: number }>('GET', '/api/admin/clients?limit=500');
    clientsBody.replaceChildren(
      table(
        'Clients',
        [
          {
            label: 'Name',
            cell: (r) => {
              const b = button(String(r.name));
              b.addEventListener('click', () => void openClient(String(r.clientId)));
              return b;
            },
          },
          { label: 'Client ID', cell: (r) => h('code', {}, String(r.clientId)) },
          { label: 'Lead webhook URL', cell: (r) => text(r.leadWebhookUrl) },
          { label: 'Format', cell: (r) => text(r.webhookFormat) },
          {
            label: 'Allowed origins',
            cell: (r) => (Array.isArray(r.allowedOrigins) && r.allowedOrigins.length ? r.allowedOrigins.join(', ') : 'any'),
          },
          { label: 'Created', cell: (r) => when(r.createdAt) },
        ],
        data.clients,
        'No clients yet: create one below.',
        (r) => r.clientId === selectedId,
      ),
    );
    clientsInfo.textContent = data.total > data.clients.length ? `Showing ${data.clients.length} of ${data.total}.` : '';
  } catch (err) {
    clientsBody.replaceChildren(h('p', { class: 'alert' }, describe(err)));
    fail(err);
  }
}

function createForm(): HTMLElement {
  const name = h('input', { required: '', maxlength: '200' });
  const webhook = h('input', { type: 'url', placeholder: 'https://crm.example.com/hooks/leads' });
  const format = formatSelect();
  const allowed = h('textarea', { placeholder: 'https://www.example.com' });
  const form = h(
    'form',
    { 'aria-labelledby': 'new-client-h' },
    h('h3', { id: 'new-client-h' }, 'New client'),
    field('Name', name),
    field('Lead webhook URL', webhook, 'Optional. Receives a POST for every lead.'),
    field('Webhook format', format),
    field('Allowed origins', allowed, 'One per line. Empty: the widget works on any site.'),
    h('div', { class: 'row' }, button('Create client', 'primary', 'submit')),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const created = await call('POST', '/api/admin/clients', {
        name: name.value,
        leadWebhookUrl: webhook.value.trim() || undefined,
        webhookFormat: format.value,
        allowedOrigins: origins(allowed.value),
      });
      form.reset();
      say(`Client “${String(created.name)}” created.`);
      await loadClients();
      await openClient(String(created.clientId), String(created.webhookSecret ?? ''));
    } catch (err) {
      fail(err);
    }
  });
  return form;
}

// ---------------------------------------------------------------- one client

async function openClient(clientId: string, secret = ''): Promise<void> {
  detail?.stop();
  let client: Row;
  try {
    client = await call('GET', `/api/admin/clients/${encodeURIComponent(clientId)}`);
  } catch (err) {
    fail(err);
    return;
  }
  selectedId = clientId;
  if (location.hash !== `#client=${clientId}`) history.replaceState(null, '', `#client=${clientId}`);
  void loadClients();
  const base = `/api/admin/clients/${encodeURIComponent(clientId)}`;
  const heading = h('h2', { id: 'client-h', tabindex: '-1' }, `Client: ${String(client.name)}`);
  const secretSlot = h('div', {}, ...(secret ? [secretBox(secret)] : []));

  // Settings
  const name = h('input', { required: '', maxlength: '200' });
  name.value = String(client.name);
  const webhook = h('input', { type: 'url' });
  webhook.value = typeof client.leadWebhookUrl === 'string' ? client.leadWebhookUrl : '';
  const format = formatSelect(String(client.webhookFormat));
  const allowed = h('textarea');
  allowed.value = Array.isArray(client.allowedOrigins) ? client.allowedOrigins.join('\n') : '';
  const rotate = button('Rotate webhook secret');
  const remove = button('Delete client', 'danger');
  const settings = h(
    'form',
    { class: 'card', 'aria-labelledby': 'settings-h' },
    h('h3', { id: 'settings-h' }, 'Settings'),
    field('Name', name),
    field('Lead webhook URL', webhook, 'Empty: no webhook.'),
    field('Webhook format', format),
    field('Allowed origins', allowed, 'One per line. Empty: any origin.'),
    h('div', { class: 'row' }, button('Save', 'primary', 'submit'), rotate, remove),
  );
  settings.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const updated = await call('PATCH', base, {
        name: name.value,
        leadWebhookUrl: webhook.value.trim() || null,
        webhookFormat: format.value,
        allowedOrigins: origins(allowed.value),
      });
      heading.textContent = `Client: ${String(updated.name)}`;
      say('Settings saved.');
      void loadClients();
    } catch (err) {
      fail(err);
    }
  });
  rotate.addEventListener('click', async () => {
    if (!confirm('Rotate the webhook secret? The receiver must switch to the new one.')) return;
    try {
      const updated = await call('PATCH', base, { rotateWebhookSecret: true });
      secretSlot.replaceChildren(secretBox(String(updated.webhookSecret)));
      say('Webhook secret rotated.');
    } catch (err) {
      fail(err);
    }
  });
  remove.addEventListener('click', async () => {
    if (!confirm(`Delete “${String(client.name)}” and all of its pages, documents, sessions and leads?`)) return;
    try {
      await call('DELETE', base);
      detail?.stop();
      selectedId = '';
      history.replaceState(null, '', '#');
      clientSection.replaceChildren();
      clientSection.hidden = true;
      say('Client deleted.');
      void loadClients();
    } catch (err) {
      fail(err);
    }
  });

  const snippet = h('pre', { class: 'mono' }, `<script src="${location.origin}/widget.js" data-client-id="${clientId}" async></script>`);

  // Tables
  const sources = listSection(
    'Sources',
    `${base}/sources`,
    'sources',
    [
      { label: 'Start URL', cell: (r) => text(r.url) },
      { label: 'Pages', cell: (r) => text(r.pages) },
      { label: 'Documents', cell: (r) => text(r.documents) },
      { label: 'Embedded', cell: (r) => text(r.embeddedDocuments) },
      { label: 'Last crawled', cell: (r) => when(r.lastCrawledAt) },
      {
        label: 'Last job',
        cell: (r) => {
          const job = r.lastJob as Row | null | undefined;
          return job ? h('span', {}, statusCell(job.status), ` ${text(job.message)}`) : '—';
        },
      },
      { label: 'Source ID', cell: (r) => h('code', {}, text(r.sourceId)) },
    ],
    'No sources yet: start a crawl.',
  );
  const leads = listSection(
    'Leads',
    `${base}/leads`,
    'leads',
    [
      { label: 'Received', cell: (r) => when(r.createdAt) },
      { label: 'Name', cell: (r) => text(r.name) },
      { label: 'Email', cell: (r) => text(r.email) },
      { label: 'Phone', cell: (r) => text(r.phone) },
      { label: 'Message', cell: (r) => text(r.message) },
      { label: 'Session', cell: (r) => h('code', {}, text(r.sessionId)) },
      { label: 'Webhook', cell: (r) => statusCell(r.webhookStatus) },
    ],
    'No leads yet.',
  );
  const deliveries = listSection(
    'Webhook deliveries',
    `${base}/webhook-deliveries`,
    'deliveries',
    [
      { label: 'When', cell: (r) => when(r.createdAt) },
      { label: 'Lead', cell: (r) => h('code', {}, text(r.leadId)) },
      { label: 'Attempt', cell: (r) => text(r.attempt) },
      { label: 'Outcome', cell: (r) => statusCell(r.outcome) },
      { label: 'HTTP status', cell: (r) => text(r.statusCode) },
      { label: 'Error', cell: (r) => text(r.error) },
      { label: 'Duration (ms)', cell: (r) => text(r.durationMs) },
      { label: 'URL', cell: (r) => text(r.url) },
    ],
    'No webhook deliveries yet.',
  );

  // Crawl
  const crawlKey = `kbchat-admin-job:${clientId}:crawl`;
  const crawlJob = jobPanel('Crawl', crawlKey, (job) => {
    say(`Crawl ${String(job.status)}.`);
    void sources.reload();
  });
  const crawlUrl = h('input', { type: 'url', required: '', placeholder: 'https://www.example.com/' });
  const maxPages = h('input', { type: 'number', min: '1', value: '50' });
  const render = h(
    'select',
    {},
    h('option', { value: 'auto' }, 'auto'),
    h('option', { value: 'never' }, 'never'),
    h('option', { value: 'always' }, 'always'),
  );
  const crawlForm = h(
    'form',
    { class: 'card', 'aria-labelledby': 'crawl-h' },
    h('h3', { id: 'crawl-h' }, 'Crawl a website'),
    field('Start URL', crawlUrl),
    field('Max pages', maxPages),
    field('Render JavaScript', render, 'auto: in Chromium only when the static page has too little text.'),
    h('div', { class: 'row' }, button('Start crawl', 'primary', 'submit')),
    crawlJob.el,
  );
  crawlForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const started = await call('POST', '/api/admin/crawl', {
        clientId,
        url: crawlUrl.value.trim(),
        maxPages: Number(maxPages.value) || undefined,
        render: render.value,
        wait: false,
      });
      if (typeof started.jobId === 'string') crawlJob.watch(started.jobId);
      else say(String(started.message ?? 'Crawl finished.'));
    } catch (err) {
      fail(err);
    }
  });

  // Embeddings
  const embedKey = `kbchat-admin-job:${clientId}:embed`;
  const embedJob = jobPanel('Embeddings', embedKey, (job) => {
    say(`Embedding generation ${String(job.status)}.`);
    void sources.reload();
  });
  const embedButton = button('Generate embeddings', 'primary');
  embedButton.addEventListener('click', async () => {
    try {
      const started = await call('POST', '/api/admin/generate-embeddings', { clientId, wait: false });
      if (typeof started.jobId === 'string') embedJob.watch(started.jobId);
      else say(String(started.message ?? 'Embeddings generated.'));
    } catch (err) {
      fail(err);
    }
  });
  const embedCard = h(
    'div',
    { class: 'card', role: 'region', 'aria-labelledby': 'embed-h' },
    h('h3', { id: 'embed-h' }, 'Embeddings'),
    h('p', { class: 'muted' }, 'Embeds documents that have no embedding, or one from another model.'),
    h('div', { class: 'row' }, embedButton),
    embedJob.el,
  );

  clientSection.replaceChildren(
    heading,
    h('p', {}, 'Client ID ', h('code', {}, clientId)),
    secretSlot,
    h('div', { class: 'grid' }, settings, crawlForm, embedCard),
    h(
      'div',
      { class: 'card' },
      h('h3', {}, 'Embed the chat widget'),
      h('p', { class: 'muted' }, 'Paste before </body> on the client’s site:'),
      snippet,
    ),
    sources.el,
    leads.el,
    deliveries.el,
  );
  clientSection.hidden = false;
  heading.focus();
  for (const [k, panel] of [
    [crawlKey, crawlJob],
    [embedKey, embedJob],
  ] as const) {
    const running = store.get(k);
    if (running) panel.watch(running);
  }
  detail = {
    stop() {
      crawlJob.stop();
      embedJob.stop();
    },
  };
}

// ---------------------------------------------------------------- page

const clientSection = h('section', { 'aria-labelledby': 'client-h', hidden: '' });
main.replaceChildren(
  h(
    'section',
    { 'aria-labelledby': 'clients-h' },
    h('h2', { id: 'clients-h' }, 'Clients'),
    clientsBody,
    clientsInfo,
    h('div', { class: 'row' }),
  ),
  h('section', {}, createForm()),
  clientSection,
);

byId('auth').addEventListener('submit', (e) => {
  e.preventDefault();
  store.set(KEY_STORE, keyInput.value.trim());
  keyInput.value = '';
  say(store.get(KEY_STORE) ? 'Key set for this browser tab.' : 'No key: requests go without one.');
  void loadClients();
  if (selectedId) void openClient(selectedId);
});
byId('auth-forget').addEventListener('click', () => {
  store.set(KEY_STORE, '');
  say('Key forgotten.');
});

void loadClients();
const fromHash = /^#client=([0-9a-fA-F-]{36})$/.exec(location.hash)?.[1];
if (fromHash) void openClient(fromHash);
