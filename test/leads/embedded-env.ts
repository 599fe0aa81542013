import { inject } from 'vitest';

/**
 * The embedded database (PGlite behind pglite-socket) runs the extended-protocol messages of
 * concurrent connections interleaved: one connection's Parse can land between another's Parse and
 * Bind ("bind message supplies 1 parameters, but prepared statement "" requires 2"). So in embedded
 * mode each kbchat process of these tests keeps to one connection. Native Postgres (CI) runs the
 * real pool, with all the concurrency these tests are about.
 */
export const EMBEDDED_ENV: Record<string, string> = inject('infraMode') === 'embedded' ? { DATABASE_POOL_MAX: '1' } : {};
