import { call, clientPath, query } from './api.ts';
import { button, h, type Row, statusCell, text, when } from './dom.ts';
import { pagedList } from './paged-list.ts';

/** Leads and the webhook delivery log, each delivery named by its lead's name rather than its id. */
export function leadsSection(clientId: string, openConversation: (sessionId: string) => void) {
  const names = new Map<string, string>();
  const leads = pagedList({
    title: 'Leads',
    empty: 'No leads yet.',
    load: async (limit, offset) => {
      const data = await call<{ leads: Row[]; total: number }>('GET', clientPath(clientId, `/leads${query({ limit, offset })}`));
      for (const l of data.leads) names.set(String(l.leadId), String(l.name));
      return { rows: data.leads, total: data.total };
    },
    columns: [
      { label: 'Received', cell: (r) => when(r.createdAt) },
      { label: 'Name', cell: (r) => text(r.name) },
      { label: 'Email', cell: (r) => text(r.email) },
      { label: 'Phone', cell: (r) => text(r.phone) },
      { label: 'Message', cell: (r) => text(r.message) },
      {
        label: 'Conversation',
        cell: (r) => {
          if (typeof r.sessionId !== 'string' || !r.sessionId) return '—';
          const b = button('View', 'link', 'button', { 'aria-label': `Conversation of ${String(r.name)}`, title: r.sessionId });
          b.addEventListener('click', () => openConversation(String(r.sessionId)));
          return b;
        },
      },
      { label: 'Webhook', cell: (r) => statusCell(r.webhookStatus) },
    ],
  });

  const deliveries = pagedList({
    title: 'Webhook deliveries',
    empty: 'No webhook deliveries yet.',
    load: async (limit, offset) => {
      const data = await call<{ deliveries: Row[]; total: number }>(
        'GET',
        clientPath(clientId, `/webhook-deliveries${query({ limit, offset })}`),
      );
      // Leads not on the leads page shown: one look-up of the recent ones names them.
      if (data.deliveries.some((d) => !names.has(String(d.leadId)))) {
        const recent = await call<{ leads: Row[] }>('GET', clientPath(clientId, '/leads?limit=500')).catch(() => ({ leads: [] as Row[] }));
        for (const l of recent.leads) names.set(String(l.leadId), String(l.name));
      }
      return { rows: data.deliveries, total: data.total };
    },
    columns: [
      { label: 'When', cell: (r) => when(r.createdAt) },
      { label: 'Lead', cell: (r) => h('span', { title: String(r.leadId) }, names.get(String(r.leadId)) ?? 'a deleted lead') },
      { label: 'Attempt', cell: (r) => text(r.attempt) },
      { label: 'Outcome', cell: (r) => statusCell(r.outcome) },
      { label: 'HTTP status', cell: (r) => text(r.statusCode) },
      { label: 'Error', cell: (r) => text(r.error) },
      { label: 'Duration (ms)', cell: (r) => text(r.durationMs) },
      { label: 'URL', cell: (r) => text(r.url) },
    ],
  });

  return {
    el: h('div', { class: 'stack' }, leads.el, deliveries.el),
    async reload() {
      await leads.reload();
      await deliveries.reload();
    },
  };
}
