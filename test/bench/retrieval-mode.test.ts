// RETRIEVAL_MODE (the benchmark's knob, bench/retrieval.ts): vector and fulltext fetch one
// candidate list alone, hybrid both. Against the real database, through the real retrieval code.
import { randomUUID } from 'node:crypto';
import { retrieve } from '@kbchat/shared/chat/retrieval';
import { loadConfig } from '@kbchat/shared/config';
import { insertClient } from '@kbchat/shared/db/clients';
import { createPool, type Pool } from '@kbchat/shared/db/pool';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { testEnv } from '../support/kbchat.ts';
import { createSeeder, type Seeder } from '../support/seed-documents.ts';

const base = { candidates: 20, passages: 6, exactScanMaxDocs: 2000, efSearch: 100, minSimilarity: 0, minTermCoverage: 0 };

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
