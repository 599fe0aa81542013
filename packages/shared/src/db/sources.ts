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
  /** A crawled website, a text written by the operator, or an uploaded file (docs/sources.md). */
  type: 'website' | 'text' | 'file' | 'answer';
  /** The title a text or file was given (null for a website: its pages have their own). */
  title: string | null;
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
      WHERE s.client_id = $1 AND s.type <> 'answer'
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

/**
 * A text or file source with its original. Undefined when the client already has a source citing
 * this url (the caller answers 409).
 */
export async function insertDocumentSource(
  db: Queryable,
  input: {
    id: string;
    clientId: string;
    type: 'text' | 'file' | 'answer';
    title: string;
    url: string;
    file: { name: string; kind: string; bytes: Uint8Array };
  },
): Promise<SourceRow | undefined> {
  const { rows } = await db.query<SourceRow>(
    `INSERT INTO sources (id, client_id, start_url, type, title) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (client_id, start_url) DO NOTHING
     RETURNING *`,
    [input.id, input.clientId, input.url, input.type, input.title],
  );
  const source = rows[0];
  if (!source) return undefined;
  await db.query('INSERT INTO source_files (source_id, client_id, file_name, kind, byte_size, bytes) VALUES ($1, $2, $3, $4, $5, $6)', [
    source.id,
    input.clientId,
    input.file.name,
    input.file.kind,
    input.file.bytes.byteLength,
    Buffer.from(input.file.bytes),
  ]);
  return source;
}

export interface SourceFile {
  source_id: string;
  file_name: string;
  kind: string;
  byte_size: number;
  bytes: Buffer;
}

/** The original of a text or file source (the public /files/<sourceId> route). */
export async function findSourceFile(db: Queryable, sourceId: string): Promise<SourceFile | undefined> {
  if (!isUuid(sourceId)) return undefined;
  const { rows } = await db.query<SourceFile>(
    'SELECT source_id, file_name, kind, byte_size, bytes FROM source_files WHERE source_id = $1',
    [sourceId],
  );
  return rows[0];
}

/** Deletes a client's source; its pages, documents, file, crawls and changes go with it (ON DELETE CASCADE). */
export async function deleteClientSource(db: Queryable, clientId: string, sourceId: string): Promise<SourceRow | undefined> {
  if (!isUuid(sourceId)) return undefined;
  const { rows } = await db.query<SourceRow>('DELETE FROM sources WHERE id = $1 AND client_id = $2 RETURNING *', [sourceId, clientId]);
  return rows[0];
}
