/**
 * The embeddable chat widget, served as /widget.js: this entry and its modules are bundled by
 * esbuild into one classic script (an IIFE, no globals) when the gateway starts (ui/bundle.ts).
 *
 * The look comes from the tag's data-* attributes first (a page may override), then the client's
 * settings from GET /api/widget-config (set by the operator in the console), then the defaults.
 */
import { fetchConfig } from './chat-api.ts';
import { mount } from './panel.ts';
import { t, useLanguage, widgetLanguage } from './strings.ts';

const DEFAULT_ACCENT = '#1f4fd1';

async function start(): Promise<void> {
  const script =
    (document.currentScript as HTMLScriptElement | null) ??
    document.querySelector<HTMLScriptElement>('script[data-client-id][src*="widget.js"]');
  const clientId = script?.dataset.clientId?.trim();
  if (!script || !clientId) {
    console.warn('kbchat: add data-client-id="<your client id>" to the widget <script> tag');
    return;
  }
  const api = new URL(script.src, location.href).origin;
  const opts = script.dataset;
  useLanguage(widgetLanguage(opts.lang || document.documentElement.lang));
  const settings = await fetchConfig(api, clientId);
  const isColour = (c: string | null | undefined): c is string => !!c && !!window.CSS?.supports('color', c);
  const look = {
    title: opts.title || settings?.title || t().title,
    greeting: opts.greeting || settings?.greeting || t().greeting,
    accent: isColour(opts.accentColor) ? opts.accentColor : isColour(settings?.color) ? settings.color : DEFAULT_ACCENT,
    starterQuestions: (settings?.starterQuestions ?? []).slice(0, 4),
    position: opts.position === 'bottom-left' || (!opts.position && settings?.position === 'bottom-left') ? 'bottom-left' : 'bottom-right',
  } as const;
  const go = () => mount(api, clientId, look);
  if (document.body) go();
  else document.addEventListener('DOMContentLoaded', go, { once: true });
}

void start();
