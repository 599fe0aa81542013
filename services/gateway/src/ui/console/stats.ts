import { call, clientPath, describe, query } from './api.ts';
import { barChart } from './chart.ts';
import { button, card, field, h, type Row, select, words } from './dom.ts';

const COLORS = { a: '#1f4fd1', b: '#d97706', c: '#1a7f37', d: '#b42318', e: '#8250df' };

/** One chart per concern: its series as [legend, colour, field of the stats series]. */
const CHARTS: { title: string; stacked?: boolean; format?: (n: number) => string; series: [string, string, string][] }[] = [
  {
    title: 'Conversations and messages',
    series: [
      ['Conversations', COLORS.a, 'conversations'],
      ['Messages', COLORS.e, 'messages'],
    ],
  },
  {
    title: 'Answered and declined',
    stacked: true,
    series: [
      ['Answered', COLORS.c, 'answered'],
      ['Declined', COLORS.b, 'declined'],
    ],
  },
  {
    title: 'Visitor feedback',
    series: [
      ['Thumbs up', COLORS.c, 'feedbackUp'],
      ['Thumbs down', COLORS.d, 'feedbackDown'],
    ],
  },
  { title: 'Leads', series: [['Leads', COLORS.a, 'leads']] },
  { title: 'Tokens', series: [['Tokens', COLORS.e, 'tokens']] },
  { title: 'Cost (USD)', series: [['Cost (USD)', COLORS.b, 'costUsd']], format: (n) => (n < 1 ? n.toFixed(4) : n.toFixed(2)) },
];

/** The client's figures per day or week (GET …/stats): totals and a chart per concern. */
export function statsSection(clientId: string) {
  const from = h('input', { type: 'date' });
  const to = h('input', { type: 'date' });
  const interval = select(
    [
      ['day', 'Day'],
      ['week', 'Week'],
    ],
    'day',
  );
  const filters = h(
    'form',
    { class: 'filters', 'aria-label': 'Period' },
    field('From', from),
    field('To', to),
    field('Interval', interval),
    h('div', { class: 'row' }, button('Show', 'primary', 'submit')),
  );
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  filters.addEventListener('submit', (e) => {
    e.preventDefault();
    void reload();
  });

  async function reload(): Promise<void> {
    try {
      const data = await call<{ series: Row[]; totals: Row }>(
        'GET',
        clientPath(
          clientId,
          `/stats${query({ from: from.value ? `${from.value}T00:00:00.000Z` : undefined, to: to.value ? `${to.value}T23:59:59.999Z` : undefined, interval: interval.value })}`,
        ),
      );
      const labels = data.series.map((p) => String(p.start).slice(5, 10));
      const col = (k: string) => data.series.map((p) => Number(p[k]) || 0);
      const totals = h(
        'dl',
        { class: 'counters totals' },
        ...Object.entries(data.totals ?? {}).map(([k, v]) =>
          h(
            'div',
            {},
            h('dt', {}, k === 'costUsd' ? 'Cost (USD)' : words(k)),
            h('dd', { 'data-total': k }, k === 'costUsd' ? Number(v).toFixed(4) : Number(v).toLocaleString()),
          ),
        ),
      );
      body.replaceChildren(
        totals,
        h(
          'div',
          { class: 'grid charts' },
          ...CHARTS.map((c) =>
            barChart({
              title: c.title,
              labels,
              ...(c.stacked ? { stacked: true } : {}),
              ...(c.format ? { format: c.format } : {}),
              series: c.series.map(([name, color, key]) => ({ name, color, values: col(key) })),
            }),
          ),
        ),
      );
    } catch (err) {
      body.replaceChildren(h('p', { class: 'alert' }, describe(err)));
    }
  }
  return { el: h('div', { class: 'stack' }, card('Figures', filters, body)), reload };
}
