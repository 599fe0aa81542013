import { call, clientPath, describe } from './api.ts';
import { button, card, h, nextId, type Row, select, statusCell, table, text, when } from './dom.ts';
import type { Activity } from './jobs.ts';
import { fail, say } from './notify.ts';
import { sourceForms } from './source-forms.ts';

const SCHEDULES: [string, string][] = [
  ['off', 'Off'],
  ['daily', 'Daily'],
  ['weekly', 'Weekly'],
  ['cron', 'Cron pattern'],
];

export interface SourcesContext {
  clientId: string;
  activity: Activity;
}

/** Websites, texts and files (docs/sources.md): add, crawl, schedule, see what each crawl changed, delete. */
export function sourcesSection(ctx: SourcesContext) {
  const base = clientPath(ctx.clientId);
  const listBody = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  const changesSlot = h('div');
  const refresh = button('Refresh');
  const list = card('Sources', listBody, h('div', { class: 'row' }, refresh));
  refresh.addEventListener('click', () => void reload());

  function scheduleControl(s: Row): Node {
    if (s.type !== 'website') return h('span', { class: 'muted' }, 'not crawled');
    const current = String(s.schedule ?? 'off');
    const preset = ['off', 'daily', 'weekly'].includes(current) ? current : 'cron';
    const choice = select(SCHEDULES, preset);
    choice.setAttribute('aria-label', `Schedule of ${String(s.url)}`);
    const cron = h('input', { class: 'cron mono', placeholder: '0 3 * * *', 'aria-label': `Cron pattern of ${String(s.url)}` });
    cron.value = preset === 'cron' ? current : '';
    cron.hidden = preset !== 'cron';
    choice.addEventListener('change', () => {
      cron.hidden = choice.value !== 'cron';
      if (!cron.hidden) cron.focus();
    });
    const set = button('Set', '', 'button', { 'aria-label': `Set schedule of ${String(s.url)}` });
    set.addEventListener('click', async () => {
      const schedule = choice.value === 'cron' ? cron.value.trim() : choice.value;
      try {
        const saved = await call('PATCH', `${base}/sources/${encodeURIComponent(String(s.sourceId))}`, { schedule });
        say(`Schedule of ${String(s.url)}: ${String(saved.schedule)}${saved.nextRunAt ? `, next run ${when(saved.nextRunAt)}` : ''}.`);
        void reload();
      } catch (err) {
        fail(err);
      }
    });
    return h('div', { class: 'sched' }, choice, cron, set);
  }

  function actions(s: Row): Node {
    const label = String(s.title ?? s.url);
    const box = h('div', { class: 'row tight' });
    if (s.type === 'website') {
      const changes = button('Changes', '', 'button', { 'aria-label': `Changes of ${label}` });
      changes.addEventListener('click', () => void showChanges(s));
      box.append(changes);
    }
    const del = button('Delete', 'danger', 'button', { 'aria-label': `Delete ${label}` });
    del.addEventListener('click', async () => {
      if (!confirm(`Delete the source “${label}” with its pages, documents and schedule?`)) return;
      try {
        await call('DELETE', `${base}/sources/${encodeURIComponent(String(s.sourceId))}`);
        say(`Source “${label}” deleted.`);
        changesSlot.replaceChildren();
        void reload();
      } catch (err) {
        fail(err);
      }
    });
    box.append(del);
    return box;
  }

  async function reload(): Promise<void> {
    try {
      const { sources } = await call<{ sources: Row[] }>('GET', `${base}/sources`);
      listBody.replaceChildren(
        table(
          'Sources',
          [
            { label: 'Type', cell: (r) => h('span', { class: 'nowrap' }, text(r.type)) },
            {
              label: 'Source',
              cell: (r) =>
                r.type === 'website' ? text(r.url) : h('span', {}, text(r.title), h('br'), h('small', { class: 'muted' }, text(r.url))),
            },
            { label: 'Pages', cell: (r) => text(r.pages) },
            { label: 'Documents', cell: (r) => text(r.documents) },
            { label: 'Embedded', cell: (r) => text(r.embeddedDocuments) },
            { label: 'Schedule', cell: scheduleControl },
            { label: 'Next run', cell: (r) => when(r.nextRunAt) },
            { label: 'Last crawled', cell: (r) => when(r.lastCrawledAt) },
            {
              label: 'Last crawl',
              cell: (r) => {
                const job = r.lastJob as Row | null | undefined;
                return job ? h('span', {}, statusCell(job.status), ` ${text(job.message)}`) : '—';
              },
            },
            { label: 'Actions', cell: actions },
          ],
          sources,
          'No sources yet: crawl a website, add a text or upload a file.',
        ),
      );
    } catch (err) {
      listBody.replaceChildren(h('p', { class: 'alert' }, describe(err)));
    }
  }

  async function showChanges(s: Row): Promise<void> {
    const headingId = nextId('h');
    const box = h(
      'section',
      { class: 'card', 'aria-labelledby': headingId },
      h('h3', { id: headingId, tabindex: '-1' }, `Changes of ${String(s.url)}`),
      h('p', { class: 'muted' }, 'Loading…'),
    );
    changesSlot.replaceChildren(box);
    try {
      const data = await call<{ crawls: Row[] }>('GET', `${base}/sources/${encodeURIComponent(String(s.sourceId))}/changes?limit=10`);
      const body: Node[] = [];
      if (data.crawls.length === 0) body.push(h('p', { class: 'muted empty' }, 'No crawl of this source has recorded changes yet.'));
      for (const c of data.crawls) {
        const counts = (c.counts ?? {}) as Row;
        const urlList = (kind: string) => {
          const urls = Array.isArray(c[kind]) ? (c[kind] as string[]) : [];
          return urls.length
            ? h(
                'details',
                {},
                h('summary', {}, `${kind} (${String(counts[kind] ?? urls.length)})`),
                h('ul', {}, ...urls.map((u) => h('li', { class: 'mono' }, u))),
              )
            : h('p', { class: 'muted' }, `${kind}: none`);
        };
        body.push(
          h(
            'div',
            { class: 'crawl' },
            h(
              'p',
              {},
              statusCell(c.status),
              ` ${when(c.startedAt)} → ${when(c.finishedAt)}: `,
              `${text(counts.added)} added, ${text(counts.changed)} changed, ${text(counts.removed)} removed`,
            ),
            urlList('added'),
            urlList('changed'),
            urlList('removed'),
          ),
        );
      }
      box.lastElementChild?.replaceWith(...body);
    } catch (err) {
      box.lastElementChild?.replaceWith(h('p', { class: 'alert' }, describe(err)));
    }
    box.querySelector('h3')?.focus();
  }

  const el = h('div', { class: 'stack' }, list, changesSlot, h('div', { class: 'grid' }, ...sourceForms(ctx, reload)));
  return { el, reload };
}
