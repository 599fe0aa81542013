/**
 * List prices in USD per 1,000 tokens, for the usage/cost records (estimates, not invoices).
 * A model not listed costs 0: an OpenAI-compatible server (a local model, a proxy) has no price we
 * could know, and a made-up one would be worse than none. Dated snapshots ("gpt-4o-mini-2024-07-18")
 * take the price of their family by prefix.
 */
export interface ChatPrice {
  input: number;
  output: number;
}

const EMBEDDING_PRICES: Record<string, number> = {
  'text-embedding-3-small': 0.00002,
  'text-embedding-3-large': 0.00013,
  'text-embedding-ada-002': 0.0001,
};

const CHAT_PRICES: Record<string, ChatPrice> = {
  'gpt-4o-mini': { input: 0.00015, output: 0.0006 },
  'gpt-4o': { input: 0.0025, output: 0.01 },
  'gpt-4.1-nano': { input: 0.0001, output: 0.0004 },
  'gpt-4.1-mini': { input: 0.0004, output: 0.0016 },
  'gpt-4.1': { input: 0.002, output: 0.008 },
  'gpt-3.5-turbo': { input: 0.0005, output: 0.0015 },
};

function lookup<T>(table: Record<string, T>, model: string): T | undefined {
  if (table[model] !== undefined) return table[model];
  // Longest family name first, so "gpt-4o-mini-…" is not priced as "gpt-4o".
  const family = Object.keys(table)
    .sort((a, b) => b.length - a.length)
    .find((name) => model.startsWith(`${name}-`));
  return family === undefined ? undefined : table[family];
}

export function embeddingPricePer1k(model: string): number {
  return lookup(EMBEDDING_PRICES, model) ?? 0;
}

export function chatPricePer1k(model: string): ChatPrice {
  return lookup(CHAT_PRICES, model) ?? { input: 0, output: 0 };
}

export function chatCostUsd(model: string, promptTokens: number, completionTokens: number): number {
  const price = chatPricePer1k(model);
  return (promptTokens * price.input + completionTokens * price.output) / 1000;
}
