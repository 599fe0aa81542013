import { isUuid } from './clients.ts';
import type { Queryable } from './pool.ts';

/** One per (client, normalised start URL): a re-crawl reuses it, so sourceId is stable. */
export interface SourceRow {
  id: string;
  client_id: string;
  start_url: string;
  created_at: Date;
  last_crawled_at: Date | null;
  /** What its re-crawls reuse: the last crawl's maxPages, render and scope. */
  crawl_options: SourceCrawlOptions;
  /** 'off', 'daily', 'weekly' or a cron pattern (pipeline/schedules.ts). */
  schedule: string;
}

export interface SourceCrawlOptions {
  maxPages?: number;
  render?: 'auto' | 'never' | 'always';
  include?: string[];
  exclude?: string[];
}

export async function setSourceCrawlOptions(db: Queryable, sourceId: string, options: SourceCrawlOptions): Promise<void> {
  await db.query('UPDATE sources SET crawl_options = $2 WHERE id = $1', [sourceId, JSON.stringify(options)]);
}

export async function setSourceSchedule(db: Queryable, sourceId: string, schedule: string): Promise<SourceRow | undefined> {
  const { rows } = await db.query<SourceRow>('UPDATE sources SET schedule = $2 WHERE id = $1 RETURNING *', [sourceId, schedule]);
  return rows[0];
}

export async function findClientSource(db: Queryable, clientId: string, sourceId: string): Promise<SourceRow | undefined> {
  if (!isUuid(sourceId)) return undefined;
  const { rows } = await db.query<SourceRow>('SELECT * FROM sources WHERE id = $1 AND client_id = $2', [sourceId, clientId]);
  return rows[0];
}

/** Sources with a schedule (re-registered with the queue at start: a Redis that lost them gets them back). */
export async function scheduledSources(db: Queryable): Promise<SourceRow[]> {
  const { rows } = await db.query<SourceRow>("SELECT * FROM sources WHERE schedule <> 'off'");
  return rows;
}

export async function upsertSource(db: Queryable, clientId: string, startUrl: string): Promise<SourceRow> {
  // DO UPDATE (a no-op write) rather than DO NOTHING so RETURNING yields the existing row too.
  const { rows } = await db.query<SourceRow>(
    `INSERT INTO sources (client_id, start_url) VALUES ($1, $2)
     ON CONFLICT (client_id, start_url) DO UPDATE SET start_url = EXCLUDED.start_url
     RETURNING *`,
    [clientId, startUrl],
  );
  return rows[0] as SourceRow;
}

export async function touchSourceCrawled(db: Queryable, sourceId: string): Promise<void> {
  await db.query('UPDATE sources SET last_crawled_at = now() WHERE id = $1', [sourceId]);
}

export interface SourceWithCounts extends SourceRow {
  pages: number;
  documents: number;
  embedded_documents: number;
}

export async function listSourcesWithCounts(db: Queryable, clientId: string): Promise<SourceWithCounts[]> {
  const { rows } = await db.query<SourceRow & { pages: string; documents: string; embedded_documents: string }>(
    `SELECT s.*,
            (SELECT count(*) FROM pages p WHERE p.source_id = s.id) AS pages,
            (SELECT count(*) FROM documents d WHERE d.source_id = s.id) AS documents,
            (SELECT count(*) FROM documents d WHERE d.source_id = s.id AND d.embedding IS NOT NULL) AS embedded_documents
       FROM sources s
      WHERE s.client_id = $1
      ORDER BY s.created_at, s.id`,
    [clientId],
  );
  return rows.map((r) => ({
    ...r,
    pages: Number(r.pages),
    documents: Number(r.documents),
    embedded_documents: Number(r.embedded_documents),
  }));
}
