// The load part's baseline: a bare Fastify route in its own process that parses the chat body and
// answers a small JSON object — what the open-loop generator and the machine cost on their own.
//
//   PORT=… node bench/lib/bare-server.ts
import Fastify from 'fastify';

const app = Fastify({ logger: false });
let n = 0;
app.post<{ Body: { clientId: string; message: string } }>('/api/chat', async (req) => ({
  answer: req.body.message,
  sources: [],
  sessionId: `bare-${++n}`,
  leadCaptureIntent: false,
}));
app.get('/healthz', async () => ({ ok: true }));

await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
const stop = async () => {
  await app.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
