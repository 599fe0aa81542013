import { describe } from './api.ts';
import { button, type Column, h, nextId, type Row, table } from './dom.ts';

export interface PagedList {
  el: HTMLElement;
  reload(): Promise<void>;
  /** Back to the first page and reload (after a filter changed). */
  reset(): Promise<void>;
}

/** A titled, paginated table over a list endpoint; load() returns one page and the total. */
export function pagedList(opts: {
  title: string;
  columns: Column[];
  empty: string;
  load: (limit: number, offset: number) => Promise<{ rows: Row[]; total: number }>;
  pageSize?: number;
  /** Shown between the heading and the table (filters). */
  toolbar?: HTMLElement;
  selected?: (r: Row) => boolean;
}): PagedList {
  const pageSize = opts.pageSize ?? 20;
  let offset = 0;
  const headingId = nextId('h');
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  const info = h('span', { class: 'muted' });
  const prev = button('Previous');
  const next = button('Next');
  const refresh = button('Refresh');
  const el = h(
    'section',
    { class: 'card', 'aria-labelledby': headingId },
    h('h3', { id: headingId }, opts.title),
    ...(opts.toolbar ? [opts.toolbar] : []),
    body,
    h('div', { class: 'row' }, prev, next, info, refresh),
  );
  async function reload(): Promise<void> {
    try {
      const { rows, total } = await opts.load(pageSize, offset);
      body.replaceChildren(table(opts.title, opts.columns, rows, opts.empty, opts.selected));
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
  return {
    el,
    reload,
    reset() {
      offset = 0;
      return reload();
    },
  };
}
