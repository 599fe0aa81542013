import { call, clientPath } from './api.ts';
import { button, card, field, h, type Row, select } from './dom.ts';
import { fail, say } from './notify.ts';

export const webhookFormats: [string, string][] = [
  ['envelope', 'envelope (event + data)'],
  ['flat', 'flat'],
];
export const origins = (v: string) =>
  v
    .split(/[\s,]+/)
    .map((o) => o.trim())
    .filter(Boolean);

export function secretBox(secret: string): HTMLElement {
  const copy = button('Copy');
  copy.addEventListener('click', () => {
    navigator.clipboard?.writeText(secret).then(
      () => say('Secret copied.'),
      () => say('Copy failed: select the text and copy it.'),
    );
  });
  return h(
    'div',
    { class: 'secret', role: 'region', 'aria-label': 'Webhook signing secret' },
    h('strong', {}, 'Webhook signing secret — shown only this once. Store it where your webhook receiver can verify signatures:'),
    h('pre', { class: 'mono', 'data-secret': '' }, secret),
    copy,
  );
}

export interface SettingsContext {
  clientId: string;
  client: Row;
  secretSlot: HTMLElement;
  onRenamed(name: string): void;
  onDeleted(): void;
}

/** The client's own settings: name, lead webhook, allowed origins, retention; rotation and deletion. */
function clientSettings(ctx: SettingsContext): HTMLElement {
  const { client } = ctx;
  const base = clientPath(ctx.clientId);
  const name = h('input', { required: '', maxlength: '200' });
  name.value = String(client.name);
  const webhook = h('input', { type: 'url' });
  webhook.value = typeof client.leadWebhookUrl === 'string' ? client.leadWebhookUrl : '';
  const format = select(webhookFormats, String(client.webhookFormat));
  const allowed = h('textarea');
  allowed.value = Array.isArray(client.allowedOrigins) ? client.allowedOrigins.join('\n') : '';
  const retention = h('input', { type: 'number', min: '1', max: '3650' });
  retention.value = String(client.transcriptRetentionDays ?? 90);
  const rotate = button('Rotate webhook secret');
  const remove = button('Delete client', 'danger');
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'settings-h' },
    h('h3', { id: 'settings-h' }, 'Settings'),
    field('Name', name),
    field('Lead webhook URL', webhook, 'Empty: no webhook.'),
    field('Webhook format', format),
    field('Allowed origins', allowed, 'One per line. Empty: any origin.'),
    field('Keep transcripts (days)', retention),
    h('div', { class: 'row' }, button('Save', 'primary', 'submit'), rotate, remove),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const updated = await call('PATCH', base, {
        name: name.value,
        leadWebhookUrl: webhook.value.trim() || null,
        webhookFormat: format.value,
        allowedOrigins: origins(allowed.value),
        transcriptRetentionDays: Number(retention.value) || undefined,
      });
      ctx.onRenamed(String(updated.name));
      say('Settings saved.');
    } catch (err) {
      fail(err);
    }
  });
  rotate.addEventListener('click', async () => {
    if (!confirm('Rotate the webhook secret? The receiver must switch to the new one.')) return;
    try {
      const updated = await call('PATCH', base, { rotateWebhookSecret: true });
      ctx.secretSlot.replaceChildren(secretBox(String(updated.webhookSecret)));
      say('Webhook secret rotated.');
    } catch (err) {
      fail(err);
    }
  });
  remove.addEventListener('click', async () => {
    if (!confirm(`Delete “${String(client.name)}” and all of its pages, documents, sessions and leads?`)) return;
    try {
      await call('DELETE', base);
      say('Client deleted.');
      ctx.onDeleted();
    } catch (err) {
      fail(err);
    }
  });
  return form;
}

/** The widget's look (docs/widget.md, "Settings"); an empty field means the widget's default. */
function widgetSettings(ctx: SettingsContext): HTMLElement {
  const w = (ctx.client.widget ?? {}) as Row;
  const title = h('input', { maxlength: '60', placeholder: 'Chat with us' });
  title.value = typeof w.title === 'string' ? w.title : '';
  const greeting = h('textarea', { maxlength: '300', placeholder: 'Hi! Ask me anything about this site.' });
  greeting.value = typeof w.greeting === 'string' ? w.greeting : '';
  const color = h('input', { maxlength: '7', placeholder: '#1f4fd1', spellcheck: 'false' });
  color.value = typeof w.color === 'string' ? w.color : '';
  const swatch = h('span', { class: 'swatch', 'aria-hidden': 'true' });
  const paint = () => {
    swatch.style.background = /^#[0-9a-f]{6}$/i.test(color.value) ? color.value : '#1f4fd1';
  };
  paint();
  color.addEventListener('input', paint);
  const saved = Array.isArray(w.starterQuestions) ? (w.starterQuestions as string[]) : [];
  const starters = [0, 1, 2, 3].map((i) => {
    const input = h('input', { maxlength: '120' });
    input.value = saved[i] ?? '';
    return input;
  });
  const position = select(
    [
      ['bottom-right', 'Bottom right'],
      ['bottom-left', 'Bottom left'],
    ],
    String(w.position ?? 'bottom-right'),
  );
  const colorField = field('Accent colour', color, 'A hex colour such as #1f4fd1. Empty: the default.');
  colorField.querySelector('label')?.append(' ', swatch);
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'widget-h' },
    h('h3', { id: 'widget-h' }, 'Widget'),
    field('Title', title),
    field('Greeting', greeting),
    colorField,
    h('fieldset', {}, h('legend', {}, 'Starter questions'), ...starters.map((s, i) => field(`Starter question ${i + 1}`, s))),
    field('Position', position),
    h('div', { class: 'row' }, button('Save widget', 'primary', 'submit')),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      await call('PATCH', clientPath(ctx.clientId), {
        widget: {
          title: title.value.trim() || null,
          greeting: greeting.value.trim() || null,
          color: color.value.trim() || null,
          starterQuestions: starters.map((s) => s.value.trim()).filter(Boolean),
          position: position.value,
        },
      });
      say('Widget settings saved. Visitors see them within a minute.');
    } catch (err) {
      fail(err);
    }
  });
  return form;
}

export function settingsSection(ctx: SettingsContext): HTMLElement {
  const snippet = h(
    'pre',
    { class: 'mono' },
    `<script src="${location.origin}/widget.js" data-client-id="${ctx.clientId}" async></script>`,
  );
  return h(
    'div',
    { class: 'stack' },
    h('div', { class: 'grid' }, clientSettings(ctx), widgetSettings(ctx)),
    card('Embed the chat widget', h('p', { class: 'muted' }, 'Paste before </body> on the client’s site:'), snippet),
  );
}
