// RETRIEVAL_MODE (the benchmark's knob, bench/retrieval.ts): vector and fulltext fetch one
// candidate list alone, hybrid both; and the off-topic gate the benchmark's unanswerable questions
// led to. Against the real database, through the real retrieval code.
import { randomUUID } from 'node:crypto';
import { absentShare, DEFAULT_RANKING } from '@kbchat/shared/chat/ranking';
import { retrieve } from '@kbchat/shared/chat/retrieval';
import { loadConfig } from '@kbchat/shared/config';
import { insertClient } from '@kbchat/shared/db/clients';
import { createPool, type Pool } from '@kbchat/shared/db/pool';
import { refreshTermStats, searchCandidates } from '@kbchat/shared/db/retrieval';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { testEnv } from '../support/kbchat.ts';
import { createSeeder, type Seeder } from '../support/seed-documents.ts';

const base = { candidates: 20, passages: 6, exactScanMaxDocs: 2000, efSearch: 100 };

describe('RETRIEVAL_MODE', () => {
  let pool: Pool;
  let seeder: Seeder;
  let clientId: string;
  const query = 'How do I descale the boiler?';
  let embedding: number[];

  beforeAll(async () => {
    pool = await createPool({ connectionString: inject('databaseUrl'), max: 2 });
    seeder = createSeeder(inject('databaseUrl'), loadConfig(testEnv({ EMBEDDING_PROVIDER: 'local' })));
    clientId = (await insertClient(pool, { name: `mode-${randomUUID().slice(0, 6)}` })).id;
    await seeder.seed(clientId, [
      { url: 'https://mode.example/descale', title: 'Descaling', chunks: ['Descale the boiler once a year with a citric acid kit.'] },
      { url: 'https://mode.example/radiators', title: 'Radiators', chunks: ['Bleed radiators when they are cold at the top.'] },
      { url: 'https://mode.example/boiler', title: 'Boiler', chunks: ['Our boiler service covers the annual safety check.'] },
    ]);
    [embedding] = (await seeder.provider.embed([query])).vectors as [number[]];
  });
  afterAll(async () => {
    await seeder?.close();
    await pool?.end();
  });

  const run = (mode: 'hybrid' | 'vector' | 'fulltext') =>
    retrieve(pool, { ...base, mode }, { clientId, query, embedding, embeddingModel: seeder.provider.model });

  it('config accepts hybrid (default), vector and fulltext, and rejects anything else', () => {
    expect(loadConfig({}).RETRIEVAL_MODE).toBe('hybrid');
    expect(loadConfig({ RETRIEVAL_MODE: 'vector' }).RETRIEVAL_MODE).toBe('vector');
    expect(() => loadConfig({ RETRIEVAL_MODE: 'bm25' })).toThrow(/RETRIEVAL_MODE/);
  });

  it('vector: every passage comes from the vector list, none from full text', async () => {
    const { passages, scan } = await run('vector');
    expect(scan).not.toBe('none');
    expect(passages.length).toBeGreaterThan(0);
    for (const p of passages) {
      expect(p.vectorRank).not.toBeNull();
      expect(p.ftsRank).toBeNull();
    }
  });

  it('fulltext: the query is not compared with vectors; passages come from full text', async () => {
    const { passages, scan } = await run('fulltext');
    expect(scan).toBe('none');
    expect(passages.length).toBeGreaterThan(0);
    for (const p of passages) {
      expect(p.vectorRank).toBeNull();
      expect(p.ftsRank).not.toBeNull();
      expect(p.similarity).toBeNull();
    }
    // The radiators chunk shares no word with the question: full text alone cannot find it.
    expect(passages.map((p) => p.url)).not.toContain('https://mode.example/radiators');
  });

  it('hybrid: chunks found by both lists carry both ranks', async () => {
    const { passages } = await run('hybrid');
    const descale = passages.find((p) => p.url === 'https://mode.example/descale');
    expect(descale?.vectorRank).not.toBeNull();
    expect(descale?.ftsRank).not.toBeNull();
  });
});

