// A crawl of a site with a page whose parse outlasts CRAWL_PARSE_TIMEOUT_MS: that page is skipped
// with its reason, the crawl completes with the others, and the service answers while it parses.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureServer, serveDirectory } from '../support/fixture-site.ts';
import { api, createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';
import { getJob, type JobBody, PIPELINE_ENV, testPool } from './support/pipeline.ts';

describe('a page whose parse outlasts its deadline', () => {
  let kb: Kbchat;
  let site: FixtureServer;
  let dir: string;
  let pool: pg.Pool;
  let crawl: { success: boolean; pagesIndexed: number; message: string };
  let job: JobBody;
  let pages: string[];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'kbchat-parse-'));
    const page = (title: string, body: string) => `<html><head><title>${title}</title></head><body><main>${body}</main></body></html>`;
    writeFileSync(
      path.join(dir, 'index.html'),
      page(
        'Home',
        '<h1>Home</h1><p>We repair bikes in Leeds. <a href="/hours.html">Opening hours</a>, <a href="/catalogue.html">catalogue</a>.</p>',
      ),
    );
    writeFileSync(
      path.join(dir, 'hours.html'),
      page('Opening hours', '<h1>Opening hours</h1><p>The workshop is open from nine to five on weekdays.</p>'),
    );
    // Nested 30,000 deep, about 2 MB: the HTML parser is quadratic in nesting depth (seconds here, where a
    // flat 3 MB page takes 0.2 s) — far past the 500 ms deadline on any machine, which a small page's parse
    // stays far within on a loaded one.
    const rows = Array.from({ length: 30_000 }, (_, i) => `<div><p>Spare part ${i}, a brake cable of grade ${i % 7} for city bikes.`);
    writeFileSync(path.join(dir, 'catalogue.html'), page('Catalogue', rows.join('')));
    site = await serveDirectory(dir);
    kb = await startKbchat({ env: { ...PIPELINE_ENV, CRAWL_PARSE_TIMEOUT_MS: '500' } });
    pool = testPool();
    const { clientId } = await createClient(kb.baseUrl);
    const res = await api<typeof crawl>(kb.baseUrl, 'POST', '/api/admin/crawl', { clientId, url: `${site.url}/` });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    crawl = res.body;
    const jobId = (await pool.query<{ id: string }>('SELECT id FROM jobs WHERE client_id = $1', [clientId])).rows[0]?.id as string;
    job = await getJob(kb.baseUrl, jobId);
    pages = (await pool.query<{ url: string }>('SELECT url FROM pages WHERE client_id = $1 ORDER BY url', [clientId])).rows.map((r) =>
      r.url.slice(site.url.length),
    );
  }, 120_000);
  afterAll(async () => {
    await kb?.stop();
    await site?.close();
    await pool?.end();
    rmSync(dir, { recursive: true, force: true });
  });

  it('skips that page with parse-timeout and indexes the others', () => {
    expect(crawl.success, JSON.stringify(crawl)).toBe(true);
    expect(job.status).toBe('completed');
    expect(pages).toEqual(['/', '/hours.html']);
    expect(crawl.pagesIndexed).toBe(2);
    expect(job.progress.skipReasons).toEqual({ 'parse-timeout': 1 });
    expect(crawl.message).toMatch(/Skipped 1 \(parse-timeout: 1\)\.$/);
  });
});
