/** The public API as the widget calls it: chat (streamed, with a plain fallback), feedback, settings. */
import { takeSseMessages } from '@kbchat/shared/sse';

export interface Source {
  title: string;
  url: string;
}
export interface Done {
  answer: string;
  sources: Source[];
  sessionId: string;
  leadCaptureIntent: boolean;
  /** The stored answer, to rate it (POST /api/feedback). */
  messageId?: string;
}
export interface Failure {
  status: number;
  error: string;
  /** True when asking /api/chat instead could still work (stream route missing, 5xx, network). */
  fallback: boolean;
}

/** The operator's widget settings (GET /api/widget-config); null fields take the defaults. */
export interface WidgetConfig {
  title: string | null;
  greeting: string | null;
  color: string | null;
  starterQuestions: string[];
  position: 'bottom-right' | 'bottom-left';
}

async function failure(res: Response): Promise<Failure> {
  const body = (await res.json().catch(() => ({}))) as { error?: string };
  return { status: res.status, error: body.error ?? `HTTP ${res.status}`, fallback: ![400, 403, 413, 429].includes(res.status) };
}

/** POST /api/chat/stream and parse the Server-Sent Events as they arrive. */
export async function streamChat(api: string, body: string, onToken: (text: string) => void): Promise<Done> {
  let res: Response;
  try {
    res = await fetch(`${api}/api/chat/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body,
    });
  } catch {
    throw { status: 0, error: 'network', fallback: true } satisfies Failure;
  }
  if (!res.ok) throw await failure(res);
  if (!res.body || !(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    throw { status: res.status, error: 'not a stream', fallback: true } satisfies Failure;
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let tokens = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<string>;
    try {
      chunk = await reader.read();
    } catch {
      throw { status: 0, error: 'stream interrupted', fallback: tokens === 0 } satisfies Failure;
    }
    if (chunk.done) break;
    const taken = takeSseMessages(buffer + chunk.value.replace(/\r\n?/g, '\n'));
    buffer = taken.rest;
    for (const message of taken.messages) {
      const payload = JSON.parse(message.data) as { text?: string; error?: string } & Done;
      if (message.event === 'token' && payload.text) {
        tokens++;
        onToken(payload.text);
      } else if (message.event === 'done') {
        // The answer is complete; a failed cancel of the rest of the stream changes nothing for the visitor.
        reader.cancel().catch(() => {});
        return payload;
      } else if (message.event === 'error') {
        throw { status: 500, error: payload.error ?? 'error', fallback: tokens === 0 } satisfies Failure;
      }
    }
  }
  throw { status: 0, error: 'stream ended early', fallback: tokens === 0 } satisfies Failure;
}

export async function plainChat(api: string, body: string): Promise<Done> {
  let res: Response;
  try {
    res = await fetch(`${api}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  } catch {
    throw { status: 0, error: 'network', fallback: false } satisfies Failure;
  }
  if (!res.ok) throw await failure(res);
  return (await res.json()) as Done;
}

/** POST /api/feedback; true when the rating was stored. */
export async function sendFeedback(
  api: string,
  body: { clientId: string; sessionId: string; messageId: string; rating: 'up' | 'down' },
): Promise<boolean> {
  try {
    const res = await fetch(`${api}/api/feedback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return res.ok;
  } catch {
    return false;
  }
}

/** Past this the launcher shows with the defaults rather than wait longer for the settings. */
const CONFIG_TIMEOUT_MS = 3000;

/** The client's public settings; undefined when they cannot be read in time (the widget then uses its defaults). */
export async function fetchConfig(api: string, clientId: string): Promise<WidgetConfig | undefined> {
  try {
    const res = await fetch(`${api}/api/widget-config?clientId=${encodeURIComponent(clientId)}`, {
      signal: AbortSignal.timeout(CONFIG_TIMEOUT_MS),
    });
    return res.ok ? ((await res.json()) as WidgetConfig) : undefined;
  } catch {
    return undefined;
  }
}
