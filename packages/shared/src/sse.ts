/** One Server-Sent Event: its `event:` name ('message' when absent) and its `data:` lines joined. */
export interface SseMessage {
  event: string;
  data: string;
}

/**
 * Takes the complete events off the front of a text/event-stream buffer (line ends already "\n"):
 * blocks end at a blank line, one space after "data:" is dropped, blocks without data (comments,
 * keep-alives) are skipped. Returns them and what is left for the next chunk. Plain string work, so
 * the widget (bundled for browsers) and the Node clients parse the stream the same way.
 */
export function takeSseMessages(buffer: string): { messages: SseMessage[]; rest: string } {
  const messages: SseMessage[] = [];
  let rest = buffer;
  for (let end = rest.indexOf('\n\n'); end >= 0; end = rest.indexOf('\n\n')) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(line[5] === ' ' ? 6 : 5));
    }
    if (data.length > 0) messages.push({ event, data: data.join('\n') });
  }
  return { messages, rest };
}

/** Reads a text/event-stream body (what POST /api/chat/stream sends) as events, as they arrive; CR LF and CR count as line ends. */
export async function* readSseMessages(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    const taken = takeSseMessages(buffer + decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n'));
    buffer = taken.rest;
    yield* taken.messages;
  }
}
