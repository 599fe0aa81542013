import net from 'node:net';
import { startEmbeddedPostgres } from '@kbchat/shared/db/embedded-postgres';
import pg from 'pg';
import { describe, expect, it } from 'vitest';

function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}

async function waitUntil(fn: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('embedded Postgres under concurrent connections', () => {
  it('keeps each connection’s extended-protocol messages together (no crossed Parse/Bind between connections)', async () => {
    const db = await startEmbeddedPostgres();
    const pool = new pg.Pool({ connectionString: db.url, max: 10 });
    try {
      await pool.query('CREATE TABLE t (id int PRIMARY KEY, v text)');
      const errors: string[] = [];
      const work = Array.from({ length: 300 }, async (_, i) => {
        try {
          if (i % 5 === 0) {
            const c = await pool.connect();
            try {
              await c.query('BEGIN');
              await c.query('INSERT INTO t (id, v) VALUES ($1, $2)', [i, `v${i}`]);
              await c.query('COMMIT');
            } finally {
              c.release();
            }
          } else if (i % 2 === 0) {
            const { rows } = await pool.query<{ a: number; b: string }>('SELECT $1::int AS a, $2::text AS b', [i, `x${i}`]);
            if (rows[0]?.a !== i || rows[0]?.b !== `x${i}`) errors.push(`wrong row for ${i}: ${JSON.stringify(rows)}`);
          } else {
            const { rows } = await pool.query<{ n: number }>('SELECT $1::int + 1 AS n', [i]);
            if (rows[0]?.n !== i + 1) errors.push(`wrong row for ${i}: ${JSON.stringify(rows)}`);
          }
        } catch (err) {
          errors.push((err as Error).message);
        }
      });
      await Promise.all(work);
      expect(errors).toEqual([]);
      const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM t');
      expect(Number(rows[0]?.n)).toBe(60);
    } finally {
      await pool.end();
      await db.stop();
    }
  });

  it('a connection dropped mid-sequence does not stall the others', async () => {
    const db = await startEmbeddedPostgres();
    try {
      // A raw client: start-up, then Parse + Bind with no Sync, then the socket goes away.
      const victim = net.connect(db.port, '127.0.0.1');
      await new Promise((r) => victim.once('connect', r));
      let received = Buffer.alloc(0);
      victim.on('data', (d: Buffer) => {
        received = Buffer.concat([received, d]);
      });
      victim.on('error', () => {});
      const params = Buffer.from('user\0postgres\0database\0postgres\0\0');
      const startup = Buffer.alloc(8);
      startup.writeInt32BE(8 + params.length, 0);
      startup.writeInt32BE(196608, 4);
      victim.write(Buffer.concat([startup, params]));
      // ReadyForQuery ('Z') ends the start-up exchange.
      await waitUntil(() => received.includes(Buffer.from([0x5a, 0, 0, 0, 5])));
      victim.write(message('P', Buffer.concat([Buffer.from('\0SELECT $1::int\0'), Buffer.from([0, 0])])));
      victim.write(
        message('B', Buffer.concat([Buffer.from('\0\0'), Buffer.from([0, 0, 0, 1, 0, 0, 0, 1]), Buffer.from('1'), Buffer.from([0, 0])])),
      );
      await new Promise((r) => setTimeout(r, 200));
      victim.destroy();
      const other = new pg.Client({ connectionString: db.url });
      await other.connect();
      const { rows } = await other.query<{ n: number }>('SELECT $1::int AS n', [7]);
      expect(rows[0]?.n).toBe(7);
      await other.end();
    } finally {
      await db.stop();
    }
  });
});
