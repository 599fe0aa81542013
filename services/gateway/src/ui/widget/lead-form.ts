import { h } from './dom.ts';
import { t } from './strings.ts';

export interface LeadContext {
  api: string;
  clientId: string;
  log: HTMLElement;
  sessionId(): string | undefined;
  /** Keeps the thank-you in the tab's transcript. */
  remember(text: string): void;
  scroll(): void;
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

/**
 * The contact form an answer with leadCaptureIntent brings into the conversation. No validation of
 * its own (novalidate): the API's details are shown under the field each names (docs/widget.md).
 */
export function leadForm(ctx: LeadContext): void {
  const { log } = ctx;
  if (log.querySelector('.lead')) return;
  const fields = {
    name: field('name', t().name, 'text', true, 'name'),
    email: field('email', t().email, 'email', true, 'email'),
    phone: field('phone', t().phone, 'tel', false, 'tel'),
    message: field('message', t().message, 'textarea', false, 'off'),
  };
  const formError = h('p', { class: 'fe err', role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'send-lead' }, t().sendDetails);
  const form = h(
    'form',
    { class: 'lead', 'aria-labelledby': 'lh', novalidate: '' },
    h('p', { id: 'lh' }, t().leadIntro),
    ...Object.values(fields).map((f) => f.box),
    formError,
    submit,
  );
  log.append(form);
  ctx.scroll();
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
      clientId: ctx.clientId,
      name: value('name'),
      email: value('email'),
      phone: value('phone') || undefined,
      message: value('message') || undefined,
      sessionId: ctx.sessionId(),
    };
    try {
      const res = await fetch(`${ctx.api}/api/lead`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const out = (await res.json().catch(() => ({}))) as { details?: string[] | string };
      if (res.ok) {
        const thanks = h('p', { class: 'm bot ok', role: 'status', tabindex: '-1' }, t().thanks(body.name));
        form.replaceWith(thanks);
        thanks.focus();
        ctx.remember(thanks.textContent ?? '');
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
      formError.textContent = t().leadFailed;
    } finally {
      submit.disabled = false;
    }
  });
}
