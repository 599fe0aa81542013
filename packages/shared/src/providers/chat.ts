import type { Config } from '../config.ts';

/**
 * Chat-model providers behind one interface (DESIGN.md §5), chosen by config.
 * CONTRACT (owner: the "providers" work package):
 *  - `openai`: the official SDK against OPENAI_BASE_URL (any OpenAI-compatible server), model
 *    OPENAI_CHAT_MODEL, timeout/retries from config, streaming. The system prompt keeps the model to
 *    the retrieved passages, treats passage text as data (never instructions), and names the client.
 *    Lead intent comes from a tool/function call (`request_contact`), not from text matching.
 *  - `extractive`: no network — the answer is composed of the best-matching sentences of the
 *    passages; leadCaptureIntent comes from the offline classifier (intent/classifier.ts).
 * The caller (chat service) retrieves passages, decides "nothing relevant" itself, and maps the
 * passages the provider reports as used (`usedPassageIds`) to sources.
 *
 * STUB: a trivial extractive provider; replaced by the providers package.
 */
export interface ChatPassage {
  /** Document (chunk) id. */
  id: string;
  url: string;
  title: string;
  heading?: string | null;
  content: string;
}

export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
}

export interface ChatInput {
  clientName: string;
  /** The visitor's message as sent. */
  message: string;
  /** The standalone rewrite used for retrieval (equals message when there was nothing to rewrite). */
  query: string;
  /** Most recent last. */
  history: ChatTurn[];
  /** Ranked best first; may be empty (then the provider answers honestly that it doesn't know). */
  passages: ChatPassage[];
  pageUrl?: string;
  signal?: AbortSignal;
}

export interface ChatUsage {
  model: string;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
}

export interface ChatOutput {
  answer: string;
  /** Ids of the passages the answer draws on, in the order they matter. */
  usedPassageIds: string[];
  leadCaptureIntent: boolean;
  usage?: ChatUsage;
}

export type ChatStreamEvent = { type: 'token'; text: string } | { type: 'done'; output: ChatOutput };

export interface ChatProvider {
  readonly kind: 'openai' | 'extractive';
  readonly model: string;
  answer(input: ChatInput): Promise<ChatOutput>;
  /** Tokens as produced, then exactly one `done` carrying the same ChatOutput answer() would give. */
  stream(input: ChatInput): AsyncIterable<ChatStreamEvent>;
  /**
   * Rewrites a follow-up into a standalone query from the recent turns (returns message unchanged
   * when it already stands alone). Offline providers use a heuristic; openai asks the model.
   */
  rewriteQuery(message: string, history: ChatTurn[], signal?: AbortSignal): Promise<{ query: string; usage?: ChatUsage }>;
}

export function createChatProvider(_config: Config): ChatProvider {
  const answer = async (input: ChatInput): Promise<ChatOutput> => {
    const top = input.passages[0];
    return {
      answer: top ? top.content.slice(0, 400) : "I don't know — I couldn't find that on this site. Would you like someone to contact you?",
      usedPassageIds: top ? [top.id] : [],
      leadCaptureIntent: /\b(call|contact|email) me\b/i.test(input.message),
    };
  };
  return {
    kind: 'extractive',
    model: 'extractive',
    answer,
    async *stream(input) {
      const output = await answer(input);
      yield { type: 'token', text: output.answer };
      yield { type: 'done', output };
    },
    async rewriteQuery(message) {
      return { query: message };
    },
  };
}
