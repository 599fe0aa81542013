import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';

const DEFAULTS = { title: null, greeting: null, color: null, starterQuestions: [], position: 'bottom-right' };

describe('widget settings per client', () => {
  let kb: Kbchat;
  beforeAll(async () => {
    kb = await startKbchat({ services: ['gateway'] });
  });
  afterAll(() => kb?.stop());

  it('are set on create, changed key by key on PATCH, reset with null, and shown by GET', async () => {
    const created = await api<{ clientId: string; widget: unknown }>(kb.baseUrl, 'POST', '/api/admin/clients', {
      name: 'Widget Settings Co',
      widget: { title: 'Ask Acme', color: '#FFD000', starterQuestions: ['What does it cost?', 'When are you open?'] },
    });
    expect(created.status).toBe(201);
    expect(created.body.widget).toEqual({
      ...DEFAULTS,
      title: 'Ask Acme',
      color: '#ffd000',
      starterQuestions: ['What does it cost?', 'When are you open?'],
    });
    const id = created.body.clientId;

    const patched = await api(kb.baseUrl, 'PATCH', `/api/admin/clients/${id}`, {
      widget: { greeting: 'Hello!', position: 'bottom-left', color: null },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.widget).toEqual({
      title: 'Ask Acme',
      greeting: 'Hello!',
      color: null,
      starterQuestions: ['What does it cost?', 'When are you open?'],
      position: 'bottom-left',
    });
    const read = await api(kb.baseUrl, 'GET', `/api/admin/clients/${id}`);
    expect(read.body.widget).toEqual(patched.body.widget);
    // Other fields of the client are untouched by a widget PATCH.
    expect(read.body.name).toBe('Widget Settings Co');
    const plain = await createClient(kb.baseUrl, { name: 'No Settings Co' });
    expect((await api(kb.baseUrl, 'GET', `/api/admin/clients/${plain.clientId}`)).body.widget).toEqual(DEFAULTS);
  });

  it('refuses what the widget could not show, naming the field', async () => {
    const { clientId } = await createClient(kb.baseUrl, { name: 'Strict Settings Co' });
    const cases: [unknown, RegExp][] = [
      [{ color: 'red' }, /^widget\.color must be a hex colour/],
      [{ color: '#12345' }, /^widget\.color must be a hex colour/],
      [{ title: 'x'.repeat(61) }, /^widget\.title must be at most 60 characters/],
      [{ greeting: 'x'.repeat(301) }, /^widget\.greeting must be at most 300 characters/],
      [{ starterQuestions: ['a', 'b', 'c', 'd', 'e'] }, /^widget\.starterQuestions must hold at most 4 questions/],
      [{ starterQuestions: ['x'.repeat(121)] }, /^widget\.starterQuestions\.0 must be at most 120 characters/],
      [{ position: 'top-left' }, /^widget\.position must be bottom-right or bottom-left/],
      [{ title: 'Broken \ud800 text' }, /^widget\.title must be valid Unicode text/],
    ];
    for (const [widget, detail] of cases) {
      const res = await api<{ details: string[] }>(kb.baseUrl, 'PATCH', `/api/admin/clients/${clientId}`, { widget });
      expect(res.status, JSON.stringify(widget)).toBe(400);
      expect(res.body.details.join('; '), JSON.stringify(widget)).toMatch(detail);
    }
    expect((await api(kb.baseUrl, 'POST', '/api/admin/clients', { name: 'X', widget: { color: 'blue' } })).status).toBe(400);
  });

  it('GET /api/widget-config serves only the widget fields, with the CORS of the public endpoints', async () => {
    const open = await createClient(kb.baseUrl, { name: 'Open Widget Co', widget: { title: 'Hi there', position: 'bottom-left' } });
    const res = await fetch(`${kb.baseUrl}/api/widget-config?clientId=${open.clientId}`, { headers: { origin: 'https://any.example' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://any.example');
    expect(res.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    expect(await res.json()).toEqual({ ...DEFAULTS, title: 'Hi there', position: 'bottom-left' });

    const locked = await createClient(kb.baseUrl, { name: 'Locked Widget Co', allowedOrigins: ['https://www.locked.example'] });
    const allowed = await fetch(`${kb.baseUrl}/api/widget-config?clientId=${locked.clientId}`, {
      headers: { origin: 'https://www.locked.example' },
    });
    expect(allowed.status).toBe(200);
    const refused = await fetch(`${kb.baseUrl}/api/widget-config?clientId=${locked.clientId}`, {
      headers: { origin: 'https://evil.example' },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();

    expect((await fetch(`${kb.baseUrl}/api/widget-config?clientId=not-a-client`)).status).toBe(404);
    expect((await fetch(`${kb.baseUrl}/api/widget-config`)).status).toBe(400);
  });
});
