import { loadConfig } from '@kbchat/shared/config';
import { planBatches } from '@kbchat/shared/providers/embeddings/batching';
import { createEmbeddingProvider, EMBEDDING_DIMENSIONS } from '@kbchat/shared/providers/embeddings/embeddings';
import { ProviderError } from '@kbchat/shared/providers/openai-client';
import { countTokens } from '@kbchat/shared/providers/text/tokenizer';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_OPENAI_KEY, type FakeOpenAI, fakeEmbedding, startFakeOpenAI } from '../support/fake-openai.ts';

// The official SDK against a real HTTP server speaking the OpenAI API (test/support/fake-openai.ts).
let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI({ apiKey: FAKE_OPENAI_KEY, embeddingDimensions: { 'nomic-embed-text': 768, 'wide-embed': 3072 } });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const provider = (env: Record<string, string> = {}) =>
  createEmbeddingProvider(
    loadConfig({
      ...fake.env,
      OPENAI_MAX_RETRIES: '2',
      OPENAI_TIMEOUT_MS: '5000',
      ...env,
    }),
  );

describe('openai embedding provider', () => {
  it('is chosen when a key is configured, and prices text-embedding-3-small', () => {
    const p = provider();
    expect(p.kind).toBe('openai');
    expect(p.model).toBe('text-embedding-3-small');
    expect(p.dimensions).toBe(EMBEDDING_DIMENSIONS);
    expect(p.costPer1kTokens).toBe(0.00002);
    expect(createEmbeddingProvider(loadConfig({})).kind).toBe('local');
  });

  it('returns one unit vector per input, in order, decoded from base64, and the billed tokens', async () => {
    const inputs = ['How do I reset my password?', 'Pricing for teams', 'Contact sales'];
    const result = await provider().embed(inputs);
    const request = fake.requests.embeddings[0]!;
    // The SDK asks for base64 (a quarter of the JSON size) and we get floats back.
    expect(request.body?.encoding_format).toBe('base64');
    expect(request.body?.dimensions).toBe(1536);
    expect(request.model).toBe('text-embedding-3-small');
    expect(request.inputs).toEqual(inputs);
    expect(result.vectors).toHaveLength(3);
    result.vectors.forEach((v, i) => {
      expect(v).toHaveLength(1536);
      const expected = fakeEmbedding(inputs[i]!);
      // float32 on the wire
      expect(Math.max(...v.map((x, d) => Math.abs(x - expected[d]!)))).toBeLessThan(1e-6);
    });
    expect(result.tokens).toBe(inputs.reduce((n, t) => n + countTokens(t), 0));
    expect(result.tokens).toBe(fake.embeddedTokens());
  });

  it('sends dimensions only to models that accept it', async () => {
    await provider({ OPENAI_EMBEDDING_MODEL: 'text-embedding-ada-002' }).embed(['hello']);
    expect(fake.requests.embeddings[0]!.body).not.toHaveProperty('dimensions');
    expect(provider({ OPENAI_EMBEDDING_MODEL: 'some-local-model' }).costPer1kTokens).toBe(0);
  });

  it("pads a smaller model's vectors to 1536 dimensions with zeros, keeping every cosine, and refuses a wider one", async () => {
    const inputs = ['How do I reset my password?', 'reset the password of my account', 'Contact sales'];
    const { vectors } = await provider({ OPENAI_EMBEDDING_MODEL: 'nomic-embed-text' }).embed(inputs);
    expect(fake.requests.embeddings[0]!.body).not.toHaveProperty('dimensions');
    const dot = (a: number[], b: number[]) => a.reduce((n, x, d) => n + x * (b[d] as number), 0);
    const native = inputs.map((t) => fakeEmbedding(t, 768));
    for (const [i, v] of vectors.entries()) {
      expect(v).toHaveLength(1536);
      expect(v.slice(768).every((x) => x === 0)).toBe(true);
      expect(Math.max(...v.slice(0, 768).map((x, d) => Math.abs(x - native[i]![d]!)))).toBeLessThan(1e-6);
      expect(dot(v, v)).toBeCloseTo(1, 5);
    }
    // The cosines the model gives, unchanged: the paraphrase is closer than the other question.
    expect(dot(vectors[0]!, vectors[1]!)).toBeCloseTo(dot(native[0]!, native[1]!), 5);
    expect(dot(vectors[0]!, vectors[1]!)).toBeGreaterThan(dot(vectors[0]!, vectors[2]!));

    const error = await provider({ OPENAI_EMBEDDING_MODEL: 'wide-embed' })
      .embed(['x'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(false);
    expect((error as ProviderError).message).toMatch(/3072-dimension vector.*at most 1536.*OPENAI_EMBEDDING_MODEL/);
  });

  it('fills a full batch planned at the API bounds in one accepted request', async () => {
    const items = Array.from({ length: 2048 }, (_, i) => ({ id: String(i), text: `document number ${i}` }));
    const [batch, ...rest] = planBatches(items);
    expect(rest).toHaveLength(0);
    const result = await provider().embed(batch!.inputs);
    expect(result.vectors).toHaveLength(2048);
    expect(fake.requests.embeddings.map((r) => r.status)).toEqual([200]);
    expect(result.tokens).toBe(batch!.tokens);
  });

  it('waits out a 429 with Retry-After and then succeeds', async () => {
    fake.faults.embeddings.push({ status: 429, retryAfter: 0.05 });
    const result = await provider().embed(['after the rate limit']);
    expect(result.vectors).toHaveLength(1);
    expect(fake.requests.embeddings.map((r) => r.status)).toEqual([429, 200]);
  });

  it('gives up on a persistent 500 after the configured retries with a retryable error', async () => {
    for (let i = 0; i < 3; i++) fake.faults.embeddings.push({ status: 500, retryAfter: 0 });
    const error = await provider()
      .embed(['x'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(true);
    expect((error as ProviderError).upstreamStatus).toBe(500);
    expect((error as ProviderError).message).toMatch(/OpenAI embeddings request \(model text-embedding-3-small\) failed with 500/);
    expect(fake.requests.embeddings.map((r) => r.status)).toEqual([500, 500, 500]);
  });

  it('reports a timed-out request as retryable', async () => {
    fake.faults.embeddings.push({ status: 200, delayMs: 1_000 });
    const error = await provider({ OPENAI_TIMEOUT_MS: '150', OPENAI_MAX_RETRIES: '0' })
      .embed(['slow'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(true);
    expect((error as ProviderError).message).toMatch(/timed out/);
  });

  it('says a bad key is a bad key, without the key, and does not retry it', async () => {
    const badKey = 'sk-wrong-0123456789abcdef';
    const error = await provider({ OPENAI_API_KEY: badKey })
      .embed(['x'])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    const e = error as ProviderError;
    expect(e.retryable).toBe(false);
    expect(e.statusCode).toBe(502);
    expect(e.message).toMatch(/401/);
    expect(e.message).toMatch(/OPENAI_API_KEY/);
    // Neither the key nor the masked fragments the API echoes.
    for (const leak of [badKey, 'sk-wro', 'cdef']) expect(`${e.message} ${JSON.stringify(e)}`).not.toContain(leak);
  });

  it('surfaces a 400 (an over-long input the caller failed to truncate) as a non-retryable error', async () => {
    const error = await provider()
      .embed(['word '.repeat(9000)])
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).retryable).toBe(false);
    expect((error as ProviderError).message).toMatch(/400.*8191/);
  });

  it('sends nothing for no inputs and stops when the caller aborts', async () => {
    expect(await provider().embed([])).toEqual({ vectors: [], tokens: 0 });
    expect(fake.requests.embeddings).toHaveLength(0);
    fake.faults.embeddings.push({ status: 200, delayMs: 2_000 });
    const controller = new AbortController();
    const pending = provider().embed(['x'], controller.signal);
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toThrow(/abort/i);
  });
});

describe('local embedding provider', () => {
  it('embeds offline with cl100k token counts and no cost', async () => {
    const p = createEmbeddingProvider(loadConfig({}));
    expect(p).toMatchObject({ kind: 'local', model: 'local-lexical-v1', dimensions: 1536, costPer1kTokens: 0 });
    const result = await p.embed(['hello world', 'Bonjour le monde']);
    expect(result.vectors).toHaveLength(2);
    expect(result.tokens).toBe(countTokens('hello world') + countTokens('Bonjour le monde'));
    expect(Math.hypot(...result.vectors[0]!)).toBeCloseTo(1, 9);
  });

  it('lets other work run during a large batch, and honours an abort', async () => {
    const p = createEmbeddingProvider(loadConfig({}));
    const inputs = Array.from({ length: 300 }, (_, i) => `chunk ${i} about streams, buffers and workers`);
    const order: string[] = [];
    setImmediate(() => order.push('other work'));
    const result = await p.embed(inputs);
    order.push('embedded');
    expect(order).toEqual(['other work', 'embedded']);
    expect(result.vectors).toHaveLength(300);
    const controller = new AbortController();
    const pending = p.embed(inputs, controller.signal);
    controller.abort();
    await expect(pending).rejects.toThrow(/abort/i);
  });
});
