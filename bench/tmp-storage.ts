import pg from 'pg';
import { embedLocal } from '@kbchat/shared/providers/embeddings/local-embedder';
const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:5432/kbeval', max: 1 });
const qs = ['how do I read a file line by line', 'what is the default port', 'create a new database', 'event emitter once listener', 'buffer from string encoding'];
const vs = qs.map((q) => `[${embedLocal(q).join(',')}]`);
const variants: Record<string, string> = {
  a: 'SELECT id FROM exp_a ORDER BY (embedding <=> $1::vector)+0 LIMIT 20',
  b: 'SELECT id FROM exp_b ORDER BY (embedding <=> $1::vector)+0 LIMIT 20',
  c: 'SELECT id FROM exp_c ORDER BY (hv <=> $1::vector::halfvec(1536))+0 LIMIT 20',
};
const c = await pool.connect();
const pid = (await c.query('select pg_backend_pid() p')).rows[0].p;
const { readFileSync } = await import('node:fs');
const cpu = () => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
for (let round = 0; round < 3; round++) for (const [k, sql] of Object.entries(variants)) {
  for (const v of vs) await c.query(sql, [v]);
  const t0 = cpu(); const w0 = performance.now();
  const N = 200;
  for (let i = 0; i < N; i++) await c.query(sql, [vs[i % vs.length]]);
  console.log(k, 'backend CPU ms/query', ((cpu() - t0) / N).toFixed(2), 'wall', ((performance.now() - w0) / N).toFixed(2));
}
c.release(); await pool.end();
