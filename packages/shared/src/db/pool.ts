import pg from 'pg';
import pgvector from 'pgvector';
import type { Logger } from '../logger.ts';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
/** Anything that can run a query: the pool or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

/**
 * A pg Pool whose result parser knows pgvector's types (vector → number[]).
 * The vector type's oid is looked up once, so no connection pays an extra round trip.
 * Call after migrations (the extension must exist).
 *
 * Hot statements are named (`{ name, text, values }`): node-postgres parses a named statement once
 * per connection and then only binds and executes it, which saves Postgres its parse and plan on
 * every call (docs/performance.md, 1b). A named statement's result columns are fixed when it is
 * first parsed, so it lists them instead of `*`: a migration that adds a column must not break the
 * connections of processes still running. The embedded PGlite serves every connection from one
 * session, where a name prepared by one connection collides with the next one's; there names are
 * dropped and each call is parsed as before, as they are with `preparedStatements: false` (for a
 * pooler that cannot keep them: DATABASE_PREPARED_STATEMENTS).
 */
export async function createPool(options: {
  connectionString: string;
  max?: number;
  log?: Logger;
  applicationName?: string;
  /** Default true; false runs named statements unnamed. */
  preparedStatements?: boolean;
}): Promise<Pool> {
  const { vectorOids, sharedSession } = await lookupServer(options.connectionString);
  const types = {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (vectorOids.has(oid) && format !== 'binary') return (value: string) => pgvector.fromSql(value);
      return pg.types.getTypeParser(oid, format);
    },
  } as pg.CustomTypesConfig;
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    types,
    ...(sharedSession || options.preparedStatements === false ? { Client: UnnamedStatementClient } : {}),
    application_name: options.applicationName ?? 'kbchat',
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    // A restarted server drops every connection: the pool must not crash on the idle ones.
    allowExitOnIdle: false,
  });
  pool.on('error', (err) => options.log?.warn({ err: { message: err.message } }, 'idle Postgres connection lost'));
  return pool;
}

async function lookupServer(connectionString: string): Promise<{ vectorOids: Set<number>; sharedSession: boolean }> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ oid: number; version: string }>(
      "SELECT oid, version() FROM pg_type WHERE typname IN ('vector', 'halfvec') AND typnamespace = (SELECT extnamespace FROM pg_extension WHERE extname = 'vector')",
    );
    if (rows.length === 0) throw new Error('the vector extension is not installed in this database');
    return { vectorOids: new Set(rows.map((r) => Number(r.oid))), sharedSession: isSharedSessionServer(rows[0]?.version ?? '') };
  } finally {
    await client.end();
  }
}

/** PGlite: one backend session behind every connection (embedded-postgres.ts). */
function isSharedSessionServer(version: string): boolean {
  return version.includes('PGlite');
}

/** A client that runs named statements unnamed: for a server whose connections share one session, or a pooler. */
class UnnamedStatementClient extends pg.Client {
  // biome-ignore lint/suspicious/noExplicitAny: pg.Client.query's overloads are passed through as they are.
  override query(config: any, ...rest: any[]): any {
    if (config !== null && typeof config === 'object' && typeof config.name === 'string' && typeof config.submit !== 'function') {
      const { name: _name, ...unnamed } = config;
      return (super.query as (...args: unknown[]) => unknown)(unnamed, ...rest);
    }
    return (super.query as (...args: unknown[]) => unknown)(config, ...rest);
  }
}

/** Runs fn inside BEGIN/COMMIT on one client; rolls back on error. */
export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  // A checked-out client has no error listener of the pool's: a connection dropped mid-transaction
  // (Postgres restarted) would emit 'error' to nobody and take the process down. The query in
  // flight rejects by itself; this listener only marks the client as not reusable.
  const onError = () => {
    broken = true;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw err;
  } finally {
    // A connection that could not roll back is destroyed rather than reused; one that is dropped
    // keeps the listener, as it may still report its end.
    if (!broken) client.off('error', onError);
    client.release(broken);
  }
}

/** Serialises a number[] for a vector parameter (`$1::vector`). */
export function toVector(values: readonly number[]): string {
  return pgvector.toSql(values as number[]) as string;
}

/**
 * A vector parameter in pgvector's binary form (what vector_recv reads: int16 dimensions, int16 0,
 * then float4 each, big-endian); node-postgres sends a Buffer parameter as binary. 6 KB instead of
 * ~12 KB of text, and neither side prints or parses 1,536 numbers: vectorToSql and the socket writes
 * of its text were a quarter of the crawl process's CPU profile.
 */
export function toVectorBinary(values: ArrayLike<number>): Buffer {
  const buf = Buffer.allocUnsafe(4 + 4 * values.length);
  buf.writeInt16BE(values.length, 0);
  buf.writeInt16BE(0, 2);
  for (let i = 0; i < values.length; i++) buf.writeFloatBE(values[i] as number, 4 + 4 * i);
  return buf;
}

/**
 * Many vectors as one SQL array of binary parameters numbered from `first`: `ARRAY[$n::vector, …]`
 * and their values, for a statement that unnests them beside other columns.
 */
export function vectorArrayParams(vectors: readonly ArrayLike<number>[], first: number): { sql: string; values: Buffer[] } {
  return {
    sql: `ARRAY[${vectors.map((_, i) => `$${first + i}::vector`).join(', ')}]::vector[]`,
    values: vectors.map(toVectorBinary),
  };
}
