import { answersSection } from './answers.ts';
import { call, clientPath } from './api.ts';
import { conversationsSection } from './conversations.ts';
import { h, type Row } from './dom.ts';
import { gapsSection } from './gaps.ts';
import { crawlActivity } from './jobs.ts';
import { leadsSection } from './leads.ts';
import { fail, say } from './notify.ts';
import { secretBox, settingsSection } from './settings.ts';
import { sourcesSection } from './sources.ts';
import { statsSection } from './stats.ts';
import { tabs } from './tabs.ts';

export const TABS = [
  ['settings', 'Settings'],
  ['sources', 'Sources'],
  ['conversations', 'Conversations'],
  ['gaps', 'Knowledge gaps'],
  ['answers', 'Curated answers'],
  ['leads', 'Leads'],
  ['stats', 'Stats'],
] as const;
export type Tab = (typeof TABS)[number][0];
export const isTab = (v: string | null): v is Tab => TABS.some(([k]) => k === v);

interface Section {
  el: HTMLElement;
  reload?: () => Promise<void>;
}

/**
 * One client: heading, the Jobs panel (shown in every section) and a tab per section, each built
 * the first time it is shown and reloaded each time. Resolves to undefined when the client cannot be read.
 */
export async function clientView(
  root: HTMLElement,
  clientId: string,
  opts: { tab: Tab; secret?: string; onChanged(): void; onDeleted(): void },
): Promise<{ leave(): void } | undefined> {
  let client: Row;
  try {
    client = await call('GET', clientPath(clientId));
  } catch (err) {
    fail(err);
    return undefined;
  }
  const heading = h('h2', { id: 'client-h', tabindex: '-1' }, `Client: ${String(client.name)}`);
  const secretSlot = h('div', {}, ...(opts.secret ? [secretBox(opts.secret)] : []));
  const sections: Partial<Record<Tab, Section>> = {};
  const activity = crawlActivity(clientId, (job) => {
    say(`${job.kind === 'crawl' ? 'Crawl' : 'Embedding generation'} ${String(job.status)}.`);
    void sections.sources?.reload?.();
  });
  const conversations = () => {
    sections.conversations ??= conversationsSection(clientId);
    return sections.conversations as ReturnType<typeof conversationsSection>;
  };
  const openConversation = (sessionId: string) => {
    view.show('conversations');
    void conversations().open(sessionId);
  };
  const build: Record<Tab, () => Section> = {
    settings: () => ({
      el: settingsSection({
        clientId,
        client,
        secretSlot,
        onRenamed: (name) => {
          heading.textContent = `Client: ${name}`;
          opts.onChanged();
        },
        onDeleted: () => {
          activity.stop();
          root.replaceChildren();
          root.hidden = true;
          opts.onDeleted();
        },
      }),
    }),
    sources: () => sourcesSection({ clientId, activity }),
    conversations,
    gaps: () => gapsSection(clientId, openConversation),
    answers: () => answersSection(clientId),
    leads: () => leadsSection(clientId, openConversation),
    stats: () => statsSection(clientId),
  };
  const view = tabs('Client sections', TABS, (tab, panel) => {
    sections[tab] ??= build[tab]();
    const section = sections[tab];
    panel.replaceChildren(section.el);
    void section.reload?.();
    const hash = `#client=${clientId}&tab=${tab}`;
    if (location.hash !== hash) history.replaceState(null, '', hash);
  });

  root.replaceChildren(heading, h('p', {}, 'Client ID ', h('code', {}, clientId)), secretSlot, activity.el, view.tablist, view.panel);
  root.hidden = false;
  view.show(opts.tab);
  heading.focus();
  return { leave: () => activity.stop() };
}
