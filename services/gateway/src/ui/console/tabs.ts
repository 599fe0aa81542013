import { h } from './dom.ts';

/**
 * Tabs after the WAI-ARIA pattern: a tablist of buttons (aria-selected, one in the tab order),
 * arrow keys, Home and End move between them; one tabpanel shows the selected one's content.
 */
export function tabs<K extends string>(
  label: string,
  items: readonly (readonly [K, string])[],
  onShow: (key: K, panel: HTMLElement) => void,
) {
  const buttons = new Map<K, HTMLButtonElement>();
  const panel = h('div', { role: 'tabpanel', id: 'tab-panel', tabindex: '-1' });
  const tablist = h('div', { role: 'tablist', 'aria-label': label, class: 'tabs' });
  const keys = items.map(([k]) => k);
  for (const [key, text] of items) {
    const b = h(
      'button',
      { type: 'button', role: 'tab', id: `tab-${key}`, 'aria-controls': 'tab-panel', 'aria-selected': 'false', tabindex: '-1' },
      text,
    );
    b.addEventListener('click', () => show(key));
    buttons.set(key, b);
    tablist.append(b);
  }
  tablist.addEventListener('keydown', (e) => {
    const at = keys.findIndex((k) => buttons.get(k) === document.activeElement);
    if (at < 0) return;
    const moves: Record<string, number> = {
      ArrowRight: (at + 1) % keys.length,
      ArrowLeft: (at - 1 + keys.length) % keys.length,
      Home: 0,
      End: keys.length - 1,
    };
    const to = moves[e.key];
    if (to === undefined) return;
    e.preventDefault();
    const key = keys[to] as K;
    show(key);
    buttons.get(key)?.focus();
  });
  function show(key: K): void {
    for (const [k, b] of buttons) {
      b.setAttribute('aria-selected', String(k === key));
      b.tabIndex = k === key ? 0 : -1;
    }
    panel.setAttribute('aria-labelledby', `tab-${key}`);
    onShow(key, panel);
  }
  return { tablist, panel, show };
}
