import { type ApiFailure, describe } from './api.ts';

/** The page's two live regions: a polite notice and an alert, one message at a time. */
const byId = (id: string) => document.getElementById(id) as HTMLElement;

export function say(message: string): void {
  byId('alert').textContent = '';
  byId('notice').textContent = message;
}

export function fail(err: unknown): void {
  byId('notice').textContent = '';
  byId('alert').textContent = describe(err);
  const status = (err as Partial<ApiFailure>).status;
  if (status === 401 || status === 403) byId('auth-key').focus();
}
