import type OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionMessageToolCall } from 'openai/resources/chat/completions';
import type { Config } from '../../config.ts';
import { detectLeadIntent } from '../../intent/classifier.ts';
import { createOpenAIClient, toProviderError } from '../openai-client.ts';
import { chatCostUsd } from '../pricing.ts';
import { contactOfferReply, dontKnowReply, replyLanguage, soundsLikeDontKnow } from './canned-replies.ts';
import type { ChatInput, ChatOutput, ChatProvider, ChatStreamEvent, ChatTurn, ChatUsage } from './chat-provider.ts';
import { CitationRenumberer } from './citations.ts';
import { answerMessages, REQUEST_CONTACT_TOOL, requestContactTool, rewriteMessages } from './prompts.ts';

/**
 * Answers through the official SDK's chat completions (any OpenAI-compatible server). One request
 * per answer: lead intent arrives as a `request_contact` tool call in the same completion, and when
 * the model only calls the tool, the tool's `reply` argument is the answer (no second round trip).
 *
 * A server that refuses tools for the model (Ollama's "does not support tools", vLLM without
 * tool parsing: a 400 naming tools) is asked again without them, and from then on this process asks
 * it without them; lead intent then comes from the offline classifier, as with the extractive answer.
 */

/** When nothing was cited and the model did not say it doesn't know: the passages it most likely used. */
export const UNCITED_FALLBACK_PASSAGES = 2;
const REWRITE_MAX_TOKENS = 80;

interface Collected {
  /** Sent without the contact tool (the server refuses tools): intent is the classifier's. */
  toolless: boolean;
  content: string;
  cited: number[];
  toolArguments: string[];
  usage?: { prompt_tokens: number; completion_tokens: number };
  model: string;
}

