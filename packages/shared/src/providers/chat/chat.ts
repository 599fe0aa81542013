import { type Config, resolvedProviders } from '../../config.ts';
import type { ChatProvider } from './chat-provider.ts';
import { createExtractiveChatProvider } from './extractive.ts';
import { createOpenAIChatProvider } from './openai-chat.ts';

/**
 * Chat-model providers behind one interface (DESIGN.md §5), chosen by config:
 *  - `openai` (openai-chat.ts): the official SDK against OPENAI_BASE_URL (any OpenAI-compatible
 *    server), model OPENAI_CHAT_MODEL, timeout/retries from config, streaming. The system prompt
 *    (prompts.ts) keeps the model to the retrieved passages, treats passage text as data (never
 *    instructions), and names the client. Lead intent comes from a `request_contact` tool call.
 *  - `extractive` (extractive.ts): no network — the answer is composed of the best-matching
 *    sentences of the passages; leadCaptureIntent comes from the offline classifier.
 * The caller (chat service) retrieves passages, decides "nothing relevant" itself, and maps the
 * passages the provider reports as used (`usedPassageIds`) to sources.
 */
export type { ChatInput, ChatOutput, ChatPassage, ChatProvider, ChatStreamEvent, ChatTurn, ChatUsage } from './chat-provider.ts';

export function createChatProvider(config: Config): ChatProvider {
  return resolvedProviders(config).chat === 'openai' ? createOpenAIChatProvider(config) : createExtractiveChatProvider();
}
