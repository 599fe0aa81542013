import { AppError, NotFoundError } from '@kbchat/shared/errors';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { registerErrorHandling } from './errors.ts';

describe('error handling', () => {
  async function appThrowing(err: Error) {
    const app = Fastify({ logger: false });
    registerErrorHandling(app);
    app.get('/boom', async () => {
      throw err;
    });
    await app.ready();
    return app;
  }

  it('never puts a 5xx message in the body (it may name hosts, models or SQL)', async () => {
    const app = await appThrowing(
      new AppError(502, 'openai chat failed at 10.1.2.3:8443 model gpt-x', 'The model provider rejected the request'),
    );
    const res = await app.inject({ method: 'GET', url: '/boom' });
    expect(res.statusCode).toBe(502);
    expect(res.json()).toEqual({ error: 'Bad gateway', details: ['The model provider rejected the request'] });
    expect(res.body).not.toMatch(/10\.1\.2\.3|gpt-x/);
  });

  it('keeps a 4xx message, and turns unknown errors into a bare 500', async () => {
    const notFound = await (await appThrowing(new NotFoundError('Client not found', ['no client has this clientId']))).inject('/boom');
    expect(notFound.json()).toEqual({ error: 'Client not found', details: ['no client has this clientId'] });
    const crash = await (await appThrowing(new Error('relation "secret_table" does not exist'))).inject('/boom');
    expect(crash.statusCode).toBe(500);
    expect(crash.json()).toEqual({ error: 'Internal server error', details: [] });
  });
});
