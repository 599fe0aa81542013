import type { FastifyInstance } from 'fastify';

export interface RouteEntry {
  method: string;
  /** The route pattern, e.g. /api/admin/clients/:clientId. */
  url: string;
}

/**
 * Every route the instance serves, read from its router (printRoutes), so a route added later is
 * enumerated too: the tests that walk this list cannot be outrun by a new endpoint.
 */
export function listRoutes(app: FastifyInstance): RouteEntry[] {
  const routes: RouteEntry[] = [];
  // The radix tree as printed: a route's path is the concatenation of the labels down to it.
  const stack: string[] = [];
  for (const line of app.printRoutes().split('\n')) {
    const at = line.indexOf('── ');
    if (at < 0) continue;
    const depth = Math.floor(at / 4);
    const match = /^(\S+)(?: \(([^)]*)\))?$/.exec(line.slice(at + 3).trimEnd());
    if (!match?.[1]) throw new Error(`unexpected printRoutes line: ${line}`);
    stack[depth] = (stack[depth - 1] ?? '') + match[1];
    stack.length = depth + 1;
    for (const method of (match[2] ?? '').split(',').map((m) => m.trim())) {
      if (method) routes.push({ method, url: stack[depth] as string });
    }
  }
  if (routes.length === 0) throw new Error('no routes found: has printRoutes changed its format?');
  for (const r of routes) {
    if (!app.hasRoute({ method: r.method as 'GET', url: r.url })) throw new Error(`misread route ${r.method} ${r.url}`);
  }
  return routes;
}

/** A concrete URL for a route pattern: parameters filled with values no row has, wildcards with a name. */
export function concreteUrl(pattern: string, params: Record<string, string> = {}): string {
  return pattern
    .replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => params[name] ?? '00000000-0000-4000-8000-000000000000')
    .replace(/\*/g, 'x');
}
