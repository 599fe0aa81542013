import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NotFoundError } from '@kbchat/shared/errors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Asset, asset, sendAsset } from './assets.ts';

/** examples/sample-site in the checkout; absent from the Docker image. */
export const SAMPLE_SITE_DIR = fileURLToPath(new URL('../../../../examples/sample-site/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** Every servable file of dir, by name, read once. */
export function loadSampleSite(dir = SAMPLE_SITE_DIR): Map<string, Asset> {
  const files = new Map<string, Asset>();
  if (!existsSync(dir)) return files;
  for (const name of readdirSync(dir)) {
    const type = TYPES[path.extname(name)];
    if (type) files.set(name, asset(type, readFileSync(path.join(dir, name), 'utf8')));
  }
  return files;
}

/**
 * GET /demo-site/…: a small made-up website served by kbchat itself, so the README's quick start can
 * crawl something that answers offline (it is on loopback: the crawl needs
 * OUTBOUND_ALLOW_PRIVATE_NETWORKS=true). Files are read once; only names in the directory are served,
 * so no path reaches outside it. Not registered under NODE_ENV=production.
 */
export async function demoSiteRoutes(app: FastifyInstance, options: { dir?: string } = {}): Promise<void> {
  const files = loadSampleSite(options.dir);
  if (files.size === 0) return;
  const send = (name: string) => async (req: FastifyRequest, reply: FastifyReply) => {
    const file = files.get(name);
    // The one error body of every endpoint (a crawler of the demo site just sees a 404).
    if (!file) throw new NotFoundError('Not found', ['the demo site has no page of this name']);
    return sendAsset(req, reply, file, 'no-cache');
  };
  // One route for /demo-site and /demo-site/ (the router ignores a trailing slash); the pages' relative
  // links need the slash, so the bare path redirects.
  app.get('/demo-site/', { schema: { hide: true } }, async (req, reply) =>
    req.url.split('?')[0] === '/demo-site' ? reply.redirect('/demo-site/', 301) : send('index.html')(req, reply),
  );
  app.get<{ Params: { file: string } }>('/demo-site/:file', { schema: { hide: true } }, (req, reply) => send(req.params.file)(req, reply));
}