export function createOpenAIChatProvider(config: Config, client: OpenAI = createOpenAIClient(config)): ChatProvider {
  const model = config.OPENAI_CHAT_MODEL;
  const secret = config.OPENAI_API_KEY;

  const usageOf = (u: Collected['usage'], usedModel: string): ChatUsage | undefined =>
    u
      ? {
          model: usedModel,
          promptTokens: u.prompt_tokens,
          completionTokens: u.completion_tokens,
          costUsd: chatCostUsd(usedModel, u.prompt_tokens, u.completion_tokens),
        }
      : undefined;

  // Set once the server has refused the contact tool for this model.
  let toolsRefused = false;
  const requestBody = (input: ChatInput, toolless: boolean) => ({
    model,
    messages: answerMessages({ ...input, toolless }),
    ...(toolless ? {} : { tools: [requestContactTool], tool_choice: 'auto' as const }),
    temperature: config.OPENAI_CHAT_TEMPERATURE,
    max_completion_tokens: config.OPENAI_CHAT_MAX_TOKENS,
  });

  /** One completion request, asked again without the tool when the server refuses tools. */
  async function create<T>(send: (toolless: boolean) => Promise<T>): Promise<{ result: T; toolless: boolean }> {
    const toolless = toolsRefused;
    try {
      return { result: await send(toolless), toolless };
    } catch (err) {
      if (toolless || !refusesTools(err)) throw toProviderError(err, 'chat', model, secret);
      toolsRefused = true;
    }
    try {
      return { result: await send(true), toolless: true };
    } catch (err) {
      throw toProviderError(err, 'chat', model, secret);
    }
  }

  /** Turns what the model produced into the provider's output; `tail` is text to append (for streams). */
  function finish(input: ChatInput, c: Collected): { output: ChatOutput; tail: string } {
    const leadCaptureIntent =
      c.toolArguments.length > 0 || input.contactRequested === true || (c.toolless && detectLeadIntent(input.message));
    const lang = replyLanguage(input.message, input.history);
    let answer = c.content;
    let tail = '';
    if (answer.trim().length === 0) {
      // The model only called the tool (or said nothing): use its reply, else ours.
      tail = leadCaptureIntent
        ? (replyFromToolArguments(c.toolArguments) ?? contactOfferReply(input.clientName, lang))
        : dontKnowReply(input.clientName, lang);
      answer = c.content + tail;
    }
    let usedPassageIds = c.cited.map((i) => input.passages[i]!.id);
    if (usedPassageIds.length === 0 && !leadCaptureIntent && !soundsLikeDontKnow(answer) && c.content.trim().length > 0) {
      usedPassageIds = input.passages.slice(0, UNCITED_FALLBACK_PASSAGES).map((p) => p.id);
    }
    return { output: { answer, usedPassageIds, leadCaptureIntent, usage: usageOf(c.usage, c.model) }, tail };
  }

  async function answer(input: ChatInput): Promise<ChatOutput> {
    const { result: completion, toolless } = await create(
      (withoutTools): Promise<ChatCompletion> =>
        client.chat.completions.create({ ...requestBody(input, withoutTools), stream: false }, { signal: input.signal }),
    );
    const message = completion.choices[0]?.message;
    const renumberer = new CitationRenumberer(input.passages);
    const content = renumberer.push(message?.content ?? '') + renumberer.flush();
    return finish(input, {
      toolless,
      content,
      cited: renumberer.cited,
      toolArguments: leadToolArguments(message?.tool_calls),
      usage: completion.usage ?? undefined,
      model: completion.model || model,
    }).output;
  }

  async function* stream(input: ChatInput): AsyncIterable<ChatStreamEvent> {
    const { result: chunks, toolless } = await create(
      (withoutTools): Promise<AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>> =>
        client.chat.completions.create(
          { ...requestBody(input, withoutTools), stream: true, stream_options: { include_usage: true } },
          { signal: input.signal },
        ),
    );
    const renumberer = new CitationRenumberer(input.passages);
    const toolCalls = new Map<number, { name: string; arguments: string }>();
    let content = '';
    let usage: Collected['usage'];
    let usedModel = model;
    try {
      for await (const chunk of chunks) {
        if (chunk.model) usedModel = chunk.model;
        if (chunk.usage) usage = chunk.usage;
        const delta = chunk.choices[0]?.delta;
        if (!delta) continue;
        for (const call of delta.tool_calls ?? []) {
          const entry = toolCalls.get(call.index) ?? { name: '', arguments: '' };
          if (call.function?.name) entry.name += call.function.name;
          if (call.function?.arguments) entry.arguments += call.function.arguments;
          toolCalls.set(call.index, entry);
        }
        if (delta.content) {
          const text = renumberer.push(delta.content);
          if (text) {
            content += text;
            yield { type: 'token', text };
          }
        }
      }
    } catch (err) {
      throw toProviderError(err, 'chat', model, secret);
    }
    const rest = renumberer.flush();
    if (rest) {
      content += rest;
      yield { type: 'token', text: rest };
    }
    const toolArguments = [...toolCalls.values()].filter((t) => t.name === REQUEST_CONTACT_TOOL).map((t) => t.arguments);
    const { output, tail } = finish(input, { toolless, content, cited: renumberer.cited, toolArguments, usage, model: usedModel });
    if (tail) yield { type: 'token', text: tail };
    yield { type: 'done', output };
  }

  async function rewriteQuery(message: string, history: ChatTurn[], signal?: AbortSignal): Promise<{ query: string; usage?: ChatUsage }> {
    // A first message has nothing to resolve against: no call, no cost.
    if (!history.some((t) => t.role === 'user')) return { query: message };
    let completion: ChatCompletion;
    try {
      completion = await client.chat.completions.create(
        { model, messages: rewriteMessages(message, history), temperature: 0, max_completion_tokens: REWRITE_MAX_TOKENS, stream: false },
        { signal },
      );
    } catch (err) {
      throw toProviderError(err, 'rewrite', model, secret);
    }
    const text = (completion.choices[0]?.message?.content ?? '')
      .trim()
      .replace(/^(standalone query|query)\s*:\s*/i, '')
      .replace(/^["'“”«»]+|["'“”«»]+$/g, '')
      .trim();
    return { query: text.length > 0 ? text : message, usage: usageOf(completion.usage ?? undefined, completion.model || model) };
  }

  return { kind: 'openai', model, answer, stream, rewriteQuery };
}

/** A 400 saying the model or server takes no tools ("… does not support tools", "tool choice requires …"). */
function refusesTools(err: unknown): boolean {
  const e = err as { status?: unknown; message?: unknown };
  return e.status === 400 && typeof e.message === 'string' && /\btools?\b|tool_choice|function call/i.test(e.message);
}

function leadToolArguments(calls: ChatCompletionMessageToolCall[] | undefined): string[] {
  return (calls ?? []).flatMap((c) => (c.type === 'function' && c.function.name === REQUEST_CONTACT_TOOL ? [c.function.arguments] : []));
}

function replyFromToolArguments(args: string[]): string | undefined {
  for (const raw of args) {
    try {
      const reply = (JSON.parse(raw) as { reply?: unknown }).reply;
      if (typeof reply === 'string' && reply.trim()) return reply.trim();
    } catch {
      // Models occasionally send malformed JSON arguments; the tool call still signals intent.
    }
  }
  return undefined;
}
