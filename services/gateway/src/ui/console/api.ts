/** The console's one way to the admin API: the admin key from this tab's storage as a Bearer header. */
import type { Row } from './dom.ts';

export interface ApiFailure {
  status: number;
  error: string;
  details: string[] | string;
}

export const KEY_STORE = 'kbchat-admin-key';

export const session = {
  get: (k: string): string => {
    try {
      return sessionStorage.getItem(k) ?? '';
    } catch {
      return '';
    }
  },
  set: (k: string, v: string): void => {
    try {
      if (v) sessionStorage.setItem(k, v);
      else sessionStorage.removeItem(k);
    } catch {
      /* not persisted */
    }
  },
};

export function describe(err: unknown): string {
  const f = err as Partial<ApiFailure>;
  if (f.status === 401 || f.status === 403) return `${f.error}: enter the admin API key at the top of the page.`;
  const details = Array.isArray(f.details) ? f.details.join('; ') : f.details;
  return `${f.error ?? String(err)}${details ? ` — ${details}` : ''}`;
}

export const isMissing = (err: unknown) => (err as Partial<ApiFailure>).status === 404;

/** JSON in and out; a FormData body goes as multipart. Throws an ApiFailure for anything but 2xx. */
export async function call<T = Row>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const key = session.get(KEY_STORE);
  if (key) headers.authorization = `Bearer ${key}`;
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: payload });
  } catch {
    throw { status: 0, error: 'The server could not be reached', details: [] } satisfies ApiFailure;
  }
  const data = (await res.json().catch(() => ({}))) as Row;
  if (!res.ok) {
    throw {
      status: res.status,
      error: typeof data.error === 'string' ? data.error : `HTTP ${res.status}`,
      details: (data.details as string[] | string | undefined) ?? [],
    } satisfies ApiFailure;
  }
  return data as T;
}

/** `/api/admin/clients/<id>` + rest. */
export const clientPath = (clientId: string, rest = '') => `/api/admin/clients/${encodeURIComponent(clientId)}${rest}`;

export function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
