// 1d. Embedding requests and tokens for a crawl of the PostgreSQL 15 docs with the openai provider
// pointed at the OpenAI-compatible fake (test/support/fake-openai.ts: the real API's bounds, every
// request recorded, tokens counted with cl100k), against the fewest requests the API's bounds allow
// for the same inputs (2,048 inputs and 300,000 tokens per request); the cost at list price; then a
// re-crawl of the unchanged site, which must embed nothing.

import { embeddingPricePer1k } from '@kbchat/shared/providers/pricing';
import pg from 'pg';
import { FAKE_OPENAI_KEY, startFakeOpenAI } from '../test/support/fake-openai.ts';
import { serveDirectory } from '../test/support/fixture-site.ts';
import {
  type BenchEnv,
  crawlSite,
  createClient,
  createDatabase,
  ensureCorpora,
  log,
  PG_DOCS,
  round,
  startKbchatProcess,
} from './lib/env.ts';
import { type PartResult, ratio } from './lib/report.ts';

const MAX_INPUTS = 2048;
const MAX_TOKENS = 300_000;
const MODEL = 'text-embedding-3-small';

interface Tally {
  requests: number;
  inputs: number;
  tokens: number;
  largestRequestInputs: number;
  largestRequestTokens: number;
}

function tally(records: { inputs: string[]; tokens: number; status: number }[]): Tally {
  const ok = records.filter((r) => r.status === 200);
  return {
    requests: ok.length,
    inputs: ok.reduce((n, r) => n + r.inputs.length, 0),
    tokens: ok.reduce((n, r) => n + r.tokens, 0),
    largestRequestInputs: Math.max(0, ...ok.map((r) => r.inputs.length)),
    largestRequestTokens: Math.max(0, ...ok.map((r) => r.tokens)),
  };
}

export async function embeddingsBench(env: BenchEnv): Promise<PartResult> {
  ensureCorpora();
  const site = await serveDirectory(PG_DOCS);
  const fake = await startFakeOpenAI({ apiKey: FAKE_OPENAI_KEY });
  const db = await createDatabase(env.serverUrl, 'embeddings');
  const kb = await startKbchatProcess({
    databaseUrl: db.url,
    redisUrl: env.redisUrl,
    env: {
      EMBEDDING_PROVIDER: 'openai',
      CHAT_PROVIDER: 'extractive',
      ...fake.env,
      OPENAI_EMBEDDING_MODEL: MODEL,
      CRAWL_CONCURRENCY: '8',
      CRAWL_PER_HOST_CONCURRENCY: '8',
    },
  });
  let first: Tally;
  let second: Tally;
  let firstJob: Record<string, unknown>;
  let secondJob: Record<string, unknown>;
  let usage: { requests: number; tokens: number; cost: number };
  try {
    const clientId = await createClient(kb.baseUrl, 'Bench PostgreSQL docs (openai)');
    log('embeddings: first crawl (openai provider → fake server)');
    const a = await crawlSite(kb.baseUrl, clientId, `${site.url}/index.html`, 100_000);
    first = tally(fake.requests.embeddings);
    firstJob = { status: a.job.status, seconds: round(a.seconds), ...a.job.progress };
    log(`  ${first.requests} requests, ${first.inputs} inputs, ${first.tokens} tokens in ${round(a.seconds)} s`);
    fake.reset();
    log('embeddings: re-crawl of the unchanged site');
    const b = await crawlSite(kb.baseUrl, clientId, `${site.url}/index.html`, 100_000);
    second = tally(fake.requests.embeddings);
    secondJob = { status: b.job.status, seconds: round(b.seconds), ...b.job.progress };
    log(`  ${second.requests} requests, ${second.tokens} tokens in ${round(b.seconds)} s`);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query<{ requests: number; tokens: number; cost: number }>(
      `SELECT coalesce(sum(requests), 0)::int AS requests, coalesce(sum(prompt_tokens), 0)::int AS tokens, coalesce(sum(cost_usd), 0)::float8 AS cost
         FROM usage WHERE client_id = $1 AND kind = 'embedding'`,
      [clientId],
    );
    await client.end();
    usage = rows[0] ?? { requests: 0, tokens: 0, cost: 0 };
  } finally {
    await kb.stop();
    await kb.cleanRedis();
    await db.drop();
    await fake.close();
    await site.close();
  }
  const minimum = Math.max(Math.ceil(first.tokens / MAX_TOKENS), Math.ceil(first.inputs / MAX_INPUTS));
  const price = embeddingPricePer1k(MODEL);
  const cost = (first.tokens / 1000) * price;
  const pages = Number(firstJob.pagesIndexed ?? 0);
  return {
    part: 'embeddings',
    title: '1d. Embeddings: PostgreSQL 15 docs crawl with the openai provider (fake server)',
    oursLabel: 'crawl job → embed jobs → OpenAI-compatible fake (requests and tokens as the server counted them)',
    baselineLabel: `the fewest requests the API bounds allow for the same inputs (${MAX_INPUTS} inputs, ${MAX_TOKENS.toLocaleString('en')} tokens per request)`,
    rows: [
      {
        metric: 'embedding requests (first crawl)',
        ours: first.requests,
        baseline: minimum,
        ratio: ratio(minimum, first.requests),
        target: 'ratio 1 = optimal',
      },
      { metric: 'inputs embedded (chunks)', ours: first.inputs, baseline: Number(firstJob.documentsCreated ?? 0) },
      { metric: 'tokens embedded', ours: first.tokens, baseline: first.tokens },
      {
        metric: 'largest request: inputs / tokens',
        ours: `${first.largestRequestInputs} / ${first.largestRequestTokens}`,
        baseline: `${MAX_INPUTS} / ${MAX_TOKENS}`,
      },
      {
        metric: `cost per crawl, ${MODEL} at $${price}/1k tokens`,
        ours: `$${cost.toFixed(4)}`,
        baseline: `usage table: $${usage.cost.toFixed(4)}`,
      },
      { metric: 'cost per 1,000 pages', ours: `$${((cost / Math.max(1, pages)) * 1000).toFixed(4)}` },
      {
        metric: 're-crawl of the unchanged site: requests / tokens',
        ours: `${second.requests} / ${second.tokens}`,
        baseline: '0 / 0',
        target: '0 tokens',
        pass: second.tokens === 0 && secondJob.status === 'completed',
      },
    ],
    notes: [
      `First crawl: ${pages} pages indexed, ${firstJob.documentsCreated} chunks, ${firstJob.seconds} s; re-crawl: ${secondJob.pagesUnchanged} pages unchanged, ${secondJob.seconds} s.`,
      'The ratio is minimum/ours: 1 means no request more than the bounds force.',
    ],
    details: { first, second, minimum, firstJob, secondJob, usage },
  };
}
