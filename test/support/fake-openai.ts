// An OpenAI-compatible server for tests: /v1/embeddings and /v1/chat/completions (tools and
// streaming), with the real API's bounds enforced, every request recorded, and scriptable faults.
// The official openai SDK is pointed at it with OPENAI_BASE_URL=<url>/v1.
import { createHash, randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';

export const FAKE_OPENAI_KEY = 'sk-test-fake-openai-key';
const DIMS = 1536;

export interface ChatRequestBody {
  model: string;
  messages: { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }[];
  tools?: { type: 'function'; function: { name: string; description?: string; parameters?: unknown } }[];
  tool_choice?: unknown;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [key: string]: unknown;
}

export interface ChatReply {
  content?: string | null;
  toolCalls?: { name: string; arguments: Record<string, unknown> }[];
}

export interface Fault {
  status: number;
  /** Sent as Retry-After (seconds). */
  retryAfter?: number;
  /** Respond after this long (a slow or hanging server). */
  delayMs?: number;
}

export interface RecordedEmbeddingRequest {
  model: string;
  inputs: string[];
  tokens: number;
  status: number;
  authorization: string | undefined;
  /** The request body as sent (model, dimensions, encoding_format, …). */
  body?: Record<string, unknown>;
}

export interface FakeOpenAIOptions {
  /** The key it accepts (a request with another gets the API's 401, which echoes a masked key); default: one of its own, in `env`. */
  apiKey?: string;
  /** Vector size per model (a self-hosted model's 768, a large one's 3072); default 1536. A request's `dimensions` wins. */
  embeddingDimensions?: Record<string, number>;
  /** Chat models that take no tools: a request offering one gets the 400 Ollama answers for them. */
  chatModelsWithoutTools?: string[];
}

export interface FakeOpenAI {
  url: string;
  /** For OPENAI_BASE_URL. */
  baseUrl: string;
  /** OPENAI_API_KEY and OPENAI_BASE_URL pointing a kbchat config at this server. */
  env: { OPENAI_API_KEY: string; OPENAI_BASE_URL: string };
  requests: { embeddings: RecordedEmbeddingRequest[]; chat: { body: ChatRequestBody; status: number }[] };
  /** Decides each chat completion; default: see defaultChatReply. */
  chatHandler: (body: ChatRequestBody) => ChatReply | Promise<ChatReply>;
  /** Faults answered, in order, before normal service resumes. */
  faults: { embeddings: Fault[]; chat: Fault[] };
  /** Delay between streamed chunks, ms. */
  streamChunkDelayMs: number;
  /** Counted tokens of the embeddings served (what the API would bill). */
  embeddedTokens(): number;
  reset(): void;
  close(): Promise<void>;
}

/** The fake's vector for a text: deterministic, lexical (shared words → close vectors), unit length. */
export function fakeEmbedding(text: string, dims = DIMS): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const h = createHash('sha1').update(word).digest();
    const i = h.readUInt32LE(0) % dims;
    v[i] = (v[i] ?? 0) + (h[4]! & 1 ? 1 : -1);
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

/**
 * The default chat behaviour: a request offering a tool whose name mentions contact/lead is
 * answered with a call to it when the last user message asks to be contacted; otherwise the
 * answer quotes the start of the system prompt's first passage marker ("[1]") if there is one.
 */
export function defaultChatReply(body: ChatRequestBody): ChatReply {
  const lastUser = [...body.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const leadTool = body.tools?.find((t) => /contact|lead/i.test(t.function.name));
  if (leadTool && /\b(call|contact|email|reach) me\b|\bquote\b|\bdemo\b|talk to (a|someone|sales)/i.test(lastUser)) {
    return { toolCalls: [{ name: leadTool.function.name, arguments: { reason: 'visitor asked to be contacted' } }] };
  }
  const prompt = body.messages.map((m) => m.content ?? '').join('\n');
  const passage = /\[1\][^\n]*\n?([^\n]{1,300})/.exec(prompt)?.[1]?.trim();
  return { content: passage ? `Based on the site [1]: ${passage}` : "I don't know based on this site's content." };
}

function tokensOf(text: string): number {
  return countTokens(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function apiError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
  json(res, status, { error: { message, type: status === 429 ? 'rate_limit_exceeded' : 'invalid_request_error', code: null } }, headers);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function toBase64(vector: number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString('base64');
}

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  // A key of its own unless one is given: a kbchat left running by another test, whose fake's port
  // this one now has, gets 401 here instead of having its requests counted as this test's.
  const apiKey = options.apiKey ?? `${FAKE_OPENAI_KEY}-${randomUUID().slice(0, 8)}`;
  const fake = {
    requests: { embeddings: [], chat: [] },
    chatHandler: defaultChatReply,
    faults: { embeddings: [], chat: [] },
    streamChunkDelayMs: 0,
  } as unknown as FakeOpenAI;

  async function applyFault(list: Fault[], res: ServerResponse): Promise<number | undefined> {
    const fault = list.shift();
    if (!fault) return undefined;
    if (fault.delayMs) await sleep(fault.delayMs);
    if (res.destroyed) return fault.status;
    apiError(
      res,
      fault.status,
      `injected fault ${fault.status}`,
      fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {},
    );
    return fault.status;
  }

  async function embeddings(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>) {
    const inputs = typeof body.input === 'string' ? [body.input] : Array.isArray(body.input) ? (body.input as unknown[]) : [];
    const texts = inputs.map((i) => (typeof i === 'string' ? i : ''));
    const perInput = texts.map(tokensOf);
    const tokens = perInput.reduce((a, b) => a + b, 0);
    const record: RecordedEmbeddingRequest = {
      model: String(body.model),
      inputs: texts,
      tokens,
      status: 200,
      authorization: req.headers.authorization,
      body,
    };
    fake.requests.embeddings.push(record);
    const faulted = await applyFault(fake.faults.embeddings, res);
    if (faulted !== undefined) {
      record.status = faulted;
      return;
    }
    let problem: string | undefined;
    if (texts.length === 0 || texts.some((t) => t.length === 0))
      problem = "'input' must be a non-empty string or array of non-empty strings";
    else if (texts.length > 2048) problem = `'input' array must have at most 2048 elements, got ${texts.length}`;
    else if (perInput.some((n) => n > 8191)) problem = "This model's maximum context length is 8191 tokens";
    else if (tokens > 300_000) problem = `Requested ${tokens} tokens, max 300000 tokens per request`;
    if (problem) {
      record.status = 400;
      return apiError(res, 400, problem);
    }
    const base64 = body.encoding_format === 'base64';
    const dims = typeof body.dimensions === 'number' ? body.dimensions : (options.embeddingDimensions?.[String(body.model)] ?? DIMS);
    json(res, 200, {
      object: 'list',
      model: body.model,
      data: texts.map((t, index) => {
        const vector = fakeEmbedding(t, dims);
        return { object: 'embedding', index, embedding: base64 ? toBase64(vector) : vector };
      }),
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }

  async function chat(res: ServerResponse, body: ChatRequestBody) {
    const record = { body, status: 200 };
    fake.requests.chat.push(record);
    const faulted = await applyFault(fake.faults.chat, res);
    if (faulted !== undefined) {
      record.status = faulted;
      return;
    }
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      record.status = 400;
      return apiError(res, 400, "'messages' must be a non-empty array");
    }
    if (body.tools?.length && options.chatModelsWithoutTools?.includes(String(body.model))) {
      record.status = 400;
      return apiError(res, 400, `registry.ollama.ai/library/${String(body.model)} does not support tools`);
    }
    const reply = await fake.chatHandler(body);
    const promptTokens = body.messages.reduce((n, m) => n + tokensOf(m.content ?? '') + 4, 0);
    const content = reply.content ?? null;
    const toolCalls = (reply.toolCalls ?? []).map((t) => ({
      id: `call_${randomUUID().slice(0, 12)}`,
      type: 'function' as const,
      function: { name: t.name, arguments: JSON.stringify(t.arguments) },
    }));
    const completionTokens = tokensOf(content ?? '') + toolCalls.reduce((n, t) => n + tokensOf(t.function.arguments) + 4, 0);
    const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
    const finish = toolCalls.length > 0 ? 'tool_calls' : 'stop';
    const id = `chatcmpl-${randomUUID()}`;
    const created = Math.floor(Date.now() / 1000);
    if (!body.stream) {
      return json(res, 200, {
        id,
        object: 'chat.completion',
        created,
        model: body.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}), refusal: null },
            finish_reason: finish,
            logprobs: null,
          },
        ],
        usage,
      });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices, ...extra })}\n\n`);
    send([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
    // Words with their following space, so the joined stream equals the content exactly.
    for (const piece of content?.match(/\S+\s*|\s+/g) ?? []) {
      if (fake.streamChunkDelayMs) await sleep(fake.streamChunkDelayMs);
      if (res.destroyed) return;
      send([{ index: 0, delta: { content: piece }, finish_reason: null }]);
    }
    toolCalls.forEach((t, index) => {
      send([
        {
          index: 0,
          delta: { tool_calls: [{ index, id: t.id, type: 'function', function: { name: t.function.name, arguments: '' } }] },
          finish_reason: null,
        },
      ]);
      send([{ index: 0, delta: { tool_calls: [{ index, function: { arguments: t.function.arguments } }] }, finish_reason: null }]);
    });
    send([{ index: 0, delta: {}, finish_reason: finish }]);
    if (body.stream_options?.include_usage) send([], { usage });
    res.end('data: [DONE]\n\n');
  }

  const server = http.createServer(async (req, res) => {
    try {
      const raw = await readBody(req);
      const path = (req.url ?? '').split('?')[0];
      if (req.method !== 'POST') return apiError(res, 404, 'not found');
      if (!req.headers.authorization?.startsWith('Bearer ')) return apiError(res, 401, 'missing API key');
      const key = req.headers.authorization.slice('Bearer '.length);
      if (key !== apiKey) {
        // Like the real API: the message shows the key's start and end.
        return apiError(
          res,
          401,
          `Incorrect API key provided: ${key.slice(0, 6)}${'*'.repeat(12)}${key.slice(-4)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        );
      }
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return apiError(res, 400, 'invalid JSON body');
      }
      if (path === '/v1/embeddings') return await embeddings(req, res, body);
      if (path === '/v1/chat/completions') return await chat(res, body as unknown as ChatRequestBody);
      return apiError(res, 404, `unknown path ${path}`);
    } catch (err) {
      if (!res.headersSent) apiError(res, 500, (err as Error).message);
      else res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fake.url = `http://127.0.0.1:${port}`;
  fake.baseUrl = `${fake.url}/v1`;
  fake.env = { OPENAI_API_KEY: apiKey, OPENAI_BASE_URL: fake.baseUrl };
  fake.embeddedTokens = () => fake.requests.embeddings.filter((r) => r.status === 200).reduce((n, r) => n + r.tokens, 0);
  fake.reset = () => {
    fake.requests.embeddings.length = 0;
    fake.requests.chat.length = 0;
    fake.faults.embeddings.length = 0;
    fake.faults.chat.length = 0;
    fake.chatHandler = defaultChatReply;
    fake.streamChunkDelayMs = 0;
  };
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
