import multipart from '@fastify/multipart';
import { findSourceFile } from '@kbchat/shared/db/sources';
import { AppError, BadRequestError, NotFoundError, PayloadTooLargeError, UnsupportedMediaTypeError } from '@kbchat/shared/errors';
import { parseFile, UnparsableFileError, UnsupportedFileError } from '@kbchat/shared/ingest/parse-file';
import { type DocumentSourceResult, deleteSource, ingestDocumentSource } from '@kbchat/shared/pipeline/ingest-source';
import { createEmbeddingProvider } from '@kbchat/shared/providers/embeddings/embeddings';
import { errorBody } from '@kbchat/shared/schemas/common';
import { documentSourceCreated, fileSourceFields, textSourceBody } from '@kbchat/shared/schemas/sources';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GatewayDeps } from '../deps.ts';
import { requireClient } from '../helpers/require-client.ts';

/** A text source's JSON body: well above BODY_LIMIT_BYTES, which is sized for chat messages. */
const TEXT_SOURCE_BODY_LIMIT = 1024 * 1024;
const clientParams = z.object({ clientId: z.string() });
const sourceParams = z.object({ clientId: z.string(), sourceId: z.string() });

function publicBase(deps: GatewayDeps, req: FastifyRequest): string {
  return deps.config.PUBLIC_URL?.replace(/\/+$/, '') ?? `${req.protocol}://${req.host}`;
}

function createdView(r: DocumentSourceResult, statusBase: string) {
  return {
    success: true,
    sourceId: r.source.id,
    type: r.source.type as 'text' | 'file',
    title: r.source.title ?? '',
    url: r.source.start_url,
    documentsCreated: r.documentsCreated,
    jobId: r.job.id,
    statusUrl: `${statusBase}/api/admin/jobs/${r.job.id}`,
  };
}

/**
 * Sources that are not websites (docs/sources.md): a text, or a PDF, DOCX, Markdown, HTML or text
 * file, parsed here (a file that cannot be read is refused before anything is stored) and embedded by
 * a job of its own; and the removal of any source.
 */
export function adminSourceUploadRoutes(deps: GatewayDeps): FastifyPluginAsyncZod {
  const model = () => createEmbeddingProvider(deps.config).model;
  return async (app) => {
    // Multipart only here: one file, a few short fields, the size limit answered with 413.
    await app.register(multipart, {
      limits: { fileSize: deps.config.SOURCE_FILE_MAX_BYTES, files: 1, fields: 4, fieldSize: 4096, parts: 6 },
    });

    app.post(
      '/api/admin/clients/:clientId/sources/text',
      {
        bodyLimit: TEXT_SOURCE_BODY_LIMIT,
        schema: {
          tags: ['admin'],
          summary: 'Add a text as a source: chunked and embedded like a page, cited by its url (or /files/<sourceId>)',
          params: clientParams,
          body: textSourceBody,
          response: { 201: documentSourceCreated, 400: errorBody, 404: errorBody, 409: errorBody, 413: errorBody },
        },
      },
      async (req, reply) => {
        const { title, text, url } = req.body;
        const result = await ingestDocumentSource(deps, {
          clientId: req.params.clientId,
          type: 'text',
          title,
          url: url ?? null,
          publicBase: publicBase(deps, req),
          sections: [{ heading: null, text }],
          file: { name: `${title.slice(0, 100)}.txt`, kind: 'text', bytes: new TextEncoder().encode(text) },
          model: model(),
        });
        return reply.status(201).send(createdView(result, publicBase(deps, req)));
      },
    );

    app.post(
      '/api/admin/clients/:clientId/sources/files',
      {
        schema: {
          tags: ['admin'],
          summary: 'Upload a PDF, DOCX, Markdown, HTML or text file as a source (multipart/form-data: file, and optional title, url)',
          params: clientParams,
          response: { 201: documentSourceCreated, 400: errorBody, 404: errorBody, 409: errorBody, 413: errorBody, 415: errorBody },
        },
      },
      async (req, reply) => {
        if (!req.isMultipart()) throw new UnsupportedMediaTypeError(['send multipart/form-data with the file in the field "file"']);
        const upload = await readUpload(req, deps.config.SOURCE_FILE_MAX_BYTES);
        const fields = fileSourceFields.safeParse(upload.fields);
        if (!fields.success) {
          throw new BadRequestError(
            'Invalid request',
            fields.error.issues.map((i) => `${i.path.join('.')} ${i.message}`),
          );
        }
        let parsed: Awaited<ReturnType<typeof parseFile>>;
        try {
          parsed = await parseFile(upload.bytes, upload.fileName);
        } catch (err) {
          if (err instanceof UnsupportedFileError) throw new UnsupportedMediaTypeError([`file: ${err.message}`]);
          if (err instanceof UnparsableFileError) throw new BadRequestError('Invalid file', [`file: ${err.message}`]);
          throw err;
        }
        const title = fields.data.title ?? (parsed.title || upload.fileName.replace(/\.[a-z0-9]{1,5}$/i, '') || 'Untitled file');
        const result = await ingestDocumentSource(deps, {
          clientId: req.params.clientId,
          type: 'file',
          title,
          url: fields.data.url ?? null,
          publicBase: publicBase(deps, req),
          sections: parsed.sections,
          file: { name: upload.fileName, kind: parsed.kind, bytes: upload.bytes },
          model: model(),
        });
        return reply.status(201).send({ ...createdView(result, publicBase(deps, req)), fileName: upload.fileName, fileType: parsed.kind });
      },
    );

    app.delete(
      '/api/admin/clients/:clientId/sources/:sourceId',
      {
        schema: {
          tags: ['admin'],
          summary: 'Remove a source with its pages, documents, file, crawls and schedule: nothing of it is cited again',
          params: sourceParams,
          response: { 204: z.null(), 404: errorBody },
        },
      },
      async (req, reply) => {
        const client = await requireClient(deps.pool, req.params.clientId);
        if (!(await deleteSource(deps, client.id, req.params.sourceId)))
          throw new NotFoundError('Source not found', ['this client has no source with this sourceId']);
        return reply.status(204).send(null);
      },
    );
  };
}

