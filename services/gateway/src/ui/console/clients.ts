import { call, describe } from './api.ts';
import { button, field, h, type Row, select, table, text, when } from './dom.ts';
import { fail, say } from './notify.ts';
import { origins, webhookFormats } from './settings.ts';

/** The clients table (a name opens the client) and the "New client" form. */
export function clientsPanel(opts: { selected(): string; open(clientId: string, secret?: string): void }) {
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  const info = h('p', { class: 'muted' });

  async function reload(): Promise<void> {
    try {
      const data = await call<{ clients: Row[]; total: number }>('GET', '/api/admin/clients?limit=500');
      body.replaceChildren(
        table(
          'Clients',
          [
            {
              label: 'Name',
              cell: (r) => {
                const b = button(String(r.name), 'link');
                b.addEventListener('click', () => opts.open(String(r.clientId)));
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
          (r) => r.clientId === opts.selected(),
        ),
      );
      info.textContent = data.total > data.clients.length ? `Showing ${data.clients.length} of ${data.total}.` : '';
    } catch (err) {
      body.replaceChildren(h('p', { class: 'alert' }, describe(err)));
      fail(err);
    }
  }

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
      opts.open(String(created.clientId), String(created.webhookSecret ?? ''));
    } catch (err) {
      fail(err);
    }
  });

  const el = h(
    'section',
    { 'aria-labelledby': 'clients-h', class: 'clients' },
    h('h2', { id: 'clients-h' }, 'Clients'),
    h('div', { class: 'split' }, h('div', { class: 'card' }, body, info), form),
  );
  return { el, reload };
}
