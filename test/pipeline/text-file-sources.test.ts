// Texts and files as sources, through the real gateway, embedder and chat (local embedder,
// extractive answers): a text, a PDF and a DOCX made here are answered from and cited; a broken,
// foreign or too large file is refused with nothing stored; a deleted source is never cited again.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createClient, type Kbchat, startKbchat } from '../support/kbchat.ts';
import { makeDocx, makePdf } from '../support/make-documents.ts';
import { count, PIPELINE_ENV, pollJob, testPool } from './support/pipeline.ts';

interface Created {
  success: boolean;
  sourceId: string;
  type: string;
  title: string;
  url: string;
  documentsCreated: number;
  jobId: string;
  fileName?: string;
  fileType?: string;
}
interface ChatBody {
  answer: string;
  sources: { title: string; url: string }[];
}

const FILE_LIMIT = 200_000;

describe('text and file sources', () => {
  let kb: Kbchat;
  let pool: pg.Pool;

  beforeAll(async () => {
    kb = await startKbchat({ env: { ...PIPELINE_ENV, SOURCE_FILE_MAX_BYTES: String(FILE_LIMIT) } });
    pool = testPool();
  });
  afterAll(async () => {
    await kb?.stop();
    await pool?.end();
  });

  const upload = async (clientId: string, bytes: Uint8Array, fileName: string, fields: Record<string, string> = {}) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('file', new Blob([Buffer.from(bytes)]), fileName);
    const res = await fetch(`${kb.baseUrl}/api/admin/clients/${clientId}/sources/files`, { method: 'POST', body: form });
    return { status: res.status, body: (await res.json()) as Created & { error?: string; details?: string[] } };
  };
  const chat = async (clientId: string, message: string) => {
    const res = await api<ChatBody>(kb.baseUrl, 'POST', '/api/chat', { clientId, message });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const stored = async (clientId: string) => ({
    sources: await count(pool, 'SELECT count(*) AS n FROM sources WHERE client_id = $1', [clientId]),
    documents: await count(pool, 'SELECT count(*) AS n FROM documents WHERE client_id = $1', [clientId]),
    files: await count(pool, 'SELECT count(*) AS n FROM source_files WHERE client_id = $1', [clientId]),
  });

  it('answers from a text, a PDF and a DOCX, cites them, lists them by type, and forgets a deleted one', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    const text = await api<Created>(kb.baseUrl, 'POST', `/api/admin/clients/${clientId}/sources/text`, {
      title: 'Opening hours',
      text: 'The Lisbon showroom is open from 10:00 to 19:00 on weekdays and closed on Sundays. Parking is free for visitors in the courtyard.',
      url: 'https://shop.example/showroom',
    });
    expect(text.status, JSON.stringify(text.body)).toBe(201);
    expect(text.body).toMatchObject({ success: true, type: 'text', title: 'Opening hours', url: 'https://shop.example/showroom' });
    expect(text.body.documentsCreated).toBeGreaterThan(0);
    // On the local model the documents are stored with their vectors: the source's job is done when
    // the request answers, nothing waits for the embedder.
    const unembedded = 'SELECT count(*) AS n FROM documents WHERE source_id = $1 AND (embedding IS NULL OR embed_job_id IS NOT NULL)';
    expect(await count(pool, unembedded, [text.body.sourceId])).toBe(0);
    const job = await api<{ status: string; progress: { documentsCreated: number; embeddingsDone: number; embeddingTokens: number } }>(
      kb.baseUrl,
      'GET',
      `/api/admin/jobs/${text.body.jobId}`,
    );
    expect(job.body.status).toBe('completed');
    expect(job.body.progress.embeddingsDone).toBe(job.body.progress.documentsCreated);
    expect(job.body.progress.embeddingTokens).toBeGreaterThan(0);
    // The embed queue this install's producers and workers use.
    const queue = kb.process.runtime.queues.embed.queue;
    expect(await queue.getJobCounts('completed', 'failed', 'waiting', 'delayed', 'active')).toEqual({
      completed: 0,
      failed: 0,
      waiting: 0,
      delayed: 0,
      active: 0,
    });

    const pdfBytes = await makePdf(
      [
        ['Price list 2026.', 'The Standard plan costs 12 euros a month and covers one user.'],
        ['The Premium plan costs 30 euros a month, covers five users and includes telephone support on weekdays.'],
      ],
      'Price list 2026',
    );
    const pdf = await upload(clientId, pdfBytes, 'prices.pdf');
    expect(pdf.status, JSON.stringify(pdf.body)).toBe(201);
    expect(pdf.body).toMatchObject({ type: 'file', fileType: 'pdf', fileName: 'prices.pdf', title: 'Price list 2026' });
    expect(pdf.body.url).toBe(`${kb.baseUrl}/files/${pdf.body.sourceId}`);

    const docx = await upload(
      clientId,
      await makeDocx(['# Warranty', 'Every bicycle frame carries a warranty of seven years against manufacturing defects.']),
      'warranty.docx',
      { title: 'Warranty terms' },
    );
    expect(docx.status, JSON.stringify(docx.body)).toBe(201);
    expect(docx.body).toMatchObject({ fileType: 'docx', title: 'Warranty terms' });

    for (const job of [text.body.jobId, pdf.body.jobId, docx.body.jobId]) {
      expect((await pollJob(kb.baseUrl, job)).final.status).toBe('completed');
    }
    expect(await count(pool, 'SELECT count(*) AS n FROM documents WHERE client_id = $1 AND embedding IS NULL', [clientId])).toBe(0);

    const premium = await chat(clientId, 'How much does the Premium plan cost?');
    expect(premium.answer).toContain('30 euros');
    expect(premium.sources[0]).toEqual({ title: 'Price list 2026', url: pdf.body.url });
    const warranty = await chat(clientId, 'How long is the warranty on a bicycle frame?');
    expect(warranty.answer).toContain('seven years');
    expect(warranty.sources.map((s) => s.title)).toContain('Warranty terms');
    const hours = await chat(clientId, 'When is the showroom open?');
    expect(hours.answer).toContain('10:00 to 19:00');
    expect(hours.sources[0]).toEqual({ title: 'Opening hours', url: 'https://shop.example/showroom' });

    // The cited /files address serves the original, inert.
    const served = await fetch(pdf.body.url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('application/pdf');
    expect(served.headers.get('content-security-policy')).toContain('sandbox');
    expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(pdfBytes))).toBe(true);

    const listed = await api<{ sources: { sourceId: string; type: string; title: string | null; url: string; documents: number }[] }>(
      kb.baseUrl,
      'GET',
      `/api/admin/clients/${clientId}/sources`,
    );
    expect(listed.body.sources.map((s) => [s.type, s.title]).sort()).toEqual([
      ['file', 'Price list 2026'],
      ['file', 'Warranty terms'],
      ['text', 'Opening hours'],
    ]);

    // Another client can neither delete nor see it; its owner deletes it and it is never cited again.
    const other = await createClient(kb.baseUrl);
    const foreign = await api(kb.baseUrl, 'DELETE', `/api/admin/clients/${other.clientId}/sources/${pdf.body.sourceId}`);
    expect(foreign.status).toBe(404);
    const del = await api(kb.baseUrl, 'DELETE', `/api/admin/clients/${clientId}/sources/${pdf.body.sourceId}`);
    expect(del.status).toBe(204);
    expect((await api(kb.baseUrl, 'DELETE', `/api/admin/clients/${clientId}/sources/${pdf.body.sourceId}`)).status).toBe(404);
    const after = await chat(clientId, 'How much does the Premium plan cost?');
    expect(after.sources.map((s) => s.url)).not.toContain(pdf.body.url);
    expect(after.answer).not.toContain('30 euros');
    expect((await fetch(pdf.body.url)).status).toBe(404);
    expect(await count(pool, 'SELECT count(*) AS n FROM documents WHERE source_id = $1', [pdf.body.sourceId])).toBe(0);
    expect(await count(pool, 'SELECT count(*) AS n FROM pages WHERE source_id = $1', [pdf.body.sourceId])).toBe(0);
    expect((await stored(clientId)).sources).toBe(2);
  });

  it('refuses a broken PDF (400), a foreign file (415), a file over the limit (413) and bad fields (400), storing nothing', async () => {
    const { clientId } = await createClient(kb.baseUrl);
    const before = await stored(clientId);
    const pdf = await makePdf([['A price list that is cut short.']]);
    const broken = await upload(clientId, pdf.slice(0, 300), 'broken.pdf');
    expect(broken.status).toBe(400);
    expect(broken.body.error).toBe('Invalid file');
    expect(broken.body.details?.[0]).toMatch(/^file: the PDF could not be read/);

    const png = await upload(clientId, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), 'logo.png');
    expect(png.status).toBe(415);

    const big = await upload(clientId, new TextEncoder().encode('word '.repeat(FILE_LIMIT / 4)), 'big.txt');
    expect(big.status).toBe(413);
    expect(big.body.details?.[0]).toMatch(/SOURCE_FILE_MAX_BYTES/);

    const badUrl = await upload(clientId, new TextEncoder().encode('Some text.'), 'a.txt', { url: 'javascript:alert(1)' });
    expect(badUrl.status).toBe(400);
    const noFile = await fetch(`${kb.baseUrl}/api/admin/clients/${clientId}/sources/files`, { method: 'POST', body: new FormData() });
    expect(noFile.status).toBe(400);
    expect(((await noFile.json()) as { details: string[] }).details).toEqual(['file: required (multipart field "file")']);
    const garbled = await fetch(`${kb.baseUrl}/api/admin/clients/${clientId}/sources/files`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
      body: '[["not a multipart body"],false]',
    });
    expect(garbled.status).toBe(400);
    expect(garbled.headers.get('content-type')).toMatch(/^application\/json/);
    const json = await api(kb.baseUrl, 'POST', `/api/admin/clients/${clientId}/sources/files`, { file: 'x' });
    expect(json.status).toBe(415);
    const emptyText = await api(kb.baseUrl, 'POST', `/api/admin/clients/${clientId}/sources/text`, { title: 'x', text: '   ' });
    expect(emptyText.status).toBe(400);
    const unknown = await upload('00000000-0000-4000-8000-000000000000', new TextEncoder().encode('Some text.'), 'a.txt');
    expect(unknown.status).toBe(404);

    expect(await stored(clientId)).toEqual(before);
  });
});
