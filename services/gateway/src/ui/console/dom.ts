/**
 * Building blocks of the console. Every piece of data is rendered with textContent (through h()),
 * never innerHTML: page titles, lead names, questions and webhook errors are input from strangers.
 */
import { h } from '../widget/dom.ts';

export type Row = Record<string, unknown>;

// The widget's element builder: one h() for both bundles.
export { h } from '../widget/dom.ts';

export const button = (label: string, cls = '', type: 'button' | 'submit' = 'button', attrs: Record<string, string> = {}) =>
  h('button', { type, class: cls, ...attrs }, label);
export const text = (v: unknown): string => (v === null || v === undefined || v === '' ? '—' : String(v));
export const when = (v: unknown): string => (typeof v === 'string' && v ? new Date(v).toLocaleString() : '—');
export const words = (camel: string) =>
  camel
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/^./, (c) => c.toUpperCase());

let uid = 0;
export const nextId = (p: string) => `${p}-${++uid}`;

export function statusCell(v: unknown): HTMLElement {
  return h('span', { class: `status-${String(v)}` }, text(v));
}

export function field(label: string, control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, hint?: string): HTMLElement {
  control.id ||= nextId('f');
  const box = h('div', {}, h('label', { for: control.id }, label), control);
  if (hint) {
    const hintEl = h('small', { class: 'muted', id: `${control.id}-hint` }, hint);
    control.setAttribute('aria-describedby', hintEl.id);
    box.append(hintEl);
  }
  return box;
}

export function select(options: [value: string, label: string][], value?: string): HTMLSelectElement {
  const s = h('select', {}, ...options.map(([v, l]) => h('option', { value: v }, l)));
  if (value !== undefined) s.value = value;
  return s;
}

export interface Column {
  label: string;
  cell: (r: Row) => Node | string;
}

export function table(caption: string, columns: Column[], rows: Row[], empty: string, selected?: (r: Row) => boolean): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'muted empty' }, empty);
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

/** A titled card: a region named by its heading. */
export function card(title: string, ...kids: (Node | string)[]): HTMLElement {
  const id = nextId('h');
  return h('section', { class: 'card', 'aria-labelledby': id }, h('h3', { id }, title), ...kids);
}
