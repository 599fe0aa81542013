import { randomUUID } from 'node:crypto';
import {
  type CuratedAnswerRow,
  deleteCuratedAnswerRow,
  findCuratedAnswer,
  insertCuratedAnswer,
  lockCuratedAnswer,
} from '../db/curated-answers.ts';
import { NotFoundError } from '../errors.ts';
import type { PipelineDeps } from '../jobs/start-job.ts';
import { deleteSource, ingestDocumentSource } from './ingest-source.ts';

/**
 * Curated answers (docs/operators.md): the operator's one-step fix. Each is also the document of a
 * hidden source, so the retrieval finds it like a page (same words, same related words, same
 * vectors) — chat/curated.ts decides when a question asks for it. Saving replaces the hidden source
 * in the same transaction as the answer row, so a question never meets half an edit.
 */
export interface CuratedAnswerInput {
  clientId: string;
  question: string;
  answer: string;
  url: string | null;
  publicBase: string;
  model: string;
}

/** What a curated answer without a url cites: nothing (chat-service drops kbchat: urls from sources). */
export const CURATED_URL_PREFIX = 'kbchat:answer/';

function answerDocument(question: string, answer: string) {
  const text = `${question}\n\n${answer}`;
  return {
    sections: [{ heading: null, text }],
    file: { name: 'answer.txt', kind: 'text' as const, bytes: new TextEncoder().encode(text) },
  };
}

export async function createCuratedAnswer(deps: PipelineDeps, input: CuratedAnswerInput): Promise<CuratedAnswerRow> {
  const id = randomUUID();
  const marker = `${CURATED_URL_PREFIX}${randomUUID()}`;
  let row: CuratedAnswerRow | undefined;
  await ingestDocumentSource(deps, {
    clientId: input.clientId,
    type: 'answer',
    title: input.question,
    url: input.url ?? marker,
    sourceUrl: marker,
    publicBase: input.publicBase,
    ...answerDocument(input.question, input.answer),
    model: input.model,
    withSource: async (tx, source) => {
      row = await insertCuratedAnswer(tx, {
        id,
        clientId: source.client_id,
        question: input.question,
        answer: input.answer,
        url: input.url,
        sourceId: source.id,
      });
    },
  });
  return row as CuratedAnswerRow;
}

export async function updateCuratedAnswer(
  deps: PipelineDeps,
  input: Omit<CuratedAnswerInput, 'question' | 'answer' | 'url'> & {
    answerId: string;
    patch: { question?: string; answer?: string; url?: string | null };
  },
): Promise<CuratedAnswerRow> {
  const marker = `${CURATED_URL_PREFIX}${randomUUID()}`;
  const current = await findCuratedAnswer(deps.pool, input.clientId, input.answerId);
  if (!current) throw notFound();
  const next = {
    question: input.patch.question ?? current.question,
    answer: input.patch.answer ?? current.answer,
    url: input.patch.url === undefined ? current.url : input.patch.url,
  };
  let row: CuratedAnswerRow | undefined;
  let previousSource: string | null = null;
  await ingestDocumentSource(deps, {
    clientId: input.clientId,
    type: 'answer',
    title: next.question,
    url: next.url ?? marker,
    sourceUrl: marker,
    publicBase: input.publicBase,
    ...answerDocument(next.question, next.answer),
    model: input.model,
    withSource: async (tx, source) => {
      // Under the row's lock: two edits at once apply one after the other, each replacing the source it saw.
      const locked = await lockCuratedAnswer(tx, input.clientId, input.answerId);
      if (!locked) throw notFound();
      previousSource = locked.source_id;
      const { rows } = await tx.query<CuratedAnswerRow>(
        `UPDATE curated_answers SET question = $3, answer = $4, url = $5, source_id = $6, updated_at = now()
          WHERE id = $1 AND client_id = $2 RETURNING *`,
        [input.answerId, input.clientId, next.question, next.answer, next.url, source.id],
      );
      row = rows[0];
    },
  });
  if (previousSource) await deleteSource(deps, input.clientId, previousSource);
  return row as CuratedAnswerRow;
}

export async function deleteCuratedAnswer(deps: PipelineDeps, clientId: string, answerId: string): Promise<void> {
  const row = await deleteCuratedAnswerRow(deps.pool, clientId, answerId);
  if (!row) throw notFound();
  if (row.source_id) await deleteSource(deps, clientId, row.source_id);
}

function notFound(): NotFoundError {
  return new NotFoundError('Answer not found', ['this client has no curated answer with this answerId']);
}
