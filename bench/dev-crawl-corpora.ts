// Dev loop: crawls every corpus once into one database (KBEVAL_DB, default kbeval) and records the
// client ids in /tmp/kbeval.json, so ranking experiments (bench/retrieval-tune.ts) need no re-crawl.
import pg from 'pg';
import { serveDirectory } from '../test/support/fixture-site.ts';
import { CORPUS_LIST } from './lib/corpora.ts';
import { type DevLoop, previousCorpora, writeDevLoop } from './lib/dev-loop.ts';
import { benchEnv, crawlSite, createClient, ensureCorpora, log, round, startKbchatProcess, waitForRelatedWords } from './lib/env.ts';

const env = benchEnv();
const dbName = process.env.KBEVAL_DB ?? 'kbeval';
const only = process.argv.slice(2);
ensureCorpora(CORPUS_LIST.filter((c) => only.length === 0 || only.includes(c.name)));
// Named corpora are added to the existing database; none: all of them into a new one.
if (only.length === 0) {
  const admin = new pg.Client({ connectionString: env.serverUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
}
const databaseUrl = env.serverUrl.replace(/\/[^/]*$/, `/${dbName}`);
const kb = await startKbchatProcess({
  databaseUrl,
  redisUrl: env.redisUrl,
  env: { EMBEDDING_PROVIDER: 'local', CHAT_PROVIDER: 'extractive', CRAWL_PER_HOST_CONCURRENCY: '8' },
});
const out: DevLoop['corpora'] = only.length > 0 ? previousCorpora() : {};
try {
  for (const corpus of CORPUS_LIST.filter((c) => only.length === 0 || only.includes(c.name))) {
    const site = await serveDirectory(corpus.dir);
    try {
      const clientId = await createClient(kb.baseUrl, corpus.name);
      const { job, seconds } = await crawlSite(kb.baseUrl, clientId, `${site.url}/${corpus.start}`, 5000);
      await waitForRelatedWords(databaseUrl, clientId);
      log(
        `${corpus.name}: ${job.status} ${job.progress.pagesIndexed} pages ${job.progress.documentsCreated} chunks in ${round(seconds)} s`,
      );
      out[corpus.name] = { clientId, siteUrl: site.url };
    } finally {
      await site.close();
    }
  }
} finally {
  await kb.stop();
  await kb.cleanRedis();
}
writeDevLoop({ databaseUrl, corpora: out });
