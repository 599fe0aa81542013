import { readSseMessages } from '@kbchat/shared/sse';

/** A Server-Sent Events reader for tests: the events of one response, as they arrive. */
export interface SseEvent {
  event: string;
  data: unknown;
}

export async function* readSse(res: Response): AsyncGenerator<SseEvent> {
  if (!res.body) return;
  for await (const { event, data } of readSseMessages(res.body as unknown as AsyncIterable<Uint8Array>)) {
    yield { event, data: JSON.parse(data) };
  }
}

export async function postStream(baseUrl: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) {
  return fetch(new URL('/api/chat/stream', baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

export async function collectSse(res: Response): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const e of readSse(res)) out.push(e);
  return out;
}
