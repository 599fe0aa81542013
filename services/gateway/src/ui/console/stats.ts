import { call, clientPath, describe, query } from './api.ts';
import { barChart } from './chart.ts';
import { button, card, field, h, type Row, select, words } from './dom.ts';

const COLORS = { a: '#1f4fd1', b: '#d97706', c: '#1a7f37', d: '#b42318', e: '#8250df' };

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
          barChart({
            title: 'Conversations and messages',
            labels,
            series: [
              { name: 'Conversations', color: COLORS.a, values: col('conversations') },
              { name: 'Messages', color: COLORS.e, values: col('messages') },
            ],
          }),
          barChart({
            title: 'Answered and declined',
            labels,
            stacked: true,
            series: [
              { name: 'Answered', color: COLORS.c, values: col('answered') },
              { name: 'Declined', color: COLORS.b, values: col('declined') },
            ],
          }),
          barChart({
            title: 'Visitor feedback',
            labels,
            series: [
              { name: 'Thumbs up', color: COLORS.c, values: col('feedbackUp') },
              { name: 'Thumbs down', color: COLORS.d, values: col('feedbackDown') },
            ],
          }),
          barChart({ title: 'Leads', labels, series: [{ name: 'Leads', color: COLORS.a, values: col('leads') }] }),
          barChart({ title: 'Tokens', labels, series: [{ name: 'Tokens', color: COLORS.e, values: col('tokens') }] }),
          barChart({
            title: 'Cost (USD)',
            labels,
            series: [{ name: 'Cost (USD)', color: COLORS.b, values: col('costUsd') }],
            format: (n) => (n < 1 ? n.toFixed(4) : n.toFixed(2)),
          }),
        ),
      );
    } catch (err) {
      body.replaceChildren(h('p', { class: 'alert' }, describe(err)));
    }
  }
  return { el: h('div', { class: 'stack' }, card('Figures', filters, body)), reload };
}
