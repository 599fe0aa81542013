import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import { asset, sendAsset } from './assets.ts';
import { uiBundles } from './bundle.ts';
import { CONSOLE_CSS, CONSOLE_HTML } from './console/shell.ts';

const consoleCss = asset('text/css; charset=utf-8', CONSOLE_CSS);
const consoleHtml = asset('text/html; charset=utf-8', CONSOLE_HTML);

// Long enough to spare the gateway on busy sites, short enough that a deploy reaches visitors soon;
// the ETag makes the revalidation after expiry a 304.
const WIDGET_CACHE = 'public, max-age=300, stale-while-revalidate=86400';

/**
 * GET /widget.js (public, any origin may load it) and the operator page GET /admin with its script
 * and stylesheet. The /admin shell is public on purpose (docs/widget.md, "Admin page"): a browser
 * cannot send a Bearer header on navigation, and the shell carries no data — every number on the
 * page comes from /api/admin/*, which the admin key guards.
 */
export async function uiRoutes(app: FastifyInstance): Promise<void> {
  // Bundled by esbuild once per process and served from memory with precompressed variants.
  const bundles = await uiBundles();
  app.get('/widget.js', { schema: { hide: true } }, async (req, reply) => {
    reply
      .header('access-control-allow-origin', '*')
      // Without this a host page with Cross-Origin-Embedder-Policy could not load the script.
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('x-content-type-options', 'nosniff');
    return sendAsset(req, reply, bundles.widget, WIDGET_CACHE);
  });

  await app.register(async (pages) => {
    await pages.register(fastifyHelmet, {
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'none'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'"],
          imgSrc: ["'self'", 'data:'],
          connectSrc: ["'self'"],
          formAction: ["'self'"],
          baseUri: ["'none'"],
          frameAncestors: ["'none'"],
        },
      },
      // Not upgrade-insecure-requests: a self-hosted gateway on plain http would lose its own script.
      crossOriginResourcePolicy: { policy: 'same-origin' },
      referrerPolicy: { policy: 'no-referrer' },
    });
    // The shell and its assets hold no data, but revalidating each time means a deploy shows at once.
    pages.get('/admin', { schema: { hide: true } }, async (req, reply) => sendAsset(req, reply, consoleHtml, 'no-cache'));
    pages.get('/admin/app.js', { schema: { hide: true } }, async (req, reply) => sendAsset(req, reply, bundles.console, 'no-cache'));
    pages.get('/admin/app.css', { schema: { hide: true } }, async (req, reply) => sendAsset(req, reply, consoleCss, 'no-cache'));
  });
}
