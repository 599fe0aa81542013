// Secrets never reach a log line: the admin key (right or wrong), the model provider key (also when
// the provider's own error message quotes it), a database password, and client webhook secrets
// (shown once in a response, never logged). The gateway logs at trace level here — every request,
// every error — into a buffer the test reads whole.
import { Writable } from 'node:stream';
import { createLogger } from '@kbchat/shared/logger';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../support/fake-openai.ts';
import { buildGatewayApp, type GatewayApp } from './support/gateway-app.ts';

const ADMIN_KEY = 'logs-test-admin-key-7f3a9c1e5b2d4f60';
const PROVIDER_KEY = 'sk-live-thisKeyIsWrongAndSecret0042';
const DB_PASSWORD = 'db-pass-9q8w7e6r5t';

describe('secrets in logs', () => {
  let fake: FakeOpenAI;
  let g: GatewayApp;
  let logged = '';

  beforeAll(async () => {
    // The provider refuses our key and, as OpenAI does, quotes part of it in the error.
    fake = await startFakeOpenAI({ apiKey: 'sk-the-right-one-000000000000' });
    const sink = new Writable({
      write(chunk, _enc, done) {
        logged += chunk.toString();
        done();
      },
    });
    // Native Postgres here trusts the connection, so a password in the URL is carried but not checked.
    const databaseUrl = new URL(inject('databaseUrl'));
    if (inject('infraMode') !== 'embedded') databaseUrl.password = DB_PASSWORD;
    g = await buildGatewayApp(
      {
        LOG_LEVEL: 'trace',
        ADMIN_API_KEY: ADMIN_KEY,
        OPENAI_API_KEY: PROVIDER_KEY,
        OPENAI_BASE_URL: fake.baseUrl,
        OPENAI_MAX_RETRIES: '0',
        CHAT_PROVIDER: 'openai',
        EMBEDDING_PROVIDER: 'local',
        DATABASE_URL: databaseUrl.toString(),
      },
      { log: createLogger({ level: 'trace', destination: sink }) },
    );
  });
  afterAll(async () => {
    await g?.close();
    await fake?.close();
  });

  it('logs requests and failures without the admin key, the provider key, the database password or webhook secrets', async () => {
    const auth = { authorization: `Bearer ${ADMIN_KEY}` };
    const created = await g.app.inject({
      method: 'POST',
      url: '/api/admin/clients',
      headers: auth,
      payload: { name: 'Logs Co', leadWebhookUrl: 'https://hooks.example.com/leads' },
    });
    const { clientId, webhookSecret } = created.json() as { clientId: string; webhookSecret: string };
    const rotated = await g.app.inject({
      method: 'PATCH',
      url: `/api/admin/clients/${clientId}`,
      headers: auth,
      payload: { rotateWebhookSecret: true },
    });
    const newSecret = (rotated.json() as { webhookSecret: string }).webhookSecret;
    const wrongKey = 'a-wrong-admin-key-typed-by-someone';
    expect(
      (await g.app.inject({ method: 'GET', url: '/api/admin/clients', headers: { authorization: `Bearer ${wrongKey}` } })).statusCode,
    ).toBe(401);

    // The provider rejects the key: a 500 (or, once streaming, an error event) for the visitor, the provider's message in the log.
    const payload = { clientId, message: 'Do you fix boilers?', sessionId: 's-1' };
    const chat = await g.app.inject({ method: 'POST', url: '/api/chat', payload });
    expect(chat.statusCode).toBe(500);
    const stream = await g.app.inject({ method: 'POST', url: '/api/chat/stream', payload });
    expect(stream.body).toContain('event: error');
    for (const body of [chat.body, stream.body]) expect(body).not.toContain(PROVIDER_KEY.slice(-4));
    const lead = await g.app.inject({ method: 'POST', url: '/api/lead', payload: { clientId, name: 'Ann', email: 'ann@example.com' } });
    expect(lead.statusCode).toBe(200);

    // Not vacuous: the log holds the start-up config, every request and the provider failure.
    expect(logged).toContain('"msg":"starting"');
    expect(logged).toMatch(/"ADMIN_API_KEY":"(<set>|\[redacted\])"/);
    expect(logged).toMatch(/incoming request/);
    expect(logged).toMatch(/API key was rejected/);
    for (const secret of [ADMIN_KEY, PROVIDER_KEY, wrongKey, webhookSecret, newSecret, DB_PASSWORD, webhookSecret.slice(6, 30)]) {
      expect(logged.includes(secret), `a log line carries ${secret.slice(0, 8)}…`).toBe(false);
    }
    // Nor the masked form the provider quoted (first six and last four characters).
    expect(logged).not.toContain(`${PROVIDER_KEY.slice(0, 6)}************${PROVIDER_KEY.slice(-4)}`);
  });
});
