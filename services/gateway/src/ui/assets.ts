import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A static response built once at start: the body and its precompressed forms, with a strong ETag. */
export interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
  br: Buffer;
  etag: string;
}

export function asset(type: string, text: string): Asset {
  const body = Buffer.from(text, 'utf8');
  return {
    type,
    body,
    gzip: gzipSync(body, { level: 9 }),
    br: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
  };
}

/** Picks the smallest encoding the caller accepts; answers 304 to a matching If-None-Match. */
export function sendAsset(req: FastifyRequest, reply: FastifyReply, a: Asset, cacheControl: string): FastifyReply {
  reply.header('content-type', a.type).header('cache-control', cacheControl).header('etag', a.etag).header('vary', 'Accept-Encoding');
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch?.split(',').some((t) => t.trim().replace(/^W\//, '') === a.etag)) return reply.status(304).send();
  const accepted = String(req.headers['accept-encoding'] ?? '');
  const accepts = (coding: string) => acceptsEncoding(accepted, coding);
  if (accepts('br')) return reply.header('content-encoding', 'br').send(a.br);
  if (accepts('gzip')) return reply.header('content-encoding', 'gzip').send(a.gzip);
  return reply.send(a.body);
}

/** `Accept-Encoding: gzip;q=0.5, br;q=0` → gzip yes, br no. */
export function acceptsEncoding(header: string, coding: string): boolean {
  return header.split(',').some((part) => {
    const [name, ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    if (name !== coding) return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}
