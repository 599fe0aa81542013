/** Elements built with textContent only: page titles and answers are untrusted text. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...kids: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...kids);
  return e;
}

/**
 * An answer as nodes: each Markdown code fence (``` lines: the offline answer's code examples, a
 * model's code) a <pre> block, the rest text, whose line breaks the bubble keeps. Text only, never
 * markup: the answer is untrusted. A fence still open (a stream cut short) stays text.
 */
export function answerNodes(text: string): (Node | string)[] {
  const parts = text.split(/^```[^\n`]*\n([\s\S]*?)\n```[ \t]*(?:\n|$)/m);
  return parts.flatMap((part, i): (Node | string)[] => {
    if (i % 2 === 1) return [h('pre', {}, h('code', {}, part))];
    // The line break before a fence: the block starts a line of its own anyway.
    const prose = i < parts.length - 1 ? part.replace(/\n$/, '') : part;
    return prose ? [prose] : [];
  });
}

/** An inline SVG icon of one path (no markup parsing, nothing fetched). */
export function icon(d: string): SVGSVGElement {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
  path.setAttribute('d', d);
  svg.append(path);
  return svg;
}

/** White or near-black text on the accent, whichever contrasts more (WCAG relative luminance). */
export function onColor(probe: HTMLElement): string {
  const rgb = (getComputedStyle(probe).backgroundColor.match(/\d+(\.\d+)?/g) ?? ['0', '0', '0']).slice(0, 3).map(Number);
  const lin = rgb.map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const lum = 0.2126 * (lin[0] ?? 0) + 0.7152 * (lin[1] ?? 0) + 0.0722 * (lin[2] ?? 0);
  return (lum + 0.05) / 0.05 > 1.05 / (lum + 0.05) ? '#111' : '#fff';
}

export interface Store {
  get(k: string): string | null;
  set(k: string, v: string): void;
}

/** Storage throws in some sandboxed iframes and privacy modes: the widget then forgets on reload. */
export function storage(kind: 'localStorage' | 'sessionStorage'): Store {
  return {
    get: (k) => {
      try {
        return window[kind].getItem(k);
      } catch {
        return null;
      }
    },
    set: (k, v) => {
      try {
        window[kind].setItem(k, v);
      } catch {
        /* not persisted */
      }
    },
  };
}
