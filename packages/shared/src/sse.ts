/** One Server-Sent Event: its `event:` name ('message' when absent) and its `data:` lines joined. */
export interface SseMessage {
  event: string;
  data: string;
}

/**
 * Reads a text/event-stream body (what POST /api/chat/stream sends) as events, as they arrive:
 * blocks end at a blank line, CR LF and CR count as line ends, one space after "data:" is dropped,
 * and blocks without data (comments, keep-alives) are skipped. For clients in Node — the CLI and the
 * tests; the widget keeps its own copy, since it ships as one self-contained script.
 */
export async function* readSseMessages(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(line[5] === ' ' ? 6 : 5));
      }
      if (data.length > 0) yield { event, data: data.join('\n') };
    }
  }
}
