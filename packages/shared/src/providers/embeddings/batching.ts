import { encodeTokens, MAX_EMBEDDING_INPUT_TOKENS, truncateToTokens } from '../text/tokenizer.ts';

/**
 * Groups embedding inputs into requests within the embeddings API's bounds: at most 2048 inputs and
 * 300,000 tokens per request, at most 8191 tokens per input (longer inputs are truncated — the
 * head of a chunk is the best summary of it we have, and the API would reject the whole request).
 * Order is kept, so batch i holds the inputs after those of batch i-1; no batch is empty.
 */
export interface BatchItem {
  id: string;
  text: string;
}

export interface EmbeddingBatch {
  ids: string[];
  /** The texts to send, truncated to maxTokensPerInput. */
  inputs: string[];
  /** cl100k tokens of inputs, what the API will bill. */
  tokens: number;
  /** cl100k tokens of each input (same order): counted here once, so nobody tokenizes them again. */
  inputTokens: number[];
  /** Ids of the inputs that had to be truncated. */
  truncatedIds: string[];
}

export interface BatchLimits {
  maxInputs?: number;
  maxTokens?: number;
  maxTokensPerInput?: number;
}

export const EMBEDDING_BATCH_LIMITS = Object.freeze({
  maxInputs: 2048,
  maxTokens: 300_000,
  maxTokensPerInput: MAX_EMBEDDING_INPUT_TOKENS,
});

export function planBatches(items: BatchItem[], limits: BatchLimits = {}): EmbeddingBatch[] {
  const { maxInputs, maxTokens, maxTokensPerInput } = { ...EMBEDDING_BATCH_LIMITS, ...limits };
  if (maxInputs < 1 || maxTokensPerInput < 1 || maxTokens < maxTokensPerInput) {
    throw new RangeError('planBatches: need maxInputs ≥ 1 and maxTokens ≥ maxTokensPerInput ≥ 1');
  }
  const batches: EmbeddingBatch[] = [];
  let current: EmbeddingBatch | undefined;
  for (const item of items) {
    let text = item.text;
    let tokens = encodeTokens(text).length;
    const truncated = tokens > maxTokensPerInput;
    if (truncated) {
      text = truncateToTokens(text, maxTokensPerInput);
      tokens = encodeTokens(text).length;
    }
    if (!current || current.ids.length >= maxInputs || current.tokens + tokens > maxTokens) {
      current = { ids: [], inputs: [], tokens: 0, inputTokens: [], truncatedIds: [] };
      batches.push(current);
    }
    current.ids.push(item.id);
    current.inputs.push(text);
    current.tokens += tokens;
    current.inputTokens.push(tokens);
    if (truncated) current.truncatedIds.push(item.id);
  }
  return batches;
}
