/** A Server-Sent Events reader for tests: the events of one response, as they arrive. */
export interface SseEvent {
  event: string;
  data: unknown;
}

export async function* readSse(res: Response): AsyncGenerator<SseEvent> {
  if (!res.body) return;
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      if (data.length > 0) yield { event, data: JSON.parse(data.join('\n')) };
      end = buffer.indexOf('\n\n');
    }
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
