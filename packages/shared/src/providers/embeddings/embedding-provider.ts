/** The embedding provider interface, apart from the factory so providers can import it without a cycle. */
export const EMBEDDING_DIMENSIONS = 1536;

export interface EmbeddingResult {
  vectors: number[][];
  /** Tokens billed for the request (the provider's usage figure; counted locally for `local`). */
  tokens: number;
}

export interface EmbeddingProvider {
  readonly kind: 'local' | 'openai';
  /** Stored per document as embedding_model. */
  readonly model: string;
  readonly dimensions: number;
  /** USD per 1,000 tokens (0 for local). */
  readonly costPer1kTokens: number;
  /**
   * inputTokens: the inputs' cl100k counts when the caller has them (planBatches counted them), so
   * the local provider does not tokenize every input a second time for its usage figure.
   */
  embed(inputs: string[], signal?: AbortSignal, inputTokens?: readonly number[]): Promise<EmbeddingResult>;
}
