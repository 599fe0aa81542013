/**
 * The chat provider interface, apart from the factory (chat.ts) so providers import it without a cycle.
 * Citations: an answer cites [k] where k is the position of a page among the distinct pages of
 * usedPassageIds, in that order — the chat service lists sources in the same order, so [k] is
 * sources[k-1]. No number names anything else.
 */
export interface ChatPassage {
  /** Document (chunk) id. */
  id: string;
  url: string;
  title: string;
  heading?: string | null;
  content: string;
  /** What the passage's closing colon introduces, from the page's next chunk (db/retrieval.ts). */
  continuation?: string;
  /** Of a passage under a question heading: whether its section began in the chunk before (db/retrieval.ts). */
  continuesSection?: boolean;
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
  /**
   * The words of `query` the answer is about, when not the message's own: of a follow-up naming no topic
   * of its own ("is it free?"), the topic it points back at (providers/chat/follow-up.ts, namesNoTopic).
   */
  focus?: string;
  /** Most recent last. */
  history: ChatTurn[];
  /** Ranked best first; may be empty (then the provider answers honestly that it doesn't know). */
  passages: ChatPassage[];
  /** How much each of the question's words tells on this site (the extractive answer weighs its sentences by it). */
  specificity?: Readonly<Record<string, number>>;
  /** The client's chunks (the extractive answer cites another page on a small site only when it covers enough). */
  siteChunks?: number;
  pageUrl?: string;
  /**
   * The chat service found the message to be only a request for contact (intent/conversation.ts):
   * leadCaptureIntent is true whatever the provider thinks, and passages are empty on purpose.
   */
  contactRequested?: boolean;
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
