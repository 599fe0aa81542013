// Graceful shutdown with a request whose visitor already hung up. The server has no connection
// left to wait for, but the handler is still working (here: a lead waiting on Redis for its rate
// limit). Shutdown must let it finish before closing the database pool and Redis under it: the
// lead the visitor submitted is stored, not lost to "Cannot use a pool after calling end".
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from '../chat/tcp-proxy.ts';
import { createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('shutdown while a hung-up visitor’s request is still being handled', () => {
  let redisProxy: TcpProxy;
  let kb: Kbchat | undefined;
  let pool: pg.Pool;

  beforeAll(async () => {
    const redis = new URL(inject('redisUrl'));
    redisProxy = await startTcpProxy(redis.hostname, Number(redis.port || 6379));
    redis.host = `127.0.0.1:${redisProxy.port}`;
    kb = await startKbchat({ services: ['gateway'], env: { REDIS_URL: redis.toString() } });
    pool = new pg.Pool({ connectionString: kb.process.runtime.databaseUrl, max: 1 });
  });
  afterAll(async () => {
    redisProxy.release();
    await kb?.stop();
    await pool?.end();
    await redisProxy?.close();
  });

  it('stores the lead before closing the pool and Redis', async () => {
    const running = kb as Kbchat;
    const { clientId } = await createClient(running.baseUrl);
    const email = `hung-up-${Date.now()}@example.com`;

    // Redis stops answering: the lead's rate-limit check waits inside the handler.
    redisProxy.hold();
    const visitor = new AbortController();
    const submitted = fetch(`${running.baseUrl}/api/lead`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId, name: 'Hung Up', email }),
      signal: visitor.signal,
    }).catch((err: Error) => err);
    await sleep(300);
    visitor.abort();
    expect(await submitted).toBeInstanceOf(Error);

    // Shutdown starts with no connection open; Redis answers again a moment later.
    const stopped = running.stop();
    kb = undefined;
    await sleep(500);
    redisProxy.release();
    await stopped;

    const { rows } = await pool.query('SELECT client_id FROM leads WHERE email = $1', [email]);
    expect(rows).toEqual([{ client_id: clientId }]);
  });
});
