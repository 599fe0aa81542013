import type { Queryable } from './pool.ts';

/** One row per (client, normalised URL): the page a crawl indexed, whichever source's crawl saw it last. */
export interface PageRow {
  id: string;
  client_id: string;
  source_id: string;
  url: string;
  title: string;
  content_hash: string | null;
  etag: string | null;
  last_modified: string | null;
  http_status: number | null;
  status: 'indexed' | 'skipped' | 'failed' | 'gone';
  last_job_id: string | null;
  links: string[] | null;
  /** The sitemap <lastmod> the stored content was fetched under (null: not listed with one). */
  sitemap_lastmod: string | null;
  fetched_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export async function findPage(db: Queryable, clientId: string, url: string): Promise<PageRow | undefined> {
  const { rows } = await db.query<PageRow>('SELECT * FROM pages WHERE client_id = $1 AND url = $2', [clientId, url]);
  return rows[0];
}

/** A chunk, as the chat providers read a passage. */
export interface PassageRow {
  id: string;
  url: string;
  title: string;
  heading: string | null;
  content: string;
}

/**
 * The first chunks of the client's home page, for "what do you do?" (chat/about-question.ts): of its
 * first website source, the indexed page with the shortest address that has chunks — the page the crawl
 * started from (filed under its directory's address), or the site's root when it started deeper. None
 * when the client has no website (texts and files only).
 */
export async function homePageChunks(db: Queryable, clientId: string, limit: number): Promise<PassageRow[]> {
  const { rows } = await db.query<PassageRow>(
    `SELECT d.id, d.url, d.title, d.heading, d.content
       FROM documents d
      WHERE d.page_id = (
              SELECT p.id FROM pages p JOIN sources s ON s.id = p.source_id
               WHERE p.client_id = $1 AND s.type = 'website' AND p.status = 'indexed'
                 AND EXISTS (SELECT 1 FROM documents x WHERE x.page_id = p.id)
               ORDER BY s.created_at, length(p.url), p.url
               LIMIT 1)
      ORDER BY d.chunk_index
      LIMIT $2`,
    [clientId, limit],
  );
  return rows;
}

// An amount with its currency (Postgres' regular expressions: \m, \M are word edges). "$" only before two
// digits or cents: "$1", "$2" and "$1,1" are a documentation site's SQL and shell placeholders, not prices.
const AMOUNT = String.raw`\$\s?(\d{2,}|\d[.,]\d\d\M)|[€£¥₹]\s?\d|\d\s?[€£¥₹]|\m\d+([.,]\d+)?\s?(eur|euros?|usd|dollars?|gbp|pounds|chf|francs?|yen|reais|brl|mxn|cad|aud)\M`;
// A page or a section that says it lists prices (its address, title or heading), or a table's column of them
// ("Ticket | Price"); not "cost", which a delivery table's column is.
const PRICE_NAMED = String.raw`\m(price|prices|pricing|fees|rates|tariffs?|tarifs?|precios|tarifas|preise|preisliste|precos|preços|prix)\M`;
const PRICE_COLUMN = String.raw`\|\s*(price|prices|fee|fees|rate|rates|precio|tarifa|prix|tarif|preis|preço|preco)\s*(\||\n|$)`;
/** What names a page or a section for delivery, in the five languages (here and in chat/delivery-question.ts). */
export const DELIVERY_WORDS =
  'delivery|deliveries|shipping|postage|envios?|envíos?|gastos de envio|versand|lieferung|livraisons?|frais de port|frete|entregas?';
// A page or a section of what comes on top of the prices — delivery, shipping, postage — in the five
// languages: a shop's delivery table states more amounts than a product page, and is not its prices.
const ANCILLARY_NAMED = String.raw`\m(${DELIVERY_WORDS})\M`;

// A page about the business, by its address' last part (its words in order of how surely they mean it:
// "about-us" before "what-is" before "introduction" before "overview") or by its title.
const ABOUT_ADDRESS = [
  String.raw`about|about-?us|who-?we-?are|our-?story|quienes-?somos|sobre-?nosotros|nosotros|ueber-?uns|uber-?uns|a-?propos|qui-?sommes-?nous|quem-?somos`,
  String.raw`what-?is|que-?es|was-?ist`,
  String.raw`introduction|intro|einfuehrung|introduccion`,
  String.raw`overview`,
];
// A title says so only with the surer names: a documentation's "Introduction" page opens with an epigraph,
// its "Overview of new features" is about a release.
const ABOUT_TITLE = String.raw`^(about|who we are|our story|what is|sobre|quiénes somos|qué es|über uns|was ist|à propos|qui sommes-nous|qu'est-ce que)\M`;

/**
 * The first chunks of the client's page about itself, for "what do you do?" when its home page is a
 * contents page that states nothing: of its first website source's pages at the top of the site (one
 * step below its root), the one whose address names it ("about-us.html", "intro-whatis.html",
 * "ch-introduction.html") — the surest name first, then the shortest address — else whose title does
 * ("About this documentation", "What is this aptitude thing, anyway?"). Before those, the page whose first
 * chunk says what the client's `name` is ("GnuCash is the personal finance software package made for
 * you", where the address names a chapter's "bus-intro"). None when no page is named so.
 */
export async function aboutPageChunks(db: Queryable, clientId: string, limit: number, name = ''): Promise<PassageRow[]> {
  const { rows } = await db.query<PassageRow>(
    `WITH top AS (
       SELECT p.id, p.url, p.title, s.created_at, lower(substring(p.url from '([^/]+)/?$')) AS part,
              $5 <> '' AND EXISTS (SELECT 1 FROM documents x WHERE x.page_id = p.id AND x.chunk_index = 0 AND x.content ~* $5) AS defines
         FROM pages p JOIN sources s ON s.id = p.source_id
        WHERE p.client_id = $1 AND s.type = 'website' AND p.status = 'indexed'
          AND p.url ~ '^[a-z]+://[^/]+/[^/]+/?$'
          AND EXISTS (SELECT 1 FROM documents x WHERE x.page_id = p.id)),
     named AS (
       SELECT t.id, t.url, t.created_at,
              (SELECT min(k) FROM unnest($3::text[]) WITH ORDINALITY AS a(words, k)
                WHERE t.part ~ ('(^|[-_.])(' || a.words || ')([-_.]|$)')) AS rank
         FROM top t)
     SELECT d.id, d.url, d.title, d.heading, d.content
       FROM documents d
      WHERE d.page_id = (
              SELECT n.id FROM named n JOIN top t ON t.id = n.id
               WHERE t.defines OR n.rank IS NOT NULL OR t.title ~* $4
               ORDER BY n.created_at, t.defines DESC, n.rank NULLS LAST, length(n.url), n.url
               LIMIT 1)
      ORDER BY d.chunk_index
      LIMIT $2`,
    [clientId, limit, ABOUT_ADDRESS, ABOUT_TITLE, definitionOf(name)],
  );
  return rows;
}

/**
 * A page's first words saying what the client's name is ("GnuCash is the personal finance software
 * package…"; not "The GnuCash Documentation Team is…", nor a chapter opening with an epigraph), as a
 * Postgres regular expression; empty for no name.
 */
function definitionOf(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return '';
  const escaped = words.map((w) => w.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')).join('\\s+');
  return String.raw`^\W*(the\s+)?${escaped}\s+(is|are)\s+(a|an|the)\M`;
}

/**
 * The client's price list, for "what are your prices?" (chat/about-question.ts): its chunks stating
 * amounts, those of a page or section named for prices first ("Prices", "pricing.html", a table's "Price"
 * column), those named for delivery or shipping last, then by how many amounts each states, then in page
 * order (a home page's bestsellers first). A
 * chunk named for none is a list when it states two amounts at least: one is a price in passing (a plan's
 * "49 dollars per month" in its description, an SQL example's "100.00"). None when the client has no such
 * chunk.
 */
export async function priceListChunks(db: Queryable, clientId: string, limit: number): Promise<PassageRow[]> {
  const { rows } = await db.query<PassageRow>(
    `WITH stating AS (
       SELECT d.id, d.url, d.title, d.heading, d.content, d.chunk_index,
              (d.url || ' ' || d.title || ' ' || coalesce(d.heading, '')) ~* $3 OR d.content ~* $4 AS named,
              (d.url || ' ' || d.title || ' ' || coalesce(d.heading, '')) ~* $6 AS ancillary,
              (SELECT count(*) FROM regexp_matches(d.content, $2, 'gi')) AS amounts
         FROM documents d JOIN sources s ON s.id = d.source_id
        WHERE d.client_id = $1 AND s.type <> 'answer' AND d.content ~* $2)
     SELECT id, url, title, heading, content FROM stating
      WHERE named OR amounts >= 2
      ORDER BY named DESC, ancillary, amounts DESC, url, chunk_index
      LIMIT $5`,
    [clientId, AMOUNT, PRICE_NAMED, PRICE_COLUMN, limit, ANCILLARY_NAMED],
  );
  return rows;
}

export interface PageWrite {
  clientId: string;
  sourceId: string;
  jobId: string;
  url: string;
  title: string;
  contentHash: string;
  etag: string | null;
  lastModified: string | null;
  httpStatus: number;
  links: string[];
  sitemapLastmod: string | null;
}

/** Inserts or refreshes the page as indexed by this job; returns its id. */
export async function upsertIndexedPage(db: Queryable, p: PageWrite): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO pages (client_id, source_id, url, title, content_hash, etag, last_modified, http_status, status, last_job_id, links,
                        sitemap_lastmod, fetched_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'indexed', $9, $10, $11, now())
     ON CONFLICT (client_id, url) DO UPDATE SET
       source_id = EXCLUDED.source_id, title = EXCLUDED.title, content_hash = EXCLUDED.content_hash,
       etag = EXCLUDED.etag, last_modified = EXCLUDED.last_modified, http_status = EXCLUDED.http_status,
       status = 'indexed', last_job_id = EXCLUDED.last_job_id, links = EXCLUDED.links,
       sitemap_lastmod = EXCLUDED.sitemap_lastmod, fetched_at = now(), updated_at = now()
     RETURNING id`,
    [p.clientId, p.sourceId, p.url, p.title, p.contentHash, p.etag, p.lastModified, p.httpStatus, p.jobId, p.links, p.sitemapLastmod],
  );
  return (rows[0] as { id: string }).id;
}

/**
 * Removes the source's pages (and, by cascade, their documents) that this crawl did not see.
 * Kept: pages whose URL failed transiently in this crawl (a 5xx is not "gone"), and — when the
 * crawl hit maxPages — pages it never reached (not being reached is no evidence they are gone).
 */
export async function deleteGonePages(db: Queryable, input: { sourceId: string; jobId: string; capped: boolean }): Promise<number> {
  // The removed pages are recorded as this crawl's changes in the same statement.
  const { rows } = await db.query<{ n: string }>(
    `WITH gone AS (
       DELETE FROM pages p
        WHERE p.source_id = $1
          AND p.last_job_id IS DISTINCT FROM $2
          AND NOT EXISTS (SELECT 1 FROM crawl_urls c WHERE c.job_id = $2 AND c.url = p.url AND c.state IN ('failed', 'queued', 'active'))
          AND (NOT $3 OR EXISTS (SELECT 1 FROM crawl_urls c WHERE c.job_id = $2 AND c.url = p.url))
       RETURNING p.url
     ), recorded AS (
       INSERT INTO crawl_changes (job_id, source_id, url, change)
       SELECT $2, $1, url, 'removed' FROM gone
       ON CONFLICT (job_id, url) DO NOTHING
     )
     SELECT count(*) AS n FROM gone`,
    [input.sourceId, input.jobId, input.capped],
  );
  return Number(rows[0]?.n ?? 0);
}

export interface CrawlChanges {
  jobId: string;
  status: string;
  startedAt: Date | null;
  finishedAt: Date | null;
  counts: { added: number; changed: number; removed: number };
  added: string[];
  changed: string[];
  removed: string[];
}

/** The source's last `limit` crawls, newest first, each with the URLs it added, changed and removed (up to `perList` each). */
export async function listCrawlChanges(db: Queryable, sourceId: string, limit: number, perList = 200): Promise<CrawlChanges[]> {
  const { rows } = await db.query<{
    id: string;
    status: string;
    started_at: Date | null;
    finished_at: Date | null;
    change: string | null;
    urls: string[] | null;
    n: string | null;
  }>(
    `WITH crawls AS (
       SELECT id, status, started_at, finished_at, created_at FROM jobs
        WHERE source_id = $1 AND kind = 'crawl' ORDER BY created_at DESC, id DESC LIMIT $2
     )
     SELECT c.id, c.status, c.started_at, c.finished_at, g.change, g.urls, g.n
       FROM crawls c
       LEFT JOIN LATERAL (
         SELECT change, count(*) AS n, (array_agg(url ORDER BY url))[1:$3] AS urls
           FROM crawl_changes WHERE job_id = c.id GROUP BY change
       ) g ON true
      ORDER BY c.created_at DESC, c.id DESC`,
    [sourceId, limit, perList],
  );
  const out = new Map<string, CrawlChanges>();
  for (const r of rows) {
    let e = out.get(r.id);
    if (!e) {
      e = {
        jobId: r.id,
        status: r.status,
        startedAt: r.started_at,
        finishedAt: r.finished_at,
        counts: { added: 0, changed: 0, removed: 0 },
        added: [],
        changed: [],
        removed: [],
      };
      out.set(r.id, e);
    }
    if (r.change === 'added' || r.change === 'changed' || r.change === 'removed') {
      e.counts[r.change] = Number(r.n);
      e[r.change] = r.urls ?? [];
    }
  }
  return [...out.values()];
}
