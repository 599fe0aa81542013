import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import type { ClientRow } from '../db/clients.ts';
import { type CuratedAnswerRow, curatedDocumentSources, listCuratedAnswers, wordsElsewhere } from '../db/curated-answers.ts';
import { appendTurns, recentMessages, type StoredTurn } from '../db/messages.ts';
import { aboutPageChunks, homePageChunks, priceListChunks } from '../db/pages.ts';
import { type Pool, withTransaction } from '../db/pool.ts';
import { recordUsage, type UsageEntry } from '../db/usage.ts';
import { detectLeadIntent } from '../intent/classifier.ts';
import { acceptsContactOffer, isAcceptance, isContactRequestOnly } from '../intent/conversation.ts';
import type { Logger } from '../logger.ts';
import { expiringMemo } from '../memo.ts';
import { CURATED_URL_PREFIX } from '../pipeline/curated-answers.ts';
import { contactOfferReply, replyLanguage, smallTalkOf, smallTalkReply } from '../providers/chat/canned-replies.ts';
import {
  type ChatInput,
  type ChatOutput,
  type ChatPassage,
  type ChatProvider,
  type ChatTurn,
  type ChatUsage,
  createChatProvider,
} from '../providers/chat/chat.ts';
import { openingOf, priceListOf } from '../providers/chat/extractive-answer.ts';
import { followUpFocus } from '../providers/chat/follow-up.ts';
import { createEmbeddingProvider, type EmbeddingProvider } from '../providers/embeddings/embeddings.ts';
import type { ChatResponse } from '../schemas/chat.ts';
import { aboutQuestionOf } from './about-question.ts';
import { expandChatSpeak } from './chat-speak.ts';
import { matchCurated, retrievedCuratedFit } from './curated.ts';
import { createQueryEmbedder } from './query-embedding.ts';
import { DEFAULT_RANKING, LOCAL_EMBEDDER_RANKING } from './ranking.ts';
import { type RankedPassage, type RetrievalSettings, retrieve, sourcesOf } from './retrieval.ts';

export interface ChatServiceDeps {
  config: Config;
  log: Logger;
  pool: Pool;
  redis: Redis;
  /** Defaults to the configured providers; tests and benches may pass their own. */
  embeddings?: EmbeddingProvider;
  chat?: ChatProvider;
}

export interface ChatRequest {
  client: Pick<ClientRow, 'id' | 'name' | 'has_curated_answers'>;
  message: string;
  sessionId?: string;
  pageUrl?: string;
  signal?: AbortSignal;
}

/** Everything decided before the model is called: the stream route sends errors up to here as plain JSON. */
export interface PreparedChat {
  clientId: string;
  sessionId: string;
  input: ChatInput;
  /** What the answer may cite: the retrieved passages (and a curated answer's, first). */
  passages: Pick<RankedPassage, 'id' | 'url' | 'title'>[];
  usage: UsageEntry[];
  /** The message as the visitor typed it, when its shorthand was read in full words (chat/chat-speak.ts): what is stored. */
  typed?: string;
  /** Decided without a provider: a yes to the contact offer of the last reply, or small talk ("thanks!"). */
  reply?: ChatOutput;
}

export type ChatServiceEvent = { type: 'token'; text: string } | { type: 'done'; response: ChatResponse };

/**
 * How an answer went (docs/operators.md, "Metrics"): quoted the site, offered the contact form, replied in
 * kind without either (a greeting, "who are you?"), or declined — what the knowledge gaps list.
 */
export type AnswerOutcome = 'answered' | 'contact' | 'replied' | 'declined';
const outcomes = new WeakMap<ChatResponse, AnswerOutcome>();

/** The outcome of a response this process's chat service returned; from its fields for any other. */
export function answerOutcome(response: ChatResponse): AnswerOutcome {
  return outcomes.get(response) ?? outcomeOf(response.sources.length, response.leadCaptureIntent, false);
}

function outcomeOf(sources: number, leadCaptureIntent: boolean, replied: boolean): AnswerOutcome {
  return sources > 0 ? 'answered' : leadCaptureIntent ? 'contact' : replied ? 'replied' : 'declined';
}

