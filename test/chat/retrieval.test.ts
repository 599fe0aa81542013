import { randomUUID } from 'node:crypto';
import { DEFAULT_RANKING, LOCAL_EMBEDDER_RANKING } from '@kbchat/shared/chat/ranking';
import { retrieve } from '@kbchat/shared/chat/retrieval';
import { loadConfig } from '@kbchat/shared/config';
import { insertClient } from '@kbchat/shared/db/clients';
import { lsaQueryVector, refreshLsa } from '@kbchat/shared/db/lsa';
import { createPool, type Pool } from '@kbchat/shared/db/pool';
import { refreshTermStats, searchCandidates } from '@kbchat/shared/db/retrieval';
import { graphMemory, lsaIndexName, reconcileVectorIndexes, vectorIndexName } from '@kbchat/shared/db/vector-index';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { testEnv } from '../support/kbchat.ts';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database.ts';
import { createSeeder, type Seeder, type SeedPage } from '../support/seed-documents.ts';
import { plumbingSite } from './corpus.ts';

const settings = { candidates: 20, passages: 6, exactScanMaxDocs: 2000, efSearch: 100 };

describe('retrieval against the real database', () => {
  let pool: Pool;
  let seeder: Seeder;
  let scratch: ScratchDatabase;
  const config = loadConfig(testEnv());

  const newClient = async () => (await insertClient(pool, { name: `retrieval-${randomUUID().slice(0, 6)}` })).id;
  /** The candidates of the full-text list alone (no query vector). */
  const fullTextCandidates = (clientId: string, query: string, k = 5) =>
    searchCandidates(pool, {
      clientId,
      embeddingModel: seeder.provider.model,
      embedding: undefined,
      query,
      k,
      exactScanMaxDocs: 2000,
      efSearch: 100,
    });
  /** The full-text list alone: its page URLs best first, and the off-topic count. */
  const fullTextSearch = async (clientId: string, query: string, k = 5) => {
    const result = await fullTextCandidates(clientId, query, k);
    const urls = result.candidates
      .filter((c) => c.ftsRank !== null)
      .sort((a, b) => (a.ftsRank as number) - (b.ftsRank as number))
      .map((c) => c.url);
    return { urls, absentTerms: result.absentTerms };
  };

  // A database of this file's own: what an HNSW scan finds depends on every row in the index, so
  // other test files' documents in the shared run database would change the premise below.
  beforeAll(async () => {
    scratch = await createScratchDatabase();
    pool = await createPool({ connectionString: scratch.url, max: 4 });
    seeder = createSeeder(scratch.url, config);
  });
  afterAll(async () => {
    await seeder?.close();
    await pool?.end();
    await scratch?.drop();
  });

  it('searches a tenant exactly until it has a graph of its own, then through it, with the same rows; and back', async () => {
    const query = 'boiler service plan monthly price for a combi boiler';
    // Three big tenants with hundreds of chunks close to the query...
    const bigs: string[] = [];
    for (let t = 0; t < 3; t++) {
      const big = await newClient();
      bigs.push(big);
      const pages: SeedPage[] = Array.from({ length: 150 }, (_, i) => ({
        url: `https://big${t}.example/plans/${i}`,
        title: `Boiler service plan ${i}`,
        chunks: [`Boiler service plan ${i}: the monthly price for a combi boiler service is ${10 + i} dollars, with variant ${t}-${i}.`],
      }));
      await seeder.seed(big, pages);
      await refreshTermStats(pool, big);
    }
    // ...and a tiny one whose three chunks are about something else entirely.
    const tiny = await newClient();
    const tinyIds = (
      await seeder.seed(tiny, [
        { url: 'https://tiny.example/hoses', title: 'Garden hoses', chunks: ['Our garden hoses come in green and yellow.'] },
        { url: 'https://tiny.example/taps', title: 'Outdoor taps', chunks: ['Frost-proof outdoor taps for the garden wall.'] },
        { url: 'https://tiny.example/cans', title: 'Watering cans', chunks: ['Watering cans of five and ten litres.'] },
      ])
    ).flat();
    await refreshTermStats(pool, tiny);
    const [embedding] = (await seeder.provider.embed([query])).vectors;
    const search = { clientId: tiny, embeddingModel: seeder.provider.model, embedding, query, k: 3, efSearch: 40 };
    const vectorRows = (r: Awaited<ReturnType<typeof searchCandidates>>) =>
      r.candidates
        .filter((c) => c.vectorRank !== null)
        .sort((a, b) => (a.vectorRank as number) - (b.vectorRank as number))
        .map((c) => c.id);

    // No graph is shared: past the threshold but without a graph of its own, a tenant is scanned exactly.
    const noGraph = await searchCandidates(pool, { ...search, exactScanMaxDocs: 0 });
    expect(noGraph.scan).toBe('exact');
    expect([...vectorRows(noGraph)].sort()).toEqual([...tinyIds].sort());
    // ef_search past the tenant's size: the graph's answer must then be the exact one.
    const bigSearch = { ...search, clientId: bigs[0] as string, k: 10, efSearch: 400 };
    const bigExact = vectorRows(await searchCandidates(pool, { ...bigSearch, exactScanMaxDocs: 2000 }));
    expect(bigExact).toHaveLength(10);

    if (inject('infraMode') === 'embedded') return; // the embedded database builds no graphs (one backend)

    // Every tenant past 2 chunks gets its own graph; the search then goes through it.
    const built = await reconcileVectorIndexes(pool, { exactScanMaxDocs: 2 });
    expect([...built.built].sort()).toEqual([...bigs, tiny].map(vectorIndexName).sort());
    expect(await reconcileVectorIndexes(pool, { exactScanMaxDocs: 2 })).toEqual({ built: [], dropped: [] });
    // What the graphs take beside the shared buffers (the sweep warns when they do not fit).
    const { rows: sizes } = await pool.query<{ total: number; largest: number; shared: number }>(
      `SELECT sum(pg_relation_size(c.oid))::float8 AS total, max(pg_relation_size(c.oid))::float8 AS largest,
              pg_size_bytes(current_setting('shared_buffers'))::float8 AS shared
         FROM pg_class c WHERE c.relname = ANY($1)`,
      [built.built],
    );
    expect(sizes[0]?.total).toBeGreaterThan(0);
    expect(await graphMemory(pool)).toEqual({
      graphBytes: sizes[0]?.total,
      largestBytes: sizes[0]?.largest,
      sharedBuffersBytes: sizes[0]?.shared,
    });
    // The graph holds the vectors at half precision; the search re-ranks its rows by the full ones.
    const { rows: defs } = await pool.query<{ indexdef: string }>('SELECT indexdef FROM pg_indexes WHERE indexname = $1', [
      vectorIndexName(tiny),
    ]);
    expect(defs[0]?.indexdef).toMatch(/\(\(embedding\)::halfvec\(1536\)\) halfvec_cosine_ops\).*WHERE \(client_id = /);
    const conn = await pool.connect();
    try {
      const viaOwn = await searchCandidates(conn, { ...search, exactScanMaxDocs: 2 });
      expect(viaOwn.scan).toBe('hnsw');
      expect(vectorRows(viaOwn)).toEqual(vectorRows(noGraph));
      // The backend's counters are flushed when it goes idle after this statement.
      await conn.query('SELECT pg_stat_force_next_flush()');
      const { rows: used } = await conn.query<{ idx_scan: string }>('SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = $1', [
        vectorIndexName(tiny),
      ]);
      expect(Number(used[0]?.idx_scan)).toBeGreaterThanOrEqual(1);
    } finally {
      conn.release();
    }
    // A big tenant's top 10 through its graph are its exact top 10.
    const bigHnsw = await searchCandidates(pool, { ...bigSearch, exactScanMaxDocs: 2 });
    expect(bigHnsw.scan).toBe('hnsw');
    expect(vectorRows(bigHnsw)).toEqual(bigExact);

    // Back: with the threshold at 100, the tiny tenant (3 ≤ 100 / 2) loses its graph and is scanned
    // exactly again; the big ones keep theirs. A deleted tenant's graph goes too.
    await pool.query('DELETE FROM clients WHERE id = $1', [bigs[2]]);
    const shrunk = await reconcileVectorIndexes(pool, { exactScanMaxDocs: 100 });
    expect([...shrunk.dropped].sort()).toEqual([tiny, bigs[2] as string].map(vectorIndexName).sort());
    const after = await searchCandidates(pool, { ...search, exactScanMaxDocs: 100 });
    expect(after.scan).toBe('exact');
    expect(vectorRows(after)).toEqual(vectorRows(noGraph));
    expect((await searchCandidates(pool, { ...bigSearch, exactScanMaxDocs: 100 })).scan).toBe('hnsw');

    // The transaction-local settings did not leak into the session.
    const { rows } = await pool.query(
      "SELECT current_setting('hnsw.iterative_scan', true) AS scan, current_setting('enable_sort') AS sort",
    );
    expect(rows[0].scan ?? '').not.toBe('relaxed_order');
    expect(rows[0].sort).toBe('on');
  });

  it('leaves a tenant whose crawl is running without a graph, and rebuilds one a build left invalid', async () => {
    if (inject('infraMode') === 'embedded') return;
    const client = await newClient();
    await seeder.seed(
      client,
      Array.from({ length: 6 }, (_, i) => ({ url: `https://busy.example/${i}`, title: `Page ${i}`, chunks: [`Chunk ${i} about pumps.`] })),
    );
    await refreshTermStats(pool, client);
    const name = vectorIndexName(client);
    const { rows } = await pool.query<{ id: string }>(
      "INSERT INTO jobs (client_id, kind, status) VALUES ($1, 'crawl', 'active') RETURNING id",
      [client],
    );
    expect((await reconcileVectorIndexes(pool, { exactScanMaxDocs: 5 })).built).not.toContain(name);
    await pool.query("UPDATE jobs SET status = 'completed' WHERE id = $1", [rows[0]?.id]);
    expect((await reconcileVectorIndexes(pool, { exactScanMaxDocs: 5 })).built).toContain(name);

    // What a build cut short leaves: an index marked invalid. The search ignores it; the next pass rebuilds it.
    await pool.query('UPDATE pg_index SET indisvalid = false WHERE indexrelid = $1::regclass', [name]);
    const search = { clientId: client, embeddingModel: seeder.provider.model, query: 'pumps', k: 3, efSearch: 40 };
    const [embedding] = (await seeder.provider.embed(['pumps'])).vectors;
    expect((await searchCandidates(pool, { ...search, embedding, exactScanMaxDocs: 5 })).scan).toBe('exact');
    expect((await reconcileVectorIndexes(pool, { exactScanMaxDocs: 5 })).built).toContain(name);
    expect((await searchCandidates(pool, { ...search, embedding, exactScanMaxDocs: 5 })).scan).toBe('hnsw');
  });

  it('compares the query only with documents embedded by the current model', async () => {
    const clientId = await newClient();
    const current = await seeder.seed(clientId, [
      { url: 'https://models.example/a', title: 'Radiator bleeding', chunks: ['How to bleed a radiator with a radiator key.'] },
    ]);
    const stale = await seeder.seed(
      clientId,
      [{ url: 'https://models.example/b', title: 'Radiator valves', chunks: ['Thermostatic radiator valves save energy.'] }],
      { embeddingModel: 'text-embedding-ada-002' },
    );
    const query = 'radiator';
    const [embedding] = (await seeder.provider.embed([query])).vectors;
    const { candidates } = await searchCandidates(pool, {
      clientId,
      embeddingModel: seeder.provider.model,
      embedding,
      query,
      k: 10,
      exactScanMaxDocs: 2000,
      efSearch: 40,
    });
    const byId = new Map(candidates.map((c) => [c.id, c]));
    expect(byId.get(current[0]![0]!)?.vectorRank).toBe(1);
    // Still found by full text (its words are real), but never ranked by a vector of another model.
    expect(byId.get(stale[0]![0]!)?.vectorRank).toBeNull();
    expect(byId.get(stale[0]![0]!)?.similarity).toBeNull();
    expect(byId.get(stale[0]![0]!)?.ftsRank).not.toBeNull();
  });

  it('matches full text with OR semantics: a question with words the page lacks still finds it', async () => {
    const clientId = await newClient();
    await seeder.seed(clientId, plumbingSite('https://fts.example'), { embed: false });
    const query = 'How can I claim the warranty on my zebra-striped bathtub?';
    // AND semantics (plain plainto_tsquery) finds nothing: no chunk mentions zebras or bathtubs.
    const and = await pool.query(
      "SELECT count(*)::int AS n FROM documents WHERE client_id = $1 AND fts @@ plainto_tsquery('kbchat_english', $2)",
      [clientId, query],
    );
    expect(and.rows[0].n).toBe(0);

    // No embeddings at all (as after a failed embedding step): full text alone still finds it (the
    // decline rule is off here: zebras and bathtubs are on no page of this plumber's site).
    const result = await retrieve(
      pool,
      { ...settings, ranking: { ...DEFAULT_RANKING, maxAbsentShare: 1 } },
      { clientId, query, embedding: undefined, embeddingModel: seeder.provider.model },
    );
    expect(result.scan).toBe('none');
    expect(result.passages[0]?.url).toBe('https://fts.example/warranty');
    // The all-in-one page repeats the warranty text: the specific page's chunk is kept, the repeat dropped.
    expect(result.passages.filter((p) => p.content.includes('five year warranty')).map((p) => p.url)).toEqual([
      'https://fts.example/warranty',
    ]);
  });

  it('returns which candidate pages link to which others, within the client', async () => {
    const pages = (host: string): SeedPage[] => [
      { url: `${host}/guide`, title: 'Server guide', chunks: ['Log files grow: rotate the log files with the rotation program.'] },
      { url: `${host}/rotation`, title: 'Rotating log files', chunks: ['The rotation program rotates log files by size or time.'] },
      { url: `${host}/caching`, title: 'Caching', chunks: ['Caching keeps copies of responses.'] },
    ];
    const clientId = await newClient();
    const other = await newClient();
    await seeder.seed(clientId, pages('https://links.example'), { embed: false });
    await seeder.seed(other, pages('https://links.example'), { embed: false });
    const link = (client: string, from: string, to: string[]) =>
      pool.query('UPDATE pages SET links = $3 WHERE client_id = $1 AND url = $2', [client, from, to]);
    // The guide links to the rotation page, to itself, to a page that is no candidate and to one the
    // site does not have; the rotation page links to nothing; the other client's guide to its pages.
    await link(clientId, 'https://links.example/guide', [
      'https://links.example/rotation',
      'https://links.example/guide',
      'https://links.example/caching',
      'https://links.example/elsewhere',
    ]);
    await link(other, 'https://links.example/guide', ['https://links.example/caching', 'https://links.example/rotation']);
    await refreshTermStats(pool, clientId);
    const result = await fullTextCandidates(clientId, 'how do I rotate log files');
    const pageOf = (url: string) => result.candidates.find((c) => c.url === url)?.pageId as string;
    expect(new Set(result.candidates.map((c) => c.url))).toEqual(
      new Set(['https://links.example/guide', 'https://links.example/rotation']),
    );
    expect(result.pageLinks).toEqual({ [pageOf('https://links.example/guide')]: [pageOf('https://links.example/rotation')] });
  });

  it('hands a chunk ending in a colon what its page’s next chunk says after the lines both hold', async () => {
    const clientId = await newClient();
    await seeder.seed(
      clientId,
      [
        {
          url: 'https://colon.example/zlib',
          title: 'Compression',
          chunks: [
            'The compression module compresses streams.\n\nCompressing a stream can be done by piping it through a compression stream:',
            // The chunker repeats a cut paragraph's last sentence at the next chunk's start.
            'Compressing a stream can be done by piping it through a compression stream:\n\nsource.pipe(createGzip()).pipe(destination);\n\nDecompressing works alike.',
          ],
        },
        {
          url: 'https://colon.example/options',
          title: 'Compression options',
          chunks: ['The compression stream takes these options:', '\n\nlevel: from 0 to 9'],
        },
        // The last chunk of its page: nothing follows it.
        { url: 'https://colon.example/last', title: 'Stream compression levels', chunks: ['The stream compression levels are:'] },
      ],
      { embed: false },
    );
    await refreshTermStats(pool, clientId);
    const { candidates } = await fullTextCandidates(clientId, 'compression stream', 10);
    const continuationOf = (start: string) => candidates.find((c) => c.content.startsWith(start))?.continuation;
    expect(continuationOf('The compression module')).toBe('\n\nsource.pipe(createGzip()).pipe(destination);\n\nDecompressing works alike.');
    expect(continuationOf('The compression stream takes')).toBe('\n\nlevel: from 0 to 9');
    expect(candidates.some((c) => c.content === 'The stream compression levels are:')).toBe(true);
    expect(continuationOf('The stream compression levels are:')).toBeUndefined();
    // A chunk that does not end in a colon has none.
    expect(continuationOf('Compressing a stream')).toBeUndefined();
  });

  it('tells a chunk under a question heading whether it goes on with a section begun in the chunk before', async () => {
    const clientId = await newClient();
    await seeder.seed(
      clientId,
      [
        {
          url: 'https://faq.example/updates',
          title: 'Keeping your system up to date',
          heading: '9.5. Can I automatically update the system?',
          chunks: [
            'Yes. You can use cron-apt; this tool updates the system at regular intervals.',
            'By default cron-apt only downloads the updates, it does not install them.',
          ],
        },
        { url: 'https://faq.example/apt', title: 'APT', heading: 'Upgrades with cron-apt', chunks: ['cron-apt runs apt-get from cron.'] },
      ],
      { embed: false },
    );
    await refreshTermStats(pool, clientId);
    const { candidates } = await fullTextCandidates(clientId, 'cron-apt updates', 10);
    const continues = (start: string) => candidates.find((c) => c.content.startsWith(start))?.continuesSection;
    expect(continues('Yes. You can use cron-apt')).toBe(false);
    expect(continues('By default cron-apt')).toBe(true);
    // A heading that asks nothing is not looked up.
    expect(candidates.some((c) => c.content.startsWith('cron-apt runs'))).toBe(true);
    expect(continues('cron-apt runs')).toBeUndefined();
  });

  it('reads full text through one index that holds the client beside the words', async () => {
    const { rows: defs } = await pool.query<{ indexname: string; indexdef: string }>(
      "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'documents' AND indexdef LIKE '%USING gin%'",
    );
    // One full-text index, the client first: the word-only index matched every client's chunks.
    expect(defs.map((d) => d.indexname)).toEqual(['documents_client_fts_idx']);
    expect(defs[0]?.indexdef).toMatch(/USING gin \(client_id, fts\)/);
  });

  it('weighs full-text words by how rare they are in the client’s documents once its term statistics are refreshed', async () => {
    // Twenty pages say "install" and "kit" again and again; one says "descaling" once, in a long text.
    const common: SeedPage[] = Array.from({ length: 20 }, (_, i) => ({
      url: `https://idf.example/install-${i}`,
      title: `Install the kit, model ${i}`,
      chunks: [`Install the kit: to install kit ${i}, install the frame, then install the kit cover. The kit installs in an hour.`],
    }));
    const rare: SeedPage = {
      url: 'https://idf.example/descaling',
      title: 'Boiler care',
      chunks: [
        'Once a year the boiler needs care: switch it off, let the water cool, open the service hatch, ' +
          'pour in the descaling solution from the kit, wait twenty minutes, flush twice and switch it back on.',
      ],
    };
    const clientId = await newClient();
    await seeder.seed(clientId, [...common, rare], { embed: false });
    // Another client's documents say "descaling" everywhere: its statistics are its own.
    const other = await newClient();
    await seeder.seed(
      other,
      Array.from({ length: 10 }, (_, i) => ({
        url: `https://other.example/${i}`,
        title: `Descaling ${i}`,
        chunks: [`Descaling kit ${i} for descaling.`],
      })),
      { embed: false },
    );
    const query = 'How do I install the descaling kit?';
    const fullText = async () => (await fullTextSearch(clientId, query)).urls;

    // The off-topic gate's count of words no chunk holds: by GIN probes before a refresh, from the
    // statistics after; the same either way: "suits" and "zebra", which no chunk of this client holds.
    const absent = async () => (await fullTextSearch(clientId, 'Which descaling kit suits a zebra boiler?')).absentTerms;
    expect(await absent()).toBe(2);

    // Before any refresh (a first crawl still running): ts_rank, which counts the common words.
    expect((await fullText())[0]).not.toBe(rare.url);
    await refreshTermStats(pool, other);
    expect((await fullText())[0]).not.toBe(rare.url);

    await refreshTermStats(pool, clientId);
    const { rows } = await pool.query<{ documents: number; lexemes: number }>(
      'SELECT t.documents, (SELECT count(*)::int FROM term_stats s WHERE s.client_id = t.client_id) AS lexemes FROM term_stats_totals t WHERE t.client_id = $1',
      [clientId],
    );
    expect(rows[0]?.documents).toBe(21);
    expect(rows[0]?.lexemes).toBeGreaterThan(20);
    // "descaling" is in one chunk of 21, "install" and "kit" in all: the one page about descaling leads.
    expect((await fullText())[0]).toBe(rare.url);
    expect(await absent()).toBe(2);
    // A refresh replaces the statistics: deleting the client's documents and refreshing leaves none.
    await pool.query('DELETE FROM documents WHERE client_id = $1', [clientId]);
    await refreshTermStats(pool, clientId);
    const after = await pool.query('SELECT count(*)::int AS n FROM term_stats WHERE client_id = $1', [clientId]);
    expect(after.rows[0].n).toBe(0);
  });

  it('returns where the question’s words stand, so a chunk holding them together ranks above one holding them apart', async () => {
    const together: SeedPage = {
      url: 'https://near.example/connecting',
      title: 'Connecting',
      chunks: ['Clients connect over TCP. The default port is 5432 unless the server was built otherwise.'],
    };
    const apart: SeedPage = {
      url: 'https://near.example/settings',
      title: 'Settings',
      chunks: ['Each setting has a default. The log collector writes files; a syslog port is configured in the logging section.'],
    };
    const filler: SeedPage[] = Array.from({ length: 8 }, (_, i) => ({
      url: `https://near.example/other-${i}`,
      title: `Other ${i}`,
      chunks: [`Tables, indexes and views number ${i} are described here.`],
    }));
    const clientId = await newClient();
    await seeder.seed(clientId, [together, apart, ...filler], { embed: false });
    await refreshTermStats(pool, clientId);
    const result = await fullTextCandidates(clientId, 'what is the default port');
    expect(result.queryTerms).toEqual(['default', 'port']);
    // "what is the default port": default is word 4, port word 5.
    expect(result.queryPositions).toEqual([[4], [5]]);
    const near = result.candidates.find((c) => c.url === together.url);
    const far = result.candidates.find((c) => c.url === apart.url);
    const [defaultAt, portAt] = near?.termPositions ?? [];
    expect(Math.abs((defaultAt?.[0] ?? 0) - (portAt?.[0] ?? 99))).toBe(1);
    expect(far?.termPositions.every((p) => p.length > 0)).toBe(true);
    const passages = await retrieve(pool, settings, {
      clientId,
      query: 'what is the default port',
      embedding: undefined,
      embeddingModel: seeder.provider.model,
    });
    expect(passages.passages[0]?.url).toBe(together.url);
    const without = await retrieve(
      pool,
      { ...settings, ranking: { ...DEFAULT_RANKING, proximityWeight: 0 } },
      { clientId, query: 'what is the default port', embedding: undefined, embeddingModel: seeder.provider.model },
    );
    expect(without.passages[0]?.score).toBeLessThan(passages.passages[0]?.score ?? 0);
  });

  it('draws full-text candidates from the rarest words of a long message', async () => {
    // 46 made-up words, each alone in three chunks, and one word in a single chunk that sorts last.
    const words = Array.from(
      { length: 46 },
      (_, i) => `kab${String.fromCharCode(97 + Math.floor(i / 26))}${String.fromCharCode(97 + (i % 26))}`,
    );
    const pages: SeedPage[] = words.flatMap((w, i) =>
      [0, 1, 2].map((copy) => ({ url: `https://long.example/${w}/${copy}`, title: `Note ${i}`, chunks: [`A note about ${w}.`] })),
    );
    pages.push({ url: 'https://long.example/quokka', title: 'Another note', chunks: ['A note about the zzquokka.'] });
    const clientId = await newClient();
    await seeder.seed(clientId, pages, { embed: false });
    await refreshTermStats(pool, clientId);
    // A pasted wall of words: only the 32 rarest single words (and pairs of the 12 rarest) select
    // candidates, so hundreds of lexemes cannot make a tsquery of every pair; the rarest word,
    // though last in alphabetical order, is among them and its chunk leads.
    const query = [...words, 'zzquokka'].join(' ');
    const { urls } = await fullTextSearch(clientId, query, 20);
    expect(urls[0]).toBe('https://long.example/quokka');
  });

  it('declines questions about what the site never mentions, and boosts the visitor’s page', async () => {
    const clientId = await newClient();
    await seeder.seed(clientId, plumbingSite('https://floor.example'));
    const ask = async (query: string, pageUrl?: string) => {
      const [embedding] = (await seeder.provider.embed([query])).vectors;
      return retrieve(pool, settings, {
        clientId,
        query,
        embedding,
        embeddingModel: seeder.provider.model,
        ...(pageUrl ? { pageUrl } : {}),
      });
    };
    const unrelated = await ask('What is the capital of France?');
    expect(unrelated.considered).toBeGreaterThan(0); // the vector list always returns rows...
    expect(unrelated.passages).toEqual([]); // ...but "capital" and "France" are on no page: declined.
    expect(unrelated.declined).toBe(true);

    const q = 'Do you repair burst pipes around the clock?';
    const boston = await ask(q, 'https://floor.example/locations/boston?utm_source=ad');
    const denver = await ask(q, 'https://floor.example/locations/denver');
    expect(boston.passages[0]?.url).toBe('https://floor.example/locations/boston');
    expect(boston.passages[0]?.boosted).toBe(true);
    expect(denver.passages[0]?.url).toBe('https://floor.example/locations/denver');
  });

  it('declines a question whose words the site holds only apart, each on a page of its own; answers where two stand together, among the candidates or beyond them', async () => {
    const clientId = await newClient();
    // The PostgreSQL docs' case: "weather" is the tutorial's example table, "Paris" a time zone, "today" a
    // date function — every word of "What's the weather in Paris today?" is on the site, none with another.
    const pages: SeedPage[] = [
      {
        url: 'https://apart.example/tutorial',
        title: 'Creating a table',
        chunks: ['The weather table holds a city, the low and high temperature and the amount of rain.'],
      },
      {
        url: 'https://apart.example/timezones',
        title: 'Time zones',
        chunks: ['A time zone can be written by its full name, such as the zone of Paris, or as an offset from UTC.'],
      },
      {
        url: 'https://apart.example/dates',
        title: 'Date functions',
        chunks: ['The function current_date returns today, and now() the current time of the transaction.'],
      },
      ...Array.from({ length: 6 }, (_, i) => ({
        url: `https://apart.example/other-${i}`,
        title: `Other ${i}`,
        chunks: [`An index on column ${i} speeds up lookups; vacuum reclaims the space of dead rows.`],
      })),
    ];
    await seeder.seed(clientId, pages, { embed: false });
    await refreshTermStats(pool, clientId);
    const ask = (query: string) =>
      retrieve(
        pool,
        { ...settings, ranking: LOCAL_EMBEDDER_RANKING },
        { clientId, query, embedding: undefined, embeddingModel: seeder.provider.model },
      );
    const weather = await ask("What's the weather in Paris today?");
    expect(weather.absentShare, JSON.stringify(weather.specificity)).toBe(0); // every word is on the site...
    expect(weather.declined).toBe(true); // ...but no page holds two of them: declined.
    expect(weather.passages).toEqual([]);
    // Three words, two of them on one page: answered from it.
    const zone = await ask('Which time zone name is Paris written with?');
    expect(zone.declined).toBe(false);
    expect(zone.passages[0]?.url).toBe('https://apart.example/timezones');

    // The candidates are the head of each list: a long page that says "weather" and "today" together
    // ranks below the three short pages in a list of three, and the site is asked before declining.
    const other = await newClient();
    const long = Array.from({ length: 60 }, (_, i) => `term${String.fromCharCode(97 + (i % 26))}${i}`).join(' ');
    await seeder.seed(
      other,
      [
        ...pages.map((p) => ({ ...p, url: p.url.replace('apart.example', 'together.example') })),
        { url: 'https://together.example/diary', title: 'Diary', chunks: [`The weather today was fine. ${long}.`] },
      ],
      { embed: false },
    );
    await refreshTermStats(pool, other);
    const few = await retrieve(
      pool,
      { ...settings, candidates: 1, ranking: LOCAL_EMBEDDER_RANKING },
      { clientId: other, query: "What's the weather in Paris today?", embedding: undefined, embeddingModel: seeder.provider.model },
    );
    expect(few.passages.map((p) => p.url)).not.toContain('https://together.example/diary');
    expect(few.declined).toBe(false);
  });

  it('learns the client’s related words when asked to, and finds a page by a word it never uses', async () => {
    const clientId = await newClient();
    // 120 chunks: the query-plan pages say "explain" with "plan"; one page says "explain" and
    // "analyze" but never "plan"; other pages are about disk space and backups.
    const topics = [
      ['explain', 'plan', 'query', 'cost', 'estimate', 'scan'],
      ['vacuum', 'space', 'disk', 'dead', 'tuple', 'reclaim'],
      ['dump', 'backup', 'restore', 'archive', 'copy', 'file'],
    ];
    const pages: SeedPage[] = Array.from({ length: 40 }, (_, p) => ({
      url: `https://lsa.example/${p}`,
      title: `Page ${p}`,
      chunks: Array.from({ length: 3 }, (_, c) => {
        const words = topics[p % 3] as string[];
        return `${words.filter((_, j) => (p + c + j) % 3 !== 0).join(' ')} sentence ${p} part ${c}.`;
      }),
    }));
    pages.push({ url: 'https://lsa.example/analyze', title: 'Analyze', chunks: ['explain analyze cost estimate scan actual rows.'] });
    await seeder.seed(clientId, pages, { embed: false });
    await refreshTermStats(pool, clientId);
    expect(await lsaQueryVector(pool, clientId, 'query plan')).toBeUndefined(); // no model yet
    expect(await refreshLsa(pool, clientId)).toBe(121);
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM lsa_chunks WHERE client_id = $1', [clientId]);
    expect(rows[0].n).toBe(121);
    const result = await retrieve(
      pool,
      { ...settings, ranking: { ...DEFAULT_RANKING, maxAbsentShare: 1 } },
      { clientId, query: 'how do I see the plan', embedding: undefined, embeddingModel: seeder.provider.model },
    );
    // "plan" is not on the analyze page: only the latent list can bring it.
    const analyze = (
      await searchCandidates(pool, {
        clientId,
        embeddingModel: seeder.provider.model,
        embedding: undefined,
        query: 'how do I see the plan',
        k: 60,
        exactScanMaxDocs: 2000,
        efSearch: 100,
        lsa: await lsaQueryVector(pool, clientId, 'how do I see the plan'),
      })
    ).candidates.find((c) => c.url === 'https://lsa.example/analyze');
    expect(analyze?.lsaRank).not.toBeNull();
    expect(analyze?.ftsRank).toBeNull();
    expect(result.passages[0]?.url).toMatch(/lsa\.example\/(\d+|analyze)$/);
    // At the local embedder's weight (0) the latent list is still fetched: its chunks are candidates
    // the other signals rank, as at weight 1 (the analyze page is in no other list).
    const local = await retrieve(
      pool,
      { ...settings, ranking: { ...LOCAL_EMBEDDER_RANKING, maxAbsentShare: 1 } },
      { clientId, query: 'how do I see the plan', embedding: undefined, embeddingModel: seeder.provider.model },
    );
    expect(local.considered).toBe(result.considered);
    // Another client is untouched, and a client too small to learn from has no vectors.
    const other = await newClient();
    await seeder.seed(other, [{ url: 'https://tiny.example/', title: 'Tiny', chunks: ['explain plan'] }], { embed: false });
    expect(await refreshLsa(pool, other)).toBe(0);
    expect(await lsaQueryVector(pool, other, 'plan')).toBeUndefined();

    // The same pages stored in the opposite order (another crawl's order) learn the same vectors.
    const reversed = await newClient();
    await seeder.seed(reversed, [...pages].reverse(), { embed: false });
    await refreshTermStats(pool, reversed);
    expect(await refreshLsa(pool, reversed)).toBe(121);
    const vectors = async (client: string) =>
      (
        await pool.query<{ key: string; vec: string }>(
          `SELECT d.url || '#' || d.chunk_index AS key, c.vec::text AS vec FROM lsa_chunks c JOIN documents d ON d.id = c.document_id
            WHERE c.client_id = $1 ORDER BY 1`,
          [client],
        )
      ).rows;
    expect(await vectors(reversed)).toEqual(await vectors(clientId));
  });
  it('gives a large tenant’s related-words vectors a graph of their own: the latent list through it is the exact one, after a relearn too; and back', async () => {
    if (inject('infraMode') === 'embedded') return; // the embedded database builds no graphs
    // 420 chunks over 600 made-up words, 12 to a chunk: enough chunks and words for vectors of the
    // full 100 dimensions, the only ones a graph holds.
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const syllables = ['ka', 'lo', 'mi', 'nu', 'pe', 'ro', 'si', 'tu', 'va', 'ze'];
    const words = Array.from(
      { length: 600 },
      (_, i) => `q${syllables[i % 10]}${syllables[Math.floor(i / 10) % 10]}${syllables[Math.floor(i / 100)]}x`,
    );
    const clientId = await newClient();
    const pages: SeedPage[] = Array.from({ length: 140 }, (_, p) => ({
      url: `https://latent.example/${p}`,
      title: `Page ${p}`,
      chunks: Array.from({ length: 3 }, () => Array.from({ length: 12 }, () => words[Math.floor(rand() * words.length)]).join(' ')),
    }));
    await seeder.seed(clientId, pages, { embed: false });
    await refreshTermStats(pool, clientId);
    expect(await refreshLsa(pool, clientId)).toBe(420);
    const { rows: dims } = await pool.query('SELECT DISTINCT vector_dims(vec) AS d FROM lsa_chunks WHERE client_id = $1', [clientId]);
    expect(dims).toEqual([{ d: 100 }]);

    const questions = ['qkalomix qpemisix', 'qrovalox', 'qzetunux qsikalox qmipemix'];
    const latent = async (exactScanMaxDocs: number, db: Pick<Pool, 'query'> = pool) => {
      const out: string[][] = [];
      for (const q of questions) {
        const result = await searchCandidates(db, {
          clientId,
          embeddingModel: seeder.provider.model,
          embedding: undefined,
          query: q,
          k: 20,
          exactScanMaxDocs,
          efSearch: 100,
          lsa: await lsaQueryVector(pool, clientId, q),
        });
        out.push(
          result.candidates
            .filter((c) => c.lsaRank !== null)
            .sort((a, b) => (a.lsaRank as number) - (b.lsaRank as number))
            .map((c) => c.id),
        );
      }
      return out;
    };
    const exact = await latent(300); // past the threshold, no graph yet: exact
    expect(exact.map((ids) => ids.length)).toEqual([20, 20, 20]);

    const name = lsaIndexName(clientId);
    expect((await reconcileVectorIndexes(pool, { exactScanMaxDocs: 300 })).built).toContain(name);
    const { rows: defs } = await pool.query<{ indexdef: string }>('SELECT indexdef FROM pg_indexes WHERE indexname = $1', [name]);
    expect(defs[0]?.indexdef).toMatch(
      /ON public\.lsa_chunks USING hnsw \(\(\(vec\)::vector\(100\)\) vector_cosine_ops\).*WHERE \(\(client_id = .*vector_dims\(vec\) = 100\)/,
    );
    const conn = await pool.connect();
    try {
      expect(await latent(300, conn)).toEqual(exact);
      // The backend's counters are flushed when it goes idle after this statement.
      await conn.query('SELECT pg_stat_force_next_flush()');
      const { rows: used } = await conn.query<{ idx_scan: string }>('SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = $1', [
        name,
      ]);
      expect(Number(used[0]?.idx_scan)).toBe(questions.length);
    } finally {
      conn.release();
    }

    // A relearn rewrites the vectors through the graph; the list still matches the exact scan's.
    expect(await refreshLsa(pool, clientId)).toBe(420);
    expect(await latent(300)).toEqual(await latent(1_000_000));

    // Shrunk to half the threshold: the graph goes, the list is the exact one.
    expect((await reconcileVectorIndexes(pool, { exactScanMaxDocs: 1000 })).dropped).toContain(name);
    expect(await latent(1000)).toEqual(exact);
  });
});