/** The one file of a multipart upload and its text fields; 413 past the size limit, 400 without a file. */
async function readUpload(
  req: FastifyRequest,
  maxBytes: number,
): Promise<{ fileName: string; bytes: Uint8Array; fields: Record<string, string> }> {
  const fields: Record<string, string> = {};
  let file: { fileName: string; bytes: Uint8Array } | undefined;
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || file) {
          await part.toBuffer().catch(() => undefined);
          throw new BadRequestError('Invalid request', ['send one file, in the field "file"']);
        }
        file = { fileName: (part.filename || 'upload').slice(0, 255), bytes: new Uint8Array(await part.toBuffer()) };
      } else if (typeof part.value === 'string') fields[part.fieldname] = part.value;
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE')
      throw new PayloadTooLargeError('Payload too large', [`file: larger than ${maxBytes} bytes (SOURCE_FILE_MAX_BYTES)`]);
    if (code?.startsWith('FST_') || (err as { statusCode?: number }).statusCode === 413) {
      throw new BadRequestError('Invalid request', [`multipart body: ${(err as Error).message}`]);
    }
    throw err;
  }
  if (!file) throw new BadRequestError('Invalid request', ['file: required (multipart field "file")']);
  if (file.bytes.byteLength === 0) throw new BadRequestError('Invalid file', ['file: empty']);
  return { ...file, fields };
}

const SERVED_AS: Record<string, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

/**
 * GET /files/:sourceId — the original of a text or file source, which its answers cite when no url
 * was given. Public like the chat (the id is unguessable). Only a PDF is shown as what it is; every
 * text format is served as plain text, and a sandbox CSP keeps anything from running on this origin.
 */
export function sourceFileRoutes(deps: GatewayDeps): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { sourceId: string } }>('/files/:sourceId', { schema: { hide: true } }, async (req, reply) => {
      const file = await findSourceFile(deps.pool, req.params.sourceId);
      if (!file) throw new NotFoundError('File not found', ['no file or text source has this id']);
      const disposition = file.kind === 'docx' ? 'attachment' : 'inline';
      return reply
        .header('content-type', SERVED_AS[file.kind] ?? 'text/plain; charset=utf-8')
        .header('content-disposition', `${disposition}; filename*=UTF-8''${encodeURIComponent(file.file_name)}`)
        .header('content-security-policy', "sandbox; default-src 'none'")
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'private, max-age=300')
        .send(file.bytes);
    });
  };
}
