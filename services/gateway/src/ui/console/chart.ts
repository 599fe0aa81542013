import { h } from './dom.ts';

const SVG = 'http://www.w3.org/2000/svg';
function s<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number> = {},
  ...kids: (Node | string)[]
): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  e.append(...kids);
  return e;
}

export interface Series {
  name: string;
  color: string;
  values: number[];
}

const W = 560;
const H = 200;
const PAD = { top: 12, right: 8, bottom: 28, left: 44 };

/** A round axis maximum: 1, 2 or 5 times a power of ten. */
function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return ([1, 2, 5, 10].find((m) => m * p >= v) ?? 10) * p;
}

/**
 * A bar chart drawn as SVG (no library: a few bars and two axes are less code than a dependency's
 * options): grouped bars per label, or stacked. Named for assistive technology by its title, and
 * followed by the same figures as a table in a disclosure, which is what a screen reader reads.
 */
export function barChart(opts: {
  title: string;
  labels: string[];
  series: Series[];
  stacked?: boolean;
  format?: (n: number) => string;
}): HTMLElement {
  const fmt = opts.format ?? ((n: number) => n.toLocaleString());
  const n = opts.labels.length;
  const totals = opts.labels.map((_, i) => opts.series.reduce((a, sr) => a + (sr.values[i] ?? 0), 0));
  const max = niceMax(opts.stacked ? Math.max(0, ...totals) : Math.max(0, ...opts.series.flatMap((sr) => sr.values)));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  const slot = plotW / Math.max(1, n);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': opts.title, class: 'chart' });
  for (const t of [0, 0.5, 1]) {
    svg.append(
      s('line', { x1: PAD.left, x2: W - PAD.right, y1: y(max * t), y2: y(max * t), class: 'grid' }),
      s('text', { x: PAD.left - 6, y: y(max * t) + 4, 'text-anchor': 'end', class: 'tick' }, fmt(max * t)),
    );
  }
  const every = Math.ceil(n / 8);
  opts.labels.forEach((label, i) => {
    const x0 = PAD.left + i * slot;
    if (i % every === 0) svg.append(s('text', { x: x0 + slot / 2, y: H - 8, 'text-anchor': 'middle', class: 'tick' }, label));
    let base = 0;
    const barW = opts.stacked ? slot * 0.7 : (slot * 0.8) / Math.max(1, opts.series.length);
    opts.series.forEach((sr, k) => {
      const v = sr.values[i] ?? 0;
      if (v <= 0) return;
      const x = opts.stacked ? x0 + slot * 0.15 : x0 + slot * 0.1 + k * barW;
      const top = opts.stacked ? y(base + v) : y(v);
      const bottom = opts.stacked ? y(base) : y(0);
      svg.append(
        s(
          'rect',
          { x, y: top, width: Math.max(1, barW - 1), height: Math.max(0, bottom - top), fill: sr.color },
          s('title', {}, `${label} — ${sr.name}: ${fmt(v)}`),
        ),
      );
      if (opts.stacked) base += v;
    });
  });
  const legend = h(
    'ul',
    { class: 'legend' },
    ...opts.series.map((sr) => {
      const dot = h('span', { class: 'dot', 'aria-hidden': 'true' });
      dot.style.background = sr.color;
      return h('li', {}, dot, sr.name);
    }),
  );
  const data = h(
    'details',
    {},
    h('summary', {}, 'Figures'),
    h(
      'div',
      { class: 'scroll' },
      h(
        'table',
        {},
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Period'), ...opts.series.map((sr) => h('th', { scope: 'col' }, sr.name)))),
        h(
          'tbody',
          {},
          ...opts.labels.map((label, i) =>
            h('tr', {}, h('th', { scope: 'row' }, label), ...opts.series.map((sr) => h('td', {}, fmt(sr.values[i] ?? 0)))),
          ),
        ),
      ),
    ),
  );
  return h('figure', { class: 'chart-box' }, h('figcaption', {}, opts.title), svg, legend, data);
}
