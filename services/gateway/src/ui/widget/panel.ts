import { type Done, type Failure, plainChat, type Source, streamChat } from './chat-api.ts';
import { answerNodes, h, icon, onColor, storage } from './dom.ts';
import { feedbackButtons, type Rating } from './feedback.ts';
import { leadForm } from './lead-form.ts';
import { t } from './strings.ts';
import { STYLES } from './styles.ts';

/** What the widget shows, resolved from the tag's data-* attributes, the client's settings and the defaults. */
export interface Look {
  title: string;
  greeting: string;
  accent: string;
  starterQuestions: string[];
  position: 'bottom-right' | 'bottom-left';
}

interface Entry {
  role: 'user' | 'bot';
  text: string;
  sources?: Source[];
  messageId?: string;
  rating?: Rating;
}

const CHAT_ICON = 'M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2z';

/**
 * Mounts the widget: one <kbchat-widget> element appended to <body>, everything else inside its
 * shadow root; no globals, no global styles; storage keys prefixed `kbchat:` (docs/widget.md).
 */
export function mount(api: string, clientId: string, look: Look): void {
  if (document.querySelector(`kbchat-widget[data-client-id="${CSS.escape(clientId)}"]`)) return;
  const key = (name: string) => `kbchat:${clientId}:${name}`;
  const local = storage('localStorage');
  const tab = storage('sessionStorage');

  const host = document.createElement('kbchat-widget');
  host.dataset.clientId = clientId;
  const root = host.attachShadow({ mode: 'open' });
  // Constructed sheets are not subject to the host page's CSP style-src; <style> is the fallback.
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLES);
    root.adoptedStyleSheets = [sheet];
  } catch {
    root.append(h('style', {}, STYLES));
  }

  const wrap = h('div', { class: look.position === 'bottom-left' ? 'w left' : 'w' });
  wrap.style.setProperty('--a', look.accent);
  const launcher = h(
    'button',
    { type: 'button', class: 'launcher', 'aria-label': t().open, 'aria-expanded': 'false', 'aria-controls': 'p' },
    icon(CHAT_ICON),
  );
  const closeBtn = h('button', { type: 'button', class: 'x', 'aria-label': t().close }, '×');
  const log = h('div', { class: 'log', role: 'log', 'aria-live': 'polite', 'aria-label': t().conversation, tabindex: '0' });
  const input = h('textarea', { id: 'q', rows: '1', maxlength: '4000', placeholder: t().placeholder, autocomplete: 'off' });
  const send = h('button', { type: 'submit', class: 'send' }, t().send);
  const composer = h('form', { class: 'composer' }, h('label', { for: 'q', class: 'sr' }, t().yourMessage), input, send);
  const panel = h(
    'div',
    { id: 'p', class: 'panel', role: 'dialog', 'aria-modal': 'false', 'aria-labelledby': 't', hidden: '' },
    h('header', {}, h('h2', { id: 't' }, look.title), closeBtn),
    log,
    composer,
  );
  wrap.append(panel, launcher);
  root.append(wrap);
  document.body.append(host);
  wrap.style.setProperty('--on', onColor(launcher));

  let sessionId = local.get(key('session')) ?? undefined;
  let busy = false;
  let history: Entry[] = [];
  try {
    const saved: unknown = JSON.parse(tab.get(key('log')) ?? '[]');
    if (Array.isArray(saved)) history = saved as Entry[];
  } catch {
    /* a corrupt transcript is dropped */
  }

  const scroll = () => {
    log.scrollTop = log.scrollHeight;
  };
  const save = () => tab.set(key('log'), JSON.stringify(history));
  function remember(entry: Entry): void {
    history = [...history, entry].slice(-30);
    save();
  }
  const feedback = {
    api,
    clientId,
    sessionId: () => sessionId,
    remember(messageId: string, rating: Rating) {
      const entry = history.find((e) => e.messageId === messageId);
      if (entry) entry.rating = rating;
      save();
    },
  };

  // Numbered as the answer cites them: [k] in the text is item k, sources[k-1]. A source that is
  // not an http(s) link is left out without renumbering the rest (each item keeps its value).
  function sourcesBlock(sources: Source[]): HTMLElement | null {
    const list = h('ol');
    sources.forEach((s, i) => {
      if (!/^https?:\/\//i.test(s.url)) return;
      list.append(
        h('li', { value: String(i + 1) }, h('a', { href: s.url, target: '_blank', rel: 'noopener noreferrer' }, s.title || s.url)),
      );
    });
    if (list.childElementCount === 0) return null;
    return h('div', { class: 'src' }, h('p', {}, t().sources), list);
  }

  function bubble(entry: Entry): HTMLElement {
    const b = h('div', { class: `m ${entry.role}` });
    if (entry.role === 'user') b.append(h('span', { class: 'sr' }, t().you), entry.text);
    else b.append(...answerNodes(entry.text));
    const src = entry.sources && sourcesBlock(entry.sources);
    if (src) b.append(src);
    if (entry.messageId) b.append(feedbackButtons(feedback, entry.messageId, entry.rating));
    log.append(b);
    scroll();
    return b;
  }

  function setOpen(open: boolean, focus = true): void {
    panel.hidden = !open;
    launcher.setAttribute('aria-expanded', String(open));
    // Not "Close chat": that is the header's button, and two of a name confuse a screen-reader user.
    launcher.setAttribute('aria-label', open ? t().hide : t().open);
    tab.set(key('open'), open ? '1' : '');
    if (open) {
      scroll();
      if (focus) input.focus();
    } else if (focus) launcher.focus();
  }

  async function ask(text: string): Promise<void> {
    busy = true;
    send.disabled = true;
    starters?.remove();
    bubble({ role: 'user', text });
    remember({ role: 'user', text });
    const b = h('div', { class: 'm bot typing', 'aria-busy': 'true' });
    log.append(b);
    scroll();
    const textNode = document.createTextNode('');
    b.append(textNode);
    let shown = '';
    const body = JSON.stringify({ clientId, message: text, sessionId, context: { pageUrl: location.href.slice(0, 2000) } });
    let done: Done | undefined;
    try {
      try {
        done = await streamChat(api, body, (t) => {
          shown += t;
          b.classList.remove('typing');
          textNode.data = shown;
          scroll();
        });
      } catch (err) {
        if (!(err as Failure).fallback || shown) throw err;
        done = await plainChat(api, body);
      }
      textNode.replaceWith(...answerNodes(done.answer));
      const src = sourcesBlock(done.sources ?? []);
      if (src) b.append(src);
      if (done.sessionId) {
        sessionId = done.sessionId;
        local.set(key('session'), sessionId);
      }
      if (done.messageId) b.append(feedbackButtons(feedback, done.messageId));
      remember({ role: 'bot', text: done.answer, sources: done.sources, messageId: done.messageId });
    } catch (err) {
      const status = (err as Failure).status;
      const note = status === 429 ? t().tooFast : t().failed;
      if (shown) b.append(h('p', { class: 'err' }, note));
      else {
        b.classList.add('err');
        textNode.data = note;
      }
    } finally {
      b.classList.remove('typing');
      b.setAttribute('aria-busy', 'false');
      busy = false;
      send.disabled = false;
      scroll();
    }
    if (done?.leadCaptureIntent) {
      leadForm({ api, clientId, log, scroll, sessionId: () => sessionId, remember: (t) => remember({ role: 'bot', text: t }) });
    }
  }

  bubble({ role: 'bot', text: look.greeting });
  // Suggested first questions, until the visitor has asked something.
  let starters: HTMLElement | undefined;
  if (history.length === 0 && look.starterQuestions.length > 0) {
    starters = h('div', { class: 'starters', role: 'group', 'aria-label': t().suggested });
    for (const q of look.starterQuestions) {
      const b = h('button', { type: 'button' }, q);
      b.addEventListener('click', () => {
        if (busy) return;
        // The button goes away with the question asked: the focus moves to the message box first.
        input.focus();
        void ask(q);
      });
      starters.append(b);
    }
    log.append(starters);
  }
  for (const entry of history) bubble(entry);

  launcher.addEventListener('click', () => setOpen(launcher.getAttribute('aria-expanded') !== 'true'));
  closeBtn.addEventListener('click', () => setOpen(false));
  panel.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      setOpen(false);
    }
  });
  const submitQuestion = () => {
    const text = input.value.trim();
    if (!text || busy) return;
    input.value = '';
    input.style.height = '';
    void ask(text);
  };
  composer.addEventListener('submit', (e) => {
    e.preventDefault();
    submitQuestion();
  });
  input.addEventListener('keydown', (e) => {
    // Enter sends, Shift+Enter breaks the line; never while an IME is composing.
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      submitQuestion();
    }
  });
  input.addEventListener('input', () => {
    input.style.height = '';
    input.style.height = `${Math.min(input.scrollHeight + 2, 120)}px`;
  });
  if (tab.get(key('open'))) setOpen(true, false);
}
