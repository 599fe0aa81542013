import { type ApiFailure, call, clientPath, describe } from './api.ts';
import { button, h, nextId, type Row, text, words } from './dom.ts';

const POLL_MS = 1000;
/** How often the client's sources are checked for a crawl started elsewhere (another tab, a schedule, the CLI). */
const DISCOVER_MS = 4000;

const finished = (job: Row) => job.status === 'completed' || job.status === 'failed';

/** Progress of one admin job: status line, progress bar and live counters, polled from /api/admin/jobs/:jobId. */
function jobPanel(jobId: string, label: string, subject: string, onFinished: (job: Row) => void) {
  const status = h('p', { role: 'status' });
  const bar = h('progress', { 'aria-label': `${label} progress`, max: '1' });
  const counters = h('dl', { class: 'counters' });
  const result = h('p');
  const el = h('div', { class: 'job', 'data-job-id': jobId }, h('p', { class: 'muted mono' }, subject), status, bar, counters, result);
  let stopped = false;
  status.textContent = `${label}: queued`;

  function render(job: Row): void {
    const p = (job.progress ?? {}) as Record<string, unknown>;
    const num = (k: string) => (typeof p[k] === 'number' ? (p[k] as number) : 0);
    const done = finished(job);
    const live = !done && typeof job.message === 'string' ? ` — ${job.message}` : '';
    status.textContent = `${label}: ${text(job.status)}${live}`;
    status.className = `status-${String(job.status)}`;
    // Crawling: pages settled (unchanged ones count as indexed) out of pages to visit (discovered,
    // capped by maxPages); embedding: vectors settled out of documents created. Unknown totals
    // leave the bar indeterminate.
    const maxPages = Number((job.options as Row | undefined)?.maxPages) || Number.POSITIVE_INFINITY;
    const [settled, total] =
      job.phase === 'crawling' || (job.kind === 'crawl' && job.phase !== 'embedding')
        ? [num('pagesIndexed') + num('pagesSkipped') + num('pagesFailed'), Math.min(num('pagesDiscovered'), maxPages)]
        : [num('embeddingsDone') + num('embeddingsFailed'), num('documentsCreated')];
    if (done) {
      bar.max = 1;
      bar.value = 1;
    } else if (total > 0) {
      bar.max = total;
      bar.value = Math.min(settled, total);
    } else bar.removeAttribute('value');
    counters.replaceChildren();
    for (const [k, v] of Object.entries(p)) {
      // An embeddings run has no pages: its page counters would only be noise.
      if (job.kind === 'generate-embeddings' && /^(pages|skip)/.test(k)) continue;
      let shown: string;
      if (typeof v === 'number') shown = v.toLocaleString();
      else if (v && typeof v === 'object') {
        const parts = Object.entries(v as Record<string, unknown>).map(([r, n]) => `${r} ${String(n)}`);
        if (parts.length === 0) continue;
        shown = parts.join(', ');
      } else continue;
      counters.append(h('div', {}, h('dt', {}, words(k)), h('dd', { 'data-counter': k }, shown)));
    }
    const res = (job.result ?? {}) as Row;
    const message = job.error ?? job.message ?? res.message;
    const notes = Array.isArray(job.notes) && job.notes.length ? ` (${job.notes.join(' ')})` : '';
    result.textContent = done && message ? `${String(message)}${notes}` : '';
    result.className = job.status === 'failed' ? 'alert' : '';
  }

  async function poll(): Promise<void> {
    if (stopped) return;
    try {
      const job = await call('GET', `/api/admin/jobs/${encodeURIComponent(jobId)}`);
      if (stopped) return;
      render(job);
      if (finished(job)) {
        stopped = true;
        onFinished(job);
        return;
      }
    } catch (err) {
      status.textContent = describe(err);
      if ((err as ApiFailure).status === 404) {
        stopped = true;
        return;
      }
    }
    setTimeout(() => void poll(), POLL_MS);
  }
  void poll();
  return {
    el,
    get running() {
      return !stopped;
    },
    stop() {
      stopped = true;
    },
  };
}

export interface Activity {
  el: HTMLElement;
  /** Shows a job started from this page at once (the sources listing may not name it yet). */
  watch(jobId: string, kind: 'crawl' | 'generate-embeddings', subject: string): void;
  stop(): void;
}

/**
 * The client's crawls in progress, shown above every section: found from the sources listing (each
 * source's last crawl job), so a crawl started in another tab, by a schedule or by the CLI shows
 * here too, and still shows after a reload. Finished jobs stay until the client is left.
 */
export function crawlActivity(clientId: string, onFinished: (job: Row) => void): Activity {
  const headingId = nextId('h');
  const list = h('div', { class: 'jobs' });
  const clear = button('Clear finished');
  const el = h(
    'section',
    { class: 'card activity', 'aria-labelledby': headingId, hidden: '' },
    h('h3', { id: headingId }, 'Jobs'),
    list,
    h('div', { class: 'row' }, clear),
  );
  const panels = new Map<string, ReturnType<typeof jobPanel>>();
  clear.addEventListener('click', () => {
    for (const panel of panels.values()) {
      if (panel.running) continue;
      panel.el.remove();
      // Kept in the map: the sources listing may still name the job as running for a moment.
    }
    el.hidden = list.childElementCount === 0;
  });
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  function watch(jobId: string, kind: string, subject: string): void {
    if (stopped || panels.has(jobId)) return;
    const panel = jobPanel(jobId, kind === 'crawl' ? 'Crawl' : 'Embeddings', subject, onFinished);
    panels.set(jobId, panel);
    list.prepend(panel.el);
    el.hidden = false;
  }

  async function discover(): Promise<void> {
    if (stopped) return;
    try {
      const { sources } = await call<{ sources: Row[] }>('GET', clientPath(clientId, '/sources'));
      for (const s of sources) {
        const job = s.lastJob as Row | null;
        if (job && (job.status === 'queued' || job.status === 'active')) watch(String(job.jobId), 'crawl', String(s.url));
      }
    } catch {
      /* the next round tries again; the sections show the error */
    }
    if (!stopped) timer = setTimeout(() => void discover(), DISCOVER_MS);
  }
  void discover();

  return {
    el,
    watch,
    stop() {
      stopped = true;
      clearTimeout(timer);
      for (const p of panels.values()) p.stop();
    },
  };
}
