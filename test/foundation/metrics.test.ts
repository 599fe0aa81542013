import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type Kbchat, startKbchat } from '../support/kbchat.ts';

const KEY = 'metrics-test-admin-key-0123456789';

describe('/metrics', () => {
  let kb: Kbchat;
  beforeAll(async () => {
    kb = await startKbchat({ services: ['gateway'], env: { ADMIN_API_KEY: KEY } });
  });
  afterAll(() => kb?.stop());

  it('exposes request counts by route pattern and queue depths in Prometheus format, behind the admin key', async () => {
    await api(kb.baseUrl, 'GET', '/healthz');
    await api(kb.baseUrl, 'GET', '/api/admin/clients/00000000-0000-4000-8000-000000000000', undefined, { authorization: `Bearer ${KEY}` });

    const denied = await api(kb.baseUrl, 'GET', '/metrics');
    expect(denied.status).toBe(401);

    const res = await fetch(`${kb.baseUrl}/metrics`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/kbchat_http_requests_total\{method="GET",route="\/healthz",status="200"\} [1-9]/);
    // The pattern, not the id: cardinality stays bounded and no tenant id reaches the metrics.
    expect(text).toMatch(/route="\/api\/admin\/clients\/:clientId",status="404"/);
    expect(text).not.toMatch(/00000000-0000-4000-8000-000000000000/);
    expect(text).toMatch(/kbchat_queue_jobs\{queue="crawl",state="waiting"\} 0/);
    expect(text).toMatch(/kbchat_process_resident_memory_bytes/);
  });
});
