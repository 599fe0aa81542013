import type { Queryable } from './pool.ts';

/** One per (client, normalised start URL): a re-crawl reuses it, so sourceId is stable. */
export interface SourceRow {
  id: string;
  client_id: string;
  start_url: string;
  created_at: Date;
  last_crawled_at: Date | null;
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

export async function findSource(db: Queryable, sourceId: string): Promise<SourceRow | undefined> {
  const { rows } = await db.query<SourceRow>('SELECT * FROM sources WHERE id = $1', [sourceId]);
  return rows[0];
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