export interface ChatService {
  readonly embeddings: EmbeddingProvider;
  readonly chat: ChatProvider;
  readonly settings: RetrievalSettings;
  prepare(req: ChatRequest): Promise<PreparedChat>;
  /** Maps the used passages to sources, stores both turns and the usage, and returns the response. */
  finish(prepared: PreparedChat, output: ChatOutput): Promise<ChatResponse>;
  answer(req: ChatRequest): Promise<ChatResponse>;
  /** Tokens as the provider produces them, then exactly one `done` once the turns are stored. */
  stream(prepared: PreparedChat): AsyncIterable<ChatServiceEvent>;
}

export function createChatService(deps: ChatServiceDeps): ChatService {
  const { config, log, pool } = deps;
  const embeddings = deps.embeddings ?? createEmbeddingProvider(config);
  const chat = deps.chat ?? createChatProvider(config);
  const settings: RetrievalSettings = {
    candidates: config.RETRIEVAL_CANDIDATES,
    passages: config.RETRIEVAL_PASSAGES,
    exactScanMaxDocs: config.RETRIEVAL_EXACT_SCAN_MAX_DOCS,
    efSearch: config.RETRIEVAL_HNSW_EF_SEARCH,
    mode: config.RETRIEVAL_MODE,
    ranking: {
      ...(embeddings.kind === 'local' ? LOCAL_EMBEDDER_RANKING : DEFAULT_RANKING),
      ...(config.RETRIEVAL_MAX_ABSENT_SHARE === undefined ? {} : { maxAbsentShare: config.RETRIEVAL_MAX_ABSENT_SHARE }),
    },
  };
  const embedQuery = createQueryEmbedder({
    redis: deps.redis,
    keyPrefix: config.REDIS_PREFIX,
    ttlSeconds: config.QUERY_EMBEDDING_CACHE_TTL_SECONDS,
    provider: embeddings,
    log,
  });
  let lastEmbedWarning = 0;
  // The price list is a scan of the client's chunks (~0.25 s for 10,000): kept a minute per client, so a
  // visitor asking "prices?" again and again costs one scan a minute, a re-crawl's prices a minute late.
  const priceList = expiringMemo(1_000, 60_000, (clientId: string) => priceListChunks(pool, clientId, 2));

  /**
   * What the client says it does: its home page's first chunks, after those of its page about itself when
   * the home page states nothing (a documentation site's contents page). Kept a minute per client, as the
   * price list: finding the page about it reads every page's address and some first words (~90 ms for the
   * PostgreSQL docs' 1,169), and "what do you do?" is a first message.
   */
  const businessChunks = expiringMemo(1_000, 60_000, async (key: string): Promise<ChatPassage[]> => {
    const [clientId = '', name = ''] = key.split('\u0000');
    const home = await homePageChunks(pool, clientId, 3);
    if (openingOf(home).text) return home;
    return [...(await aboutPageChunks(pool, clientId, 3, name)), ...home];
  });

  /** The message read in full words ("wat r ur prices" is "what are your prices"), and stored as typed. */
  async function prepare(asked: ChatRequest): Promise<PreparedChat> {
    const message = expandChatSpeak(asked.message);
    const prepared = await prepareRead({ ...asked, message });
    return message === asked.message ? prepared : { ...prepared, typed: asked.message };
  }

  async function prepareRead(req: ChatRequest): Promise<PreparedChat> {
    const clientId = req.client.id;
    const sessionId = req.sessionId ?? randomUUID();
    const usage: UsageEntry[] = [];
    const [history, curatedAnswers] = await Promise.all([
      // The visitor's earlier messages in full words too: a follow-up takes its topic from them.
      req.sessionId
        ? recentMessages(pool, clientId, sessionId, config.CHAT_HISTORY_MESSAGES).then((turns) =>
            turns.map((t) => (t.role === 'user' ? { ...t, content: expandChatSpeak(t.content) } : t)),
          )
        : Promise.resolve([] as ChatTurn[]),
      // Most clients have none: the client row says so, and the list is not read.
      req.client.has_curated_answers === false ? Promise.resolve([] as CuratedAnswerRow[]) : listCuratedAnswers(pool, clientId),
    ]);

    // Lead intent wins over retrieval when the message only asks for contact: a "yes" to the contact
    // offer the last reply ended with (the "I don't know" reply makes one) is answered with the lead
    // form's invitation and no model call; "call me about a quote" goes to the provider with no
    // passages, so it is not answered with pages that merely share a word ("quote_literal").
    const base = {
      clientName: req.client.name,
      message: req.message,
      query: req.message,
      history,
      passages: [],
      contactRequested: true,
      ...(req.pageUrl ? { pageUrl: req.pageUrl } : {}),
      ...(req.signal ? { signal: req.signal } : {}),
    } satisfies ChatInput;
    if (acceptsContactOffer(req.message, history)) {
      const reply: ChatOutput = {
        answer: contactOfferReply(req.client.name, replyLanguage(req.message, history)),
        usedPassageIds: [],
        leadCaptureIntent: true,
      };
      return { clientId, sessionId, input: base, passages: [], usage, reply };
    }
    if (isContactRequestOnly(req.message)) return { clientId, sessionId, input: base, passages: [], usage };
    // "hi", "thanks!", "ok, bye": social, not a question — answered in kind, not with a quote of the site.
    // So is a "yes please" that answers no contact offer: after an answer it asks nothing, and quoting
    // the page that shares its "please" reads as a bot that did not listen. A model that asked the
    // visitor something gets the "yes" (the extractive answer never asks).
    const talk =
      smallTalkOf(req.message) ??
      (isAcceptance(req.message) && (chat.kind === 'extractive' || !history.at(-1)?.content.trim().endsWith('?')) ? 'yes' : undefined);
    // "who are you?", "are you a bot?": what the assistant is, in kind too. "What do you do?", "what are
    // your prices?": the client's own word on it — its home page's opening, its price list (quoted offline,
    // the chat model's passages otherwise).
    // A curated answer the operator wrote for it ("What are your prices?") is the answer, as for any question
    // (matched here only for such a question: any other is matched once, below, on its searched words).
    const asked = talk ? undefined : aboutQuestionOf(req.message, req.client.name, history.length > 0);
    const about = asked && curatedAnswers.length > 0 && matchCurated(req.message, curatedAnswers) !== undefined ? undefined : asked;
    const kind = talk ?? (about === 'assistant' ? 'assistant' : undefined);
    if (kind) {
      const reply: ChatOutput = {
        answer: smallTalkReply(kind, req.client.name, replyLanguage(req.message, history)),
        usedPassageIds: [],
        leadCaptureIntent: false,
      };
      return { clientId, sessionId, input: { ...base, contactRequested: false }, passages: [], usage, reply };
    }
    if (about === 'business' || about === 'prices') {
      const own = about === 'business' ? await businessChunks(`${clientId}\u0000${req.client.name}`) : await priceList(clientId);
      const input: ChatInput = { ...base, contactRequested: false, passages: own };
      if (chat.kind !== 'extractive' && own.length > 0) return { clientId, sessionId, input, passages: own, usage };
      const quote = chat.kind === 'extractive' ? (about === 'business' ? openingOf(own) : priceListOf(own)) : undefined;
      if (quote?.text) {
        const usedPassageIds = quote.used.map((k) => (own[k] as ChatPassage).id);
        return {
          clientId,
          sessionId,
          input,
          passages: own,
          usage,
          reply: { answer: quote.text, usedPassageIds, leadCaptureIntent: false },
        };
      }
      // No price list: nothing on the site says what anything costs, and "I don't know" is the answer (the
      // question's words alone find "$1" in an SQL example). No home page with a sentence (texts and files
      // only, a page of links): asked like any question.
      if (about === 'prices' && own.length === 0) return { clientId, sessionId, input, passages: [], usage };
    }

    let query = req.message;
    if (history.length > 0) {
      const rewritten = await chat.rewriteQuery(req.message, history, req.signal);
      if (rewritten.query.trim()) query = rewritten.query.trim();
      if (rewritten.usage) usage.push(chatUsage(clientId, rewritten.usage));
    }
    // The words the answer is about: the visitor's own, or the topic a follow-up naming none points back at ("is it free?").
    const focus = followUpFocus(req.message, query, history);

    let embedding: number[] | undefined;
    // Full-text-only mode (measuring) never embeds the query.
    if (settings.mode !== 'fulltext') {
      try {
        const q = await embedQuery(query, req.signal);
        embedding = q.vector;
        if (!q.cached && embeddings.costPer1kTokens > 0) {
          usage.push({
            clientId,
            kind: 'query-embedding',
            model: embeddings.model,
            promptTokens: q.tokens,
            costUsd: (q.tokens / 1000) * embeddings.costPer1kTokens,
          });
        }
      } catch (err) {
        if (req.signal?.aborted) throw err;
        // Full-text retrieval still answers while the embedding provider is down; the chat model
        // call that follows decides whether the request fails.
        if (Date.now() - lastEmbedWarning > 30_000) {
          lastEmbedWarning = Date.now();
          log.error({ err: { message: (err as Error).message } }, 'query embedding failed; retrieving by full text only');
        }
      }
    }

    const retrieved = await retrieve(pool, settings, {
      clientId,
      query,
      ...(query !== req.message ? { focus } : {}),
      embedding,
      embeddingModel: embeddings.model,
      ...(req.pageUrl ? { pageUrl: req.pageUrl } : {}),
    });
    log.debug(
      {
        clientId,
        scan: retrieved.scan,
        considered: retrieved.considered,
        passages: retrieved.passages.length,
        rewritten: query !== req.message,
      },
      'retrieved',
    );

    // A curated answer the question asks for (in its words, or retrieved first like a page) is the
    // answer: verbatim from the extractive provider, the first passage for a chat model.
    // The offline answer quotes a curated answer's hidden document only as that answer, never like a
    // page: a near-miss ranking it first ("Do you sell skateboard *wheels*?") quoted "Do you sell
    // skateboards?". A chat model reads it as a passage like a page's and judges what it answers.
    const hidden =
      curatedAnswers.length > 0
        ? await curatedDocumentSources(
            pool,
            clientId,
            retrieved.passages.map((p) => p.id),
          )
        : new Map<string, string>();
    const topId = retrieved.passages[0]?.id;
    const curated =
      matchCurated(query, curatedAnswers)?.answer ??
      // Taken from the retrieval only when no more of the question is missing than a large site allows
      // (a small site answers with more missing: its pages, not its curated answers, are then quoted).
      (topId !== undefined &&
      hidden.has(topId) &&
      retrieved.absentShare < (settings.ranking?.maxAbsentShare ?? DEFAULT_RANKING.maxAbsentShare)
        ? await retrievedCurated(
            clientId,
            query,
            curatedAnswers.find((a) => a.source_id === hidden.get(topId)),
          )
        : undefined);
    const retrievedPassages = retrieved.passages
      .filter((p) => chat.kind !== 'extractive' || !hidden.has(p.id))
      .map((p) => ({
        id: p.id,
        url: p.url,
        title: p.title,
        heading: p.heading,
        content: p.content,
        ...(p.continuation === undefined ? {} : { continuation: p.continuation }),
        ...(p.continuesSection === undefined ? {} : { continuesSection: p.continuesSection }),
      }));
    const curatedPassage = curated ? curatedPassageOf(curated) : undefined;
    const passages = curatedPassage
      ? [curatedPassage, ...retrievedPassages.filter((p) => p.url !== curatedPassage.url)]
      : retrievedPassages;
    const input: ChatInput = {
      clientName: req.client.name,
      message: req.message,
      query,
      ...(focus === req.message ? {} : { focus }),
      history,
      passages,
      specificity: retrieved.specificity,
      siteChunks: retrieved.chunks,
      ...(req.pageUrl ? { pageUrl: req.pageUrl } : {}),
      ...(req.signal ? { signal: req.signal } : {}),
    };
    if (curated && curatedPassage && chat.kind === 'extractive') {
      const reply: ChatOutput = {
        answer: curated.answer,
        usedPassageIds: curated.url ? [curatedPassage.id] : [],
        leadCaptureIntent: detectLeadIntent(req.message),
      };
      return { clientId, sessionId, input, passages, usage, reply };
    }
    return { clientId, sessionId, input, passages, usage };
  }

  /**
   * The curated answer whose hidden document the retrieval ranked first (found in the list read at
   * the start of the request), when the question asks for it (chat/curated.ts) and none of its other
   * words is the site's elsewhere. Clients without curated answers never get here: under load every
   * round trip to Postgres is two more waits for a CPU (docs/performance.md, part load).
   */
  async function retrievedCurated(
    clientId: string,
    query: string,
    answer: CuratedAnswerRow | undefined,
  ): Promise<CuratedAnswerRow | undefined> {
    if (!answer) return undefined;
    const fit = retrievedCuratedFit(query, answer);
    if (!fit.asked) return undefined;
    const elsewhere = await wordsElsewhere(pool, clientId, answer.source_id, fit.unexplained);
    return elsewhere.length === 0 ? answer : undefined;
  }

  async function finish(prepared: PreparedChat, output: ChatOutput): Promise<ChatResponse> {
    // Only passages we retrieved can become sources (never an invented citation), in the order the
    // provider cited them: its markers are numbered by page in that order, so [k] is sources[k-1].
    const byId = new Map(prepared.passages.map((p) => [p.id, p]));
    // A curated answer without a url cites nothing: its marker is not an address a visitor can open.
    const sources = sourcesOf(output.usedPassageIds.flatMap((id) => byId.get(id) ?? [])).filter(
      (s) => !s.url.startsWith(CURATED_URL_PREFIX),
    );
    const usage = output.usage ? [...prepared.usage, chatUsage(prepared.clientId, output.usage)] : prepared.usage;
    // Declined: nothing to quote and no contact asked for — what the operator's knowledge gaps list.
    const outcome = outcomeOf(sources.length, output.leadCaptureIntent, prepared.reply !== undefined);
    const declined = outcome === 'declined';
    const turns: StoredTurn[] = [
      { role: 'user', content: prepared.typed ?? prepared.input.message },
      { role: 'assistant', content: output.answer, sources, leadCaptureIntent: output.leadCaptureIntent, declined },
    ];
    const pageUrl = prepared.input.pageUrl;
    const ids =
      usage.length === 0
        ? await appendTurns(pool, prepared.clientId, prepared.sessionId, turns, pageUrl)
        : await withTransaction(pool, async (tx) => {
            const stored = await appendTurns(tx, prepared.clientId, prepared.sessionId, turns, pageUrl);
            for (const entry of usage) await recordUsage(tx, entry);
            return stored;
          });
    const response: ChatResponse = {
      answer: output.answer,
      sources,
      sessionId: prepared.sessionId,
      leadCaptureIntent: output.leadCaptureIntent,
      messageId: ids[1] as string,
    };
    outcomes.set(response, outcome);
    return response;
  }

  return {
    embeddings,
    chat,
    settings,
    prepare,
    finish,
    async answer(req) {
      const prepared = await prepare(req);
      const output = prepared.reply ?? (await chat.answer(prepared.input));
      req.signal?.throwIfAborted();
      return finish(prepared, output);
    },
    async *stream(prepared) {
      if (prepared.reply) {
        // Word by word like a provider's stream, so the widget's path is the same.
        for (const piece of prepared.reply.answer.match(/\S+\s*|\s+/g) ?? []) yield { type: 'token', text: piece };
        yield { type: 'done', response: await finish(prepared, prepared.reply) };
        return;
      }
      for await (const event of chat.stream(prepared.input)) {
        if (event.type === 'token') {
          if (event.text) yield { type: 'token', text: event.text };
          continue;
        }
        // A provider may end an aborted call quietly with what it had (the openai SDK does): the
        // visitor left, so that partial answer is not stored as if it had been read.
        prepared.input.signal?.throwIfAborted();
        yield { type: 'done', response: await finish(prepared, event.output) };
        return;
      }
      throw new Error('the chat provider ended its stream without a result');
    },
  };
}

function chatUsage(clientId: string, u: ChatUsage): UsageEntry {
  return {
    clientId,
    kind: 'chat',
    model: u.model,
    promptTokens: u.promptTokens,
    completionTokens: u.completionTokens,
    costUsd: u.costUsd,
  };
}

function curatedPassageOf(answer: CuratedAnswerRow) {
  return {
    id: `curated-${answer.id}`,
    url: answer.url ?? `${CURATED_URL_PREFIX}${answer.id}`,
    title: answer.question,
    heading: null,
    content: answer.answer,
  };
}
