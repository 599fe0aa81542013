import { randomUUID } from 'node:crypto';
import fastifyHelmet from '@fastify/helmet';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { App, GatewayDeps } from './deps.ts';
import { adminAuthHook } from './plugins/admin-auth.ts';
import { clientErrorHandler, frameworkErrors, registerErrorHandling } from './plugins/errors.ts';
import { registerMetrics } from './plugins/metrics.ts';
import { registerQueueDashboard } from './plugins/queue-dashboard.ts';
import { maxConnections, slowClientOptions } from './plugins/slow-clients.ts';
import { adminAnswerRoutes } from './routes/admin-answers.ts';
import { adminClientRoutes } from './routes/admin-clients.ts';
import { adminConversationRoutes } from './routes/admin-conversations.ts';
import { adminCrawlRoutes } from './routes/admin-crawl.ts';
import { adminEmbeddingRoutes } from './routes/admin-embeddings.ts';
import { adminJobRoutes } from './routes/admin-jobs.ts';
import { adminLeadRoutes } from './routes/admin-leads.ts';
import { adminSourceUploadRoutes, sourceFileRoutes } from './routes/admin-source-uploads.ts';
import { adminSourceRoutes } from './routes/admin-sources.ts';
import { chatRoutes } from './routes/chat.ts';
import { feedbackRoutes } from './routes/feedback.ts';
import { healthRoutes } from './routes/health.ts';
import { leadRoutes } from './routes/lead.ts';
import { widgetConfigRoutes } from './routes/widget-config.ts';
import { demoSiteRoutes } from './ui/demo-site.ts';
import { uiRoutes } from './ui/routes.ts';

// Tests build the app and name its type from here.
export type { App } from './deps.ts';

/** Builds the HTTP API without listening: main.ts listens, tests call this with real dependencies. */
export async function buildApp(deps: GatewayDeps): Promise<App> {
  const { config } = deps;
  const app = Fastify({
    loggerInstance: deps.log.child({ service: 'gateway' }) as FastifyBaseLogger,
    bodyLimit: config.BODY_LIMIT_BYTES,
    ...slowClientOptions(config),
    trustProxy: config.TRUST_PROXY,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // Per-request access logs only at debug: at info they cost more than the chat query itself.
    logController: new LogController({ disableRequestLogging: config.LOG_LEVEL !== 'debug' && config.LOG_LEVEL !== 'trace' }),
    routerOptions: { ignoreTrailingSlash: true },
    // Errors raised before a route runs keep the { error, details } shape too.
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<ZodTypeProvider>();

  app.server.maxConnections = maxConnections(config);
  trackHandlersUntilClose(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  // Bodies are JSON (spec §4): anything else is 415, not a string that fails validation.
  app.removeContentTypeParser('text/plain');
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });

  await app.register(fastifySwagger, {
    openapi: {
      info: { title: 'kbchat API', version: '0.1.0', description: 'Chat with a website: knowledge base, chat, leads.' },
      components: { securitySchemes: { adminKey: { type: 'http', scheme: 'bearer' } } },
    },
    transform: jsonSchemaTransform,
  });
  // The OpenAPI page is HTML like /admin and gets the same protective headers. Scripts only from
  // here; inline styles allowed (Swagger UI sets some; a style cannot run code); nothing from other
  // hosts — no validator badge, which would hand this gateway's URL to validator.swagger.io — and
  // no upgrade-insecure-requests, which would cost a plain-http self-hosted gateway its own assets.
  await app.register(async (docs) => {
    await docs.register(fastifyHelmet, {
      contentSecurityPolicy: false,
      crossOriginResourcePolicy: { policy: 'same-origin' },
      referrerPolicy: { policy: 'no-referrer' },
    });
    await docs.register(fastifySwaggerUi, {
      routePrefix: '/docs',
      uiConfig: { validatorUrl: null },
      staticCSP: {
        'default-src': ["'self'"],
        'script-src': ["'self'"],
        'script-src-attr': ["'none'"],
        'style-src': ["'self'", "'unsafe-inline'"],
        'img-src': ["'self'", 'data:'],
        'font-src': ["'self'", 'data:'],
        'connect-src': ["'self'"],
        'object-src': ["'none'"],
        'base-uri': ["'none'"],
        'form-action': ["'self'"],
        'frame-ancestors': ["'none'"],
      },
    });
  });

  await healthRoutes(app, deps);
  const metrics = registerMetrics(app, deps);

  // Public endpoints: identified by clientId in the body, no credential (spec §5).
  await app.register(chatRoutes(deps));
  await app.register(leadRoutes(deps));
  await app.register(feedbackRoutes(deps));
  await app.register(widgetConfigRoutes(deps));
  // The widget script and the operator page's shell: public, they carry no data (docs/widget.md).
  await app.register(uiRoutes);
  // A sample website to crawl in the quick start, offline (examples/sample-site); not in production.
  if (config.NODE_ENV !== 'production') await app.register(demoSiteRoutes);
  // The originals of text and file sources, which their answers cite (docs/sources.md).
  await app.register(sourceFileRoutes(deps));

  // Everything under /api/admin and /admin (but the page shell above) is registered in this scope, behind one auth hook.
  await app.register(async (admin) => {
    admin.addHook(
      'onRequest',
      adminAuthHook({
        key: config.ADMIN_API_KEY,
        redis: deps.redis,
        log: deps.log,
        keyPrefix: config.REDIS_PREFIX,
        failuresPerMinute: config.ADMIN_AUTH_FAILURES_PER_MINUTE,
      }),
    );
    await metrics.routes(admin);
    await admin.register(adminClientRoutes(deps));
    await admin.register(adminLeadRoutes(deps));
    await admin.register(adminCrawlRoutes(deps));
    await admin.register(adminJobRoutes(deps));
    await admin.register(adminEmbeddingRoutes(deps));
    await admin.register(adminSourceRoutes(deps));
    await admin.register(adminSourceUploadRoutes(deps));
    await admin.register(adminConversationRoutes(deps));
    await admin.register(adminAnswerRoutes(deps));
    await registerQueueDashboard(admin, deps.queues);
  });

  return app;
}

/**
 * app.close() waits for every route handler still running, not only for open connections. A
 * visitor who hung up leaves no connection for the server to wait on, but the handler goes on
 * (a lead being stored, a chat turn finishing): without this, shutdown would close the database
 * pool and Redis under it and the lead would be lost. Must run before any route is registered.
 */
function trackHandlersUntilClose(app: App): void {
  const running = new Set<Promise<unknown>>();
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = function trackedHandler(this: unknown, req, reply) {
      const result = (handler as (...args: unknown[]) => unknown).call(this, req, reply);
      if (result instanceof Promise) {
        const settled = result.then(
          () => {},
          () => {},
        );
        running.add(settled);
        void settled.then(() => running.delete(settled));
      }
      return result;
    } as typeof handler;
  });
  app.addHook('onClose', async () => {
    while (running.size > 0) await Promise.all(running);
  });
}
