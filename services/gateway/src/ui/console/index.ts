/**
 * The operator console, served as /admin/app.js: this entry and its modules are bundled by esbuild
 * when the gateway starts (ui/bundle.ts). The shell (shell.ts) holds no data: everything comes from
 * /api/admin/* with the key the operator types (or none, from loopback when no ADMIN_API_KEY is set).
 */
import { answersSection } from './answers.ts';
import { call, clientPath, describe, KEY_STORE, session } from './api.ts';
import { conversationsSection } from './conversations.ts';
import { button, field, h, type Row, select, table, text, when } from './dom.ts';
import { gapsSection } from './gaps.ts';
import { crawlActivity } from './jobs.ts';
import { leadsSection } from './leads.ts';
import { fail, say } from './notify.ts';
import { origins, secretBox, settingsSection, webhookFormats } from './settings.ts';
import { sourcesSection } from './sources.ts';
import { statsSection } from './stats.ts';

const TABS = [
  ['settings', 'Settings'],
  ['sources', 'Sources'],
  ['conversations', 'Conversations'],
  ['gaps', 'Knowledge gaps'],
  ['answers', 'Curated answers'],
  ['leads', 'Leads'],
  ['stats', 'Stats'],
] as const;
type Tab = (typeof TABS)[number][0];
const isTab = (v: string | null): v is Tab => TABS.some(([k]) => k === v);

const byId = (id: string) => document.getElementById(id) as HTMLElement;
const main = byId('main');
const keyInput = byId('auth-key') as HTMLInputElement;

// ---------------------------------------------------------------- clients

let selectedId = '';
let leave: (() => void) | undefined;
const clientsBody = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
const clientsInfo = h('p', { class: 'muted' });
const clientView = h('section', { 'aria-labelledby': 'client-h', class: 'client', hidden: '' });

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
              const b = button(String(r.name), 'link');
              b.addEventListener('click', () => void openClient(String(r.clientId)));
              return b;
            },
          },
          { label: 'Client ID', cell: (r) => h('code', {}, String(r.clientId)) },
          { label: 'Lead webhook URL', cell: (r) => text(r.leadWebhookUrl) },
          {
            label: 'Allowed origins',
            cell: (r) => (Array.isArray(r.allowedOrigins) && r.allowedOrigins.length ? r.allowedOrigins.join(', ') : 'any'),
          },
          { label: 'Created', cell: (r) => when(r.createdAt) },
        ],
        data.clients,
        'No clients yet: create one.',
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
  const format = select(webhookFormats, 'envelope');
  const allowed = h('textarea', { placeholder: 'https://www.example.com' });
  const form = h(
    'form',
    { 'aria-labelledby': 'new-client-h', class: 'card' },
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
      await openClient(String(created.clientId), 'settings', String(created.webhookSecret ?? ''));
    } catch (err) {
      fail(err);
    }
  });
  return form;
}

// ---------------------------------------------------------------- one client

function readHash(): { clientId?: string; tab?: Tab } {
  const params = new URLSearchParams(location.hash.slice(1));
  const clientId = params.get('client') ?? undefined;
  const tab = params.get('tab');
  return { clientId: clientId && /^[0-9a-fA-F-]{36}$/.test(clientId) ? clientId : undefined, tab: isTab(tab) ? tab : undefined };
}

