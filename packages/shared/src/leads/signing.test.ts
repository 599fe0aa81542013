import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../db/clients.ts';
import { signWebhook, verifyWebhook, webhookSignatureHeaders } from './signing.ts';

describe('Standard Webhooks signing', () => {
  it('matches the reference test vector', () => {
    // The example of the Standard Webhooks specification and its reference libraries.
    const signature = signWebhook({
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp: 1614265330,
      body: '{"test": 2432232314}',
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    });
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('produces headers the reference verifier accepts, and a tampered body, id or timestamp fails it', () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ event: 'lead.created', data: { id: 'x', name: 'Zoë Ångström' } });
    const now = Math.floor(Date.now() / 1000);
    const headers = webhookSignatureHeaders({ id: 'msg_1', timestamp: now, body, secret });
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(verifyWebhook({ headers, body, secret })).toEqual({ ok: true });

    expect(() => new Webhook(secret).verify(body.replace('Zoë', 'Zoe'), headers)).toThrow();
    expect(verifyWebhook({ headers, body: body.replace('Zoë', 'Zoe'), secret })).toMatchObject({ ok: false });
    expect(verifyWebhook({ headers: { ...headers, 'webhook-id': 'msg_2' }, body, secret })).toMatchObject({ ok: false });
    expect(verifyWebhook({ headers: { ...headers, 'webhook-timestamp': String(now + 1) }, body, secret })).toMatchObject({ ok: false });
    expect(verifyWebhook({ headers, body, secret: newWebhookSecret() })).toMatchObject({ ok: false });
  });

  it('rejects stale timestamps and accepts any matching entry of a multi-signature header', () => {
    const secret = newWebhookSecret();
    const body = '{}';
    const old = webhookSignatureHeaders({ id: 'msg_1', timestamp: 1_000_000, body, secret });
    expect(verifyWebhook({ headers: old, body, secret })).toEqual({ ok: false, reason: 'webhook-timestamp outside the tolerance' });
    const now = Math.floor(Date.now() / 1000);
    const fresh = webhookSignatureHeaders({ id: 'msg_1', timestamp: now, body, secret });
    const rotated = { ...fresh, 'webhook-signature': `v1,AAAA ${fresh['webhook-signature']}` };
    expect(verifyWebhook({ headers: rotated, body, secret })).toEqual({ ok: true });
    expect(verifyWebhook({ headers: { 'webhook-id': 'msg_1' }, body, secret })).toMatchObject({ ok: false });
  });
});
