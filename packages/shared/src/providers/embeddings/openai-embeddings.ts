import type OpenAI from 'openai';
import type { Config } from '../../config.ts';
import { createOpenAIClient, ProviderError, toProviderError } from '../openai-client.ts';
import { embeddingPricePer1k } from '../pricing.ts';
import { countTokens } from '../text/tokenizer.ts';
import { EMBEDDING_DIMENSIONS, type EmbeddingProvider } from './embedding-provider.ts';

/**
 * Embeddings through the official SDK. The SDK asks for base64 and decodes it (a quarter of the JSON
 * size); servers that answer with float arrays work too. `dimensions` is sent only to models that
 * accept it (text-embedding-3-*): the database column is vector(1536) and ada-002 is natively 1536.
 * A model of fewer dimensions (a self-hosted one behind Ollama or vLLM: 384, 768, 1024) has its unit
 * vectors padded with zeros to 1536, which leaves every cosine between them as it was; more than 1536
 * cannot be stored and is an error that says so.
 */
export function createOpenAIEmbeddingProvider(config: Config, client: OpenAI = createOpenAIClient(config)): EmbeddingProvider {
  const model = config.OPENAI_EMBEDDING_MODEL;
  const shortenable = model.startsWith('text-embedding-3');
  return {
    kind: 'openai',
    model,
    dimensions: EMBEDDING_DIMENSIONS,
    costPer1kTokens: embeddingPricePer1k(model),
    async embed(inputs, signal) {
      if (inputs.length === 0) return { vectors: [], tokens: 0 };
      let response: Awaited<ReturnType<typeof client.embeddings.create>>;
      try {
        response = await client.embeddings.create(
          {
            model,
            // The API rejects empty strings; a space embeds as "nothing" and keeps positions aligned.
            input: inputs.map((text) => (text.length === 0 ? ' ' : text)),
            ...(shortenable ? { dimensions: EMBEDDING_DIMENSIONS } : {}),
          },
          { signal },
        );
      } catch (err) {
        throw toProviderError(err, 'embeddings', model, config.OPENAI_API_KEY);
      }
      const vectors = new Array<number[]>(inputs.length);
      for (const item of response.data) vectors[item.index] = Array.from(item.embedding);
      for (let i = 0; i < inputs.length; i++) {
        const v = vectors[i];
        if (!v || v.length === 0 || v.length > EMBEDDING_DIMENSIONS) {
          throw new ProviderError({
            provider: 'openai',
            operation: 'embeddings',
            retryable: false,
            message: `OpenAI embeddings response (model ${model}) has ${v?.length ? `a ${v.length}-dimension vector` : 'no vector'} for input ${i}; kbchat stores at most ${EMBEDDING_DIMENSIONS} dimensions: choose a model of at most ${EMBEDDING_DIMENSIONS} (OPENAI_EMBEDDING_MODEL)`,
          });
        }
        vectors[i] = padded(normalise(v));
      }
      // Some compatible servers omit usage: count what OpenAI would have billed.
      return { vectors, tokens: response.usage?.prompt_tokens ?? inputs.reduce((n, text) => n + countTokens(text), 0) };
    },
  };
}

// OpenAI's vectors are unit length already; other compatible servers' may not be, and the
// retrieval SQL relies on cosine = dot product.
function normalise(v: number[]): number[] {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  return norm > 0 && Math.abs(norm - 1) > 1e-6 ? v.map((x) => x / norm) : v;
}

// Zeros added at the end change neither a vector's length nor its dot product with another padded
// the same way: a 768-dimension model ranks exactly as it would in a column of its own size.
function padded(v: number[]): number[] {
  if (v.length === EMBEDDING_DIMENSIONS) return v;
  const out = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  for (let d = 0; d < v.length; d++) out[d] = v[d] as number;
  return out;
}