async function openClient(clientId: string, tab: Tab = 'settings', secret = ''): Promise<void> {
  let client: Row;
  try {
    client = await call('GET', clientPath(clientId));
  } catch (err) {
    fail(err);
    return;
  }
  leave?.();
  selectedId = clientId;
  void loadClients();
  const heading = h('h2', { id: 'client-h', tabindex: '-1' }, `Client: ${String(client.name)}`);
  const secretSlot = h('div', {}, ...(secret ? [secretBox(secret)] : []));

  const sections: Partial<Record<Tab, { el: HTMLElement; reload?: () => Promise<void> }>> = {};
  const activity = crawlActivity(clientId, (job) => {
    say(`${job.kind === 'crawl' ? 'Crawl' : 'Embedding generation'} ${String(job.status)}.`);
    void sections.sources?.reload?.();
  });
  const openConversation = (sessionId: string) => {
    show('conversations');
    void conversations().open(sessionId);
  };
  const conversations = () => {
    sections.conversations ??= conversationsSection(clientId);
    return sections.conversations as ReturnType<typeof conversationsSection>;
  };
  const build: Record<Tab, () => { el: HTMLElement; reload?: () => Promise<void> }> = {
    settings: () => ({
      el: settingsSection({
        clientId,
        client,
        secretSlot,
        onRenamed: (name) => {
          heading.textContent = `Client: ${name}`;
          void loadClients();
        },
        onDeleted: () => {
          leave?.();
          selectedId = '';
          history.replaceState(null, '', '#');
          clientView.replaceChildren();
          clientView.hidden = true;
          void loadClients();
        },
      }),
    }),
    sources: () => sourcesSection({ clientId, activity }),
    conversations,
    gaps: () => gapsSection(clientId, openConversation),
    answers: () => answersSection(clientId),
    leads: () => leadsSection(clientId, openConversation),
    stats: () => statsSection(clientId),
  };

  const tabButtons = new Map<Tab, HTMLButtonElement>();
  const panel = h('div', { role: 'tabpanel', id: 'client-panel', tabindex: '-1' });
  const tablist = h('div', { role: 'tablist', 'aria-label': 'Client sections', class: 'tabs' });
  for (const [key, label] of TABS) {
    const b = h(
      'button',
      { type: 'button', role: 'tab', id: `tab-${key}`, 'aria-controls': 'client-panel', 'aria-selected': 'false', tabindex: '-1' },
      label,
    );
    b.addEventListener('click', () => show(key));
    tabButtons.set(key, b);
    tablist.append(b);
  }
  // Arrow keys move between tabs (the WAI-ARIA tabs pattern); Tab leaves the list.
  tablist.addEventListener('keydown', (e) => {
    const keys = TABS.map(([k]) => k);
    const at = keys.findIndex((k) => tabButtons.get(k) === document.activeElement);
    if (at < 0) return;
    const to =
      e.key === 'ArrowRight'
        ? (at + 1) % keys.length
        : e.key === 'ArrowLeft'
          ? (at - 1 + keys.length) % keys.length
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? keys.length - 1
              : -1;
    if (to < 0) return;
    e.preventDefault();
    const key = keys[to] as Tab;
    show(key);
    tabButtons.get(key)?.focus();
  });

  function show(tab: Tab): void {
    for (const [key, b] of tabButtons) {
      b.setAttribute('aria-selected', String(key === tab));
      b.tabIndex = key === tab ? 0 : -1;
    }
    panel.setAttribute('aria-labelledby', `tab-${tab}`);
    sections[tab] ??= build[tab]();
    const section = sections[tab];
    panel.replaceChildren(section.el);
    void section.reload?.();
    const hash = `#client=${clientId}&tab=${tab}`;
    if (location.hash !== hash) history.replaceState(null, '', hash);
  }

  clientView.replaceChildren(heading, h('p', {}, 'Client ID ', h('code', {}, clientId)), secretSlot, activity.el, tablist, panel);
  clientView.hidden = false;
  show(tab);
  heading.focus();
  leave = () => activity.stop();
}

// ---------------------------------------------------------------- page

main.replaceChildren(
  h(
    'section',
    { 'aria-labelledby': 'clients-h', class: 'clients' },
    h('h2', { id: 'clients-h' }, 'Clients'),
    h('div', { class: 'split' }, h('div', { class: 'card' }, clientsBody, clientsInfo), createForm()),
  ),
  clientView,
);

byId('auth').addEventListener('submit', (e) => {
  e.preventDefault();
  session.set(KEY_STORE, keyInput.value.trim());
  keyInput.value = '';
  say(session.get(KEY_STORE) ? 'Key set for this browser tab.' : 'No key: requests go without one.');
  void loadClients();
  const { tab } = readHash();
  if (selectedId) void openClient(selectedId, tab);
});
byId('auth-forget').addEventListener('click', () => {
  session.set(KEY_STORE, '');
  say('Key forgotten.');
});

void loadClients();
const start = readHash();
if (start.clientId) void openClient(start.clientId, start.tab);
