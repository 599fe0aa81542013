/**
 * The operator console, served as /admin/app.js: this entry and its modules are bundled by esbuild
 * when the gateway starts (ui/bundle.ts). The shell (shell.ts) holds no data: everything comes from
 * /api/admin/* with the key the operator types (or none, from loopback when no ADMIN_API_KEY is set).
 */
import { KEY_STORE, session } from './api.ts';
import { clientView, isTab, type Tab } from './client-view.ts';
import { clientsPanel } from './clients.ts';
import { h } from './dom.ts';
import { say } from './notify.ts';

const byId = (id: string) => document.getElementById(id) as HTMLElement;
const keyInput = byId('auth-key') as HTMLInputElement;

let selectedId = '';
let current: { leave(): void } | undefined;
const clientRoot = h('section', { 'aria-labelledby': 'client-h', class: 'client', hidden: '' });

function readHash(): { clientId?: string; tab?: Tab } {
  const params = new URLSearchParams(location.hash.slice(1));
  const clientId = params.get('client') ?? undefined;
  const tab = params.get('tab');
  return { clientId: clientId && /^[0-9a-fA-F-]{36}$/.test(clientId) ? clientId : undefined, tab: isTab(tab) ? tab : undefined };
}

async function openClient(clientId: string, tab: Tab = 'settings', secret = ''): Promise<void> {
  const opened = await clientView(clientRoot, clientId, {
    tab,
    secret,
    onChanged: () => void clients.reload(),
    onDeleted: () => {
      current = undefined;
      selectedId = '';
      history.replaceState(null, '', '#');
      void clients.reload();
    },
  });
  if (!opened) return;
  current?.leave();
  current = opened;
  selectedId = clientId;
  void clients.reload();
}

const clients = clientsPanel({
  selected: () => selectedId,
  open: (clientId, secret) => void openClient(clientId, 'settings', secret),
});
byId('main').replaceChildren(clients.el, clientRoot);

byId('auth').addEventListener('submit', (e) => {
  e.preventDefault();
  session.set(KEY_STORE, keyInput.value.trim());
  keyInput.value = '';
  say(session.get(KEY_STORE) ? 'Key set for this browser tab.' : 'No key: requests go without one.');
  void clients.reload();
  // The client in the address too: opening it may have failed for want of the key.
  const wanted = selectedId || readHash().clientId;
  if (wanted) void openClient(wanted, readHash().tab);
});
byId('auth-forget').addEventListener('click', () => {
  session.set(KEY_STORE, '');
  say('Key forgotten.');
});

void clients.reload();
const start = readHash();
if (start.clientId) void openClient(start.clientId, start.tab);
