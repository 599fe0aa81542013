/**
 * The embeddable chat widget, served as /widget.js.
 *
 * This function runs in the visitor's browser, not in Node: the gateway serves its source text
 * (`kbchatWidget.toString()`, which Node has already stripped of types) wrapped in an IIFE and
 * minified. So it must be self-contained: no imports (type-only ones vanish), no references to
 * anything outside its own body, and every statement ended with a semicolon (see minify-js.ts).
 *
 * Contract with the host page: one custom element appended to <body>, everything else inside its
 * shadow root; no globals, no global styles; localStorage/sessionStorage keys prefixed `kbchat:`.
 */
export function kbchatWidget(): void {
  interface Source {
    title: string;
    url: string;
  }
  interface Done {
    answer: string;
    sources: Source[];
    sessionId: string;
    leadCaptureIntent: boolean;
  }
  interface Entry {
    role: 'user' | 'bot';
    text: string;
    sources?: Source[];
  }
  interface Failure {
    status: number;
    error: string;
    /** True when asking /api/chat instead could still work (stream route missing, 5xx, network). */
    fallback: boolean;
  }

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
  const title = opts.title || 'Chat with us';
  const greeting = opts.greeting || 'Hi! Ask me anything about this site.';
  const key = (name: string) => `kbchat:${clientId}:${name}`;
  const storage = (kind: 'localStorage' | 'sessionStorage') => ({
    // Storage throws in some sandboxed iframes and privacy modes: the widget then forgets on reload.
    get: (k: string): string | null => {
      try {
        return window[kind].getItem(k);
      } catch {
        return null;
      }
    },
    set: (k: string, v: string): void => {
      try {
        window[kind].setItem(k, v);
      } catch {
        /* not persisted */
      }
    },
  });
  const local = storage('localStorage');
  const tab = storage('sessionStorage');

  const STYLES = `
:host{all:initial!important;position:fixed!important;top:0!important;left:0!important;width:0!important;height:0!important;display:block!important;z-index:2147483000!important}
*{box-sizing:border-box}
.w{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1f2328;-webkit-font-smoothing:antialiased}
button,input,textarea{font:inherit;color:inherit;margin:0}
.launcher{position:fixed;right:20px;bottom:20px;width:56px;height:56px;border:0;border-radius:50%;padding:0;cursor:pointer;background:var(--a);color:var(--on);box-shadow:0 4px 14px rgba(0,0,0,.25);display:flex;align-items:center;justify-content:center}
.launcher svg{width:26px;height:26px;fill:currentColor}
button:focus-visible,a:focus-visible,input:focus-visible,textarea:focus-visible{outline:3px solid var(--a);outline-offset:2px}
.panel{position:fixed;right:20px;bottom:88px;width:380px;height:min(600px,calc(100vh - 108px));display:flex;flex-direction:column;background:#fff;border-radius:14px;box-shadow:0 10px 40px rgba(0,0,0,.25);overflow:hidden}
.panel[hidden]{display:none}
header{display:flex;align-items:center;gap:8px;padding:12px 12px 12px 16px;background:var(--a);color:var(--on)}
h2{flex:1;margin:0;font-size:16px;font-weight:600;line-height:1.3}
.x{border:0;background:transparent;cursor:pointer;width:32px;height:32px;border-radius:6px;font-size:22px;line-height:1;color:inherit}
.log{flex:1;overflow-y:auto;padding:14px;display:flex;flex-direction:column;gap:10px;background:#f6f7f9}
.m{max-width:85%;padding:8px 12px;border-radius:12px;white-space:pre-wrap;overflow-wrap:anywhere}
.bot{align-self:flex-start;background:#fff;border:1px solid #e3e6ea}
.user{align-self:flex-end;background:var(--a);color:var(--on)}
.err{color:#b42318}
.typing::after{content:"…";letter-spacing:2px}
.src{margin:8px 0 0;padding:8px 0 0;border-top:1px solid #e3e6ea;font-size:13px;white-space:normal}
.src p{margin:0;font-weight:600}
.src ol{margin:4px 0 0;padding-left:22px}
a{color:#0b57d0}
.lead{align-self:stretch;background:#fff;border:1px solid #e3e6ea;border-radius:12px;padding:12px;display:flex;flex-direction:column;gap:8px}
.lead p{margin:0}
label{display:block;font-size:13px;font-weight:600;margin-bottom:2px}
input,textarea{width:100%;border:1px solid #8c959f;border-radius:8px;padding:7px 9px;background:#fff}
input[aria-invalid=true]{border-color:#b42318}
.fe{font-size:12.5px;margin:2px 0 0}
.fe:empty{display:none}
.ok{font-weight:600}
.send-lead,.send{border:0;border-radius:8px;padding:8px 14px;cursor:pointer;background:var(--a);color:var(--on);font-weight:600}
.composer{display:flex;gap:8px;padding:10px;border-top:1px solid #e3e6ea;background:#fff}
.composer textarea{resize:none;height:40px;max-height:120px}
button:disabled{opacity:.55;cursor:default}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:480px){.panel{inset:0;width:auto;height:auto;border-radius:0}.launcher[aria-expanded=true]{display:none}}
@media (prefers-reduced-motion:no-preference){.panel{animation:kbin .15s ease-out}@keyframes kbin{from{opacity:0;transform:translateY(8px)}}}
`;

  /** Elements built with textContent only: page titles and answers are untrusted text. */
  function h<K extends keyof HTMLElementTagNameMap>(
    tag: K,
    attrs: Record<string, string> = {},
    ...kids: (Node | string)[]
  ): HTMLElementTagNameMap[K] {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    e.append(...kids);
    return e;
  }

  /** White or near-black text on the accent, whichever contrasts more (WCAG relative luminance). */
  function onColor(probe: HTMLElement): string {
    const rgb = (getComputedStyle(probe).backgroundColor.match(/\d+(\.\d+)?/g) ?? ['0', '0', '0']).slice(0, 3).map(Number);
    const lin = rgb.map((v) => {
      const c = v / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    const lum = 0.2126 * (lin[0] ?? 0) + 0.7152 * (lin[1] ?? 0) + 0.0722 * (lin[2] ?? 0);
    return (lum + 0.05) / 0.05 > 1.05 / (lum + 0.05) ? '#111' : '#fff';
  }

  function mount(): void {
    if (!clientId || document.querySelector(`kbchat-widget[data-client-id="${CSS.escape(clientId)}"]`)) return;
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

    const accent = opts.accentColor && window.CSS?.supports('color', opts.accentColor) ? opts.accentColor : '#1f4fd1';
    const wrap = h('div', { class: 'w' });
    wrap.style.setProperty('--a', accent);

    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    svg.setAttribute('viewBox', '0 0 24 24');
    svg.setAttribute('aria-hidden', 'true');
    const path = document.createElementNS('http://www.w3.org/2000/svg', 'path');
    path.setAttribute('d', 'M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2z');
    svg.append(path);
    const launcher = h(
      'button',
      { type: 'button', class: 'launcher', 'aria-label': 'Open chat', 'aria-expanded': 'false', 'aria-controls': 'p' },
      svg,
    );

    const closeBtn = h('button', { type: 'button', class: 'x', 'aria-label': 'Close chat' }, '×');
    const log = h('div', { class: 'log', role: 'log', 'aria-live': 'polite', 'aria-label': 'Conversation', tabindex: '0' });
    const input = h('textarea', { id: 'q', rows: '1', maxlength: '4000', placeholder: 'Type your question…', autocomplete: 'off' });
    const send = h('button', { type: 'submit', class: 'send' }, 'Send');
    const composer = h('form', { class: 'composer' }, h('label', { for: 'q', class: 'sr' }, 'Your message'), input, send);
    const panel = h(
      'div',
      { id: 'p', class: 'panel', role: 'dialog', 'aria-modal': 'false', 'aria-labelledby': 't', hidden: '' },
      h('header', {}, h('h2', { id: 't' }, title), closeBtn),
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
      return h('div', { class: 'src' }, h('p', {}, 'Sources'), list);
    }

    function bubble(entry: Entry): HTMLElement {
      const b = h('div', { class: `m ${entry.role}` });
      if (entry.role === 'user') b.append(h('span', { class: 'sr' }, 'You: '));
      b.append(entry.text);
      const src = entry.sources && sourcesBlock(entry.sources);
      if (src) b.append(src);
      log.append(b);
      scroll();
      return b;
    }

    function remember(entry: Entry): void {
      history = [...history, entry].slice(-30);
      tab.set(key('log'), JSON.stringify(history));
    }

    function setOpen(open: boolean, focus = true): void {
      panel.hidden = !open;
      launcher.setAttribute('aria-expanded', String(open));
      // Not "Close chat": that is the header's button, and two of a name confuse a screen-reader user.
      launcher.setAttribute('aria-label', open ? 'Hide chat' : 'Open chat');
      tab.set(key('open'), open ? '1' : '');
      if (open) {
        scroll();
        if (focus) input.focus();
      } else if (focus) launcher.focus();
    }

    async function failure(res: Response): Promise<Failure> {
      const body = (await res.json().catch(() => ({}))) as { error?: string };
      return { status: res.status, error: body.error ?? `HTTP ${res.status}`, fallback: ![400, 403, 413, 429].includes(res.status) };
    }

    /** POST /api/chat/stream and parse the Server-Sent Events as they arrive. */
    async function streamChat(body: string, onToken: (text: string) => void): Promise<Done> {
      let res: Response;
      try {
        res = await fetch(`${api}/api/chat/stream`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
          body,
        });
      } catch {
        throw { status: 0, error: 'network', fallback: true } satisfies Failure;
      }
      if (!res.ok) throw await failure(res);
      if (!res.body || !(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
        throw { status: res.status, error: 'not a stream', fallback: true } satisfies Failure;
      }
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      let tokens = 0;
      for (;;) {
        let chunk: ReadableStreamReadResult<string>;
        try {
          chunk = await reader.read();
        } catch {
          throw { status: 0, error: 'stream interrupted', fallback: tokens === 0 } satisfies Failure;
        }
        if (chunk.done) break;
        buffer += chunk.value.replace(/\r\n?/g, '\n');
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
          let event = 'message';
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data.push(line.slice(line[5] === ' ' ? 6 : 5));
          }
          if (data.length === 0) continue;
          const payload = JSON.parse(data.join('\n')) as { text?: string; error?: string } & Done;
          if (event === 'token' && payload.text) {
            tokens++;
            onToken(payload.text);
          } else if (event === 'done') {
            // The answer is complete; a failed cancel of the rest of the stream changes nothing for the visitor.
            reader.cancel().catch(() => {});
            return payload;
          } else if (event === 'error') {
            throw { status: 500, error: payload.error ?? 'error', fallback: tokens === 0 } satisfies Failure;
          }
        }
      }
      throw { status: 0, error: 'stream ended early', fallback: tokens === 0 } satisfies Failure;
    }

    async function plainChat(body: string): Promise<Done> {
      let res: Response;
      try {
        res = await fetch(`${api}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      } catch {
        throw { status: 0, error: 'network', fallback: false } satisfies Failure;
      }
      if (!res.ok) throw await failure(res);
      return (await res.json()) as Done;
    }

    async function ask(text: string): Promise<void> {
      busy = true;
      send.disabled = true;
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
          done = await streamChat(body, (t) => {
            shown += t;
            b.classList.remove('typing');
            textNode.data = shown;
            scroll();
          });
        } catch (err) {
          if (!(err as Failure).fallback || shown) throw err;
          done = await plainChat(body);
        }
        textNode.data = done.answer;
        const src = sourcesBlock(done.sources ?? []);
        if (src) b.append(src);
        if (done.sessionId) {
          sessionId = done.sessionId;
          local.set(key('session'), sessionId);
        }
        remember({ role: 'bot', text: done.answer, sources: done.sources });
      } catch (err) {
        const status = (err as Failure).status;
        const note =
          status === 429
            ? 'You are sending messages too quickly. Please wait a moment and try again.'
            : 'Sorry, something went wrong. Please try again.';
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
      if (done?.leadCaptureIntent) leadForm();
    }

    function field(name: string, label: string, type: string, required: boolean, autocomplete: string) {
      const id = `f-${name}`;
      const control =
        type === 'textarea'
          ? h('textarea', { id, name, rows: '2', maxlength: '4000' })
          : h('input', { id, name, type, autocomplete, maxlength: '320' });
      const error = h('p', { class: 'fe err', id: `${id}-e` });
      control.setAttribute('aria-describedby', error.id);
      if (required) control.setAttribute('aria-required', 'true');
      const text = h('label', { for: id }, label);
      if (required) text.append(h('span', { 'aria-hidden': 'true' }, ' *'));
      return { control, error, box: h('div', {}, text, control, error) };
    }

    function leadForm(): void {
      if (log.querySelector('.lead')) return;
      const fields = {
        name: field('name', 'Name', 'text', true, 'name'),
        email: field('email', 'Email', 'email', true, 'email'),
        phone: field('phone', 'Phone', 'tel', false, 'tel'),
        message: field('message', 'Message', 'textarea', false, 'off'),
      };
      const formError = h('p', { class: 'fe err', role: 'alert' });
      const submit = h('button', { type: 'submit', class: 'send-lead' }, 'Send my details');
      const form = h(
        'form',
        { class: 'lead', 'aria-labelledby': 'lh', novalidate: '' },
        h('p', { id: 'lh' }, 'Leave your details and we will get back to you.'),
        ...Object.values(fields).map((f) => f.box),
        formError,
        submit,
      );
      log.append(form);
      scroll();
      fields.name.control.focus();

      form.addEventListener('submit', async (e) => {
        e.preventDefault();
        if (submit.disabled) return;
        const value = (k: keyof typeof fields) => fields[k].control.value.trim();
        for (const f of Object.values(fields)) {
          f.error.textContent = '';
          f.control.removeAttribute('aria-invalid');
        }
        formError.textContent = '';
        submit.disabled = true;
        const body = {
          clientId,
          name: value('name'),
          email: value('email'),
          phone: value('phone') || undefined,
          message: value('message') || undefined,
          sessionId,
        };
        try {
          const res = await fetch(`${api}/api/lead`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          const out = (await res.json().catch(() => ({}))) as { details?: string[] | string };
          if (res.ok) {
            const thanks = h(
              'p',
              { class: 'm bot ok', role: 'status', tabindex: '-1' },
              `Thank you, ${body.name}! We will be in touch soon.`,
            );
            form.replaceWith(thanks);
            thanks.focus();
            remember({ role: 'bot', text: thanks.textContent ?? '' });
            return;
          }
          if (res.status !== 400) throw new Error(String(res.status));
          // The API names the field first in each detail: "email must be a valid email address".
          let first: HTMLElement | undefined;
          for (const detail of Array.isArray(out.details) ? out.details : [String(out.details ?? '')]) {
            const name = detail.split(/[\s.]/)[0] ?? '';
            const f = Object.hasOwn(fields, name) ? fields[name as keyof typeof fields] : undefined;
            const sentence = detail.charAt(0).toUpperCase() + detail.slice(1);
            if (f) {
              f.error.textContent = sentence;
              f.control.setAttribute('aria-invalid', 'true');
              first ??= f.control;
            } else formError.textContent = sentence;
          }
          (first ?? submit).focus();
        } catch {
          formError.textContent = 'Your details could not be sent. Please try again.';
        } finally {
          submit.disabled = false;
        }
      });
    }

    bubble({ role: 'bot', text: greeting });
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

  if (document.body) mount();
  else document.addEventListener('DOMContentLoaded', mount, { once: true });
}