describe('declining (words the site never uses)', () => {
  it('counts the question words no document of the tenant contains, and declines when they carry the question', async () => {
    const pool = await createPool({ connectionString: inject('databaseUrl'), max: 2 });
    const seeder = createSeeder(inject('databaseUrl'), loadConfig(testEnv({ EMBEDDING_PROVIDER: 'local' })));
    try {
      const clientId = (await insertClient(pool, { name: `offtopic-${randomUUID().slice(0, 6)}` })).id;
      const other = (await insertClient(pool, { name: `offtopic-other-${randomUUID().slice(0, 6)}` })).id;
      await seeder.seed(clientId, [
        {
          url: 'https://gate.example/address',
          title: 'Sockets',
          chunks: [
            'Every socket is bound to an address and a port number. The operating system picks a free port when none is given, and the server reports it once listening begins; connections then arrive on that port until the server closes.',
          ],
        },
        {
          url: 'https://gate.example/cluster',
          title: 'Cluster',
          chunks: ['The cluster module forks one worker per CPU core; the primary process shares the listening socket between them.'],
        },
      ]);
      // Another tenant's documents do not make a word known to this one.
      await seeder.seed(other, [
        { url: 'https://other.example/', title: 'Office', chunks: ['Our office phone number is on the contact page.'] },
      ]);
      const search = async (query: string) => {
        const [embedding] = (await seeder.provider.embed([query])).vectors;
        return searchCandidates(pool, {
          clientId,
          embeddingModel: seeder.provider.model,
          embedding,
          query,
          k: 20,
          exactScanMaxDocs: 2000,
          efSearch: 100,
        });
      };
      const offTopic = await search("What's your office address and phone number?");
      expect(offTopic.queryTerms.sort()).toEqual(['address', 'number', 'offic', 'phone']);
      expect(offTopic.absentTerms).toBe(2);
      expect(absentShare(offTopic, DEFAULT_RANKING)).toBeGreaterThanOrEqual(DEFAULT_RANKING.maxAbsentShare);
      const [offTopicEmbedding] = (await seeder.provider.embed(["What's your office address and phone number?"])).vectors;
      const declined = await retrieve(
        pool,
        { ...base, mode: 'hybrid' },
        {
          clientId,
          query: "What's your office address and phone number?",
          embedding: offTopicEmbedding,
          embeddingModel: seeder.provider.model,
        },
      );
      expect(declined.passages).toEqual([]);

      const onTopic = await search('Does the cluster module fork a worker per CPU core?');
      expect(onTopic.absentTerms).toBe(0);
      expect(absentShare(onTopic, DEFAULT_RANKING)).toBe(0);
    } finally {
      await seeder.close();
      await pool.end();
    }
  });

  it('does not count a typing slip of a word the site uses as absent', async () => {
    const pool = await createPool({ connectionString: inject('databaseUrl'), max: 2 });
    const seeder = createSeeder(inject('databaseUrl'), loadConfig(testEnv({ EMBEDDING_PROVIDER: 'local' })));
    try {
      const clientId = (await insertClient(pool, { name: `typo-${randomUUID().slice(0, 6)}` })).id;
      await seeder.seed(
        clientId,
        ['one', 'two', 'three'].map((n) => ({
          url: `https://typo.example/${n}`,
          title: `Strings ${n}`,
          chunks: [`Decode a base64 string back into text with the string decoder, part ${n}.`],
        })),
      );
      await refreshTermStats(pool, clientId);
      // "strin" is "string" cut at its end: how stems differ, not a slip; "strg" lacks two letters and
      // "kubernet" is no word of the site's.
      const slips = await searchCandidates(pool, {
        clientId,
        embeddingModel: seeder.provider.model,
        embedding: undefined,
        query: 'decode a strng, strin, strg or kubernet',
        k: 20,
        exactScanMaxDocs: 2000,
        efSearch: 100,
      });
      expect(slips.misspelt).toEqual(['strng']);
      // A client of two chunks has no word in three: a word in both counts.
      const small = (await insertClient(pool, { name: `typo-small-${randomUUID().slice(0, 6)}` })).id;
      await seeder.seed(small, [
        { url: 'https://typo.example/a', title: 'Service', chunks: ['A full service costs 120 pounds.'] },
        { url: 'https://typo.example/b', title: 'Bikes', chunks: ['Every new bike comes with a free first service.'] },
      ]);
      await refreshTermStats(pool, small);
      const smallSearch = (query: string) =>
        searchCandidates(pool, {
          clientId: small,
          embeddingModel: seeder.provider.model,
          embedding: undefined,
          query,
          k: 20,
          exactScanMaxDocs: 2000,
          efSearch: 100,
        });
      expect((await smallSearch('how do I book a servce')).misspelt).toEqual(['servc']);
      // …but a word only one of them holds is not enough: "poud" could be "pound", in one chunk.
      expect((await smallSearch('what does a full service cost in poud')).misspelt).toEqual([]);
      // Before any statistics there are no document frequencies to tell an absent word by.
      const fresh = (await insertClient(pool, { name: `typo-fresh-${randomUUID().slice(0, 6)}` })).id;
      await seeder.seed(fresh, [{ url: 'https://typo.example/fresh', title: 'Strings', chunks: ['Decode a string.'] }]);
      expect(
        (
          await searchCandidates(pool, {
            clientId: fresh,
            embeddingModel: seeder.provider.model,
            embedding: undefined,
            query: 'strng',
            k: 20,
            exactScanMaxDocs: 2000,
            efSearch: 100,
          })
        ).misspelt,
      ).toEqual([]);
      const query = 'how do I decode a base64 strng';
      const [embedding] = (await seeder.provider.embed([query])).vectors;
      const answered = await retrieve(
        pool,
        { ...base, mode: 'hybrid' },
        { clientId, query, embedding, embeddingModel: seeder.provider.model },
      );
      expect(answered.declined).toBe(false);
      expect(answered.absentShare).toBe(0);
    } finally {
      await seeder.close();
      await pool.end();
    }
  });
});
