import { randomUUID } from 'node:crypto';
import {
  type CuratedAnswerRow,
  deleteCuratedAnswerRow,
  findCuratedAnswer,
  insertCuratedAnswer,
  lockCuratedAnswer,
} from '../db/curated-answers.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.ts';
import type { PipelineDeps } from '../jobs/start-job.ts';
import { MAX_ALTERNATE_QUESTIONS } from '../schemas/answers.ts';
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
  /** Other ways visitors ask it (a knowledge gap's wording): matched and retrieved like the question. */
  alternates: string[];
  answer: string;
  url: string | null;
  publicBase: string;
  model: string;
}

/** What a curated answer without a url cites: nothing (chat-service drops kbchat: urls from sources). */
export const CURATED_URL_PREFIX = 'kbchat:answer/';

/** Stores the answer's hidden source (its question and answer as one document); withSource writes the row. */
async function ingestAnswer(
  deps: PipelineDeps,
  input: Omit<CuratedAnswerInput, 'url'> & { url: string | null },
  withSource: NonNullable<Parameters<typeof ingestDocumentSource>[1]['withSource']>,
): Promise<void> {
  const marker = `${CURATED_URL_PREFIX}${randomUUID()}`;
  const text = `${[input.question, ...input.alternates].join('\n')}\n\n${input.answer}`;
  await ingestDocumentSource(deps, {
    clientId: input.clientId,
    type: 'answer',
    title: input.question,
    url: input.url ?? marker,
    sourceUrl: marker,
    publicBase: input.publicBase,
    sections: [{ heading: null, text }],
    file: { name: 'answer.txt', kind: 'text', bytes: new TextEncoder().encode(text) },
    model: input.model,
    withSource,
  });
}

/** The other wordings as stored: trimmed, each once, none the question itself (case and spacing aside). */
export function distinctAlternates(question: string, alternates: readonly string[]): string[] {
  const fold = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();
  const seen = new Set([fold(question)]);
  const out: string[] = [];
  for (const a of alternates) {
    const key = fold(a);
    if (!key || seen.has(key)) continue;
    seen.add(key);
    out.push(a.trim());
  }
  return out;
}

export async function createCuratedAnswer(deps: PipelineDeps, input: CuratedAnswerInput): Promise<CuratedAnswerRow> {
  const id = randomUUID();
  const alternates = distinctAlternates(input.question, input.alternates);
  let row: CuratedAnswerRow | undefined;
  await ingestAnswer(deps, { ...input, alternates }, async (tx, source) => {
    row = await insertCuratedAnswer(tx, {
      id,
      clientId: source.client_id,
      question: input.question,
      alternates,
      answer: input.answer,
      url: input.url,
      sourceId: source.id,
    });
  });
  return row as CuratedAnswerRow;
}

export interface CuratedAnswerPatch {
  question?: string;
  /** Replaces the list. */
  alternates?: string[];
  answer?: string;
  url?: string | null;
}

/** Another edit saved between this one's read and its write: it starts again from the saved row. */
class StaleEdit extends Error {}
const EDIT_ATTEMPTS = 5;

/**
 * Saves a change to a curated answer: `patch`, or a function of the row as it is (adding a wording to
 * its list). Two operators saving at once both land: each save writes a new hidden source, so a save
 * that finds, under the row's lock, another source than the one it read from starts again from the
 * saved row — neither edit is lost, even when both change the same list.
 */
export async function updateCuratedAnswer(
  deps: PipelineDeps,
  input: Omit<CuratedAnswerInput, 'question' | 'alternates' | 'answer' | 'url'> & {
    answerId: string;
    patch: CuratedAnswerPatch | ((current: CuratedAnswerRow) => CuratedAnswerPatch);
  },
): Promise<CuratedAnswerRow> {
  for (let attempt = 1; ; attempt++) {
    const current = await findCuratedAnswer(deps.pool, input.clientId, input.answerId);
    if (!current) throw notFound();
    const patch = typeof input.patch === 'function' ? input.patch(current) : input.patch;
    const question = patch.question ?? current.question;
    const next = {
      question,
      alternates: distinctAlternates(question, patch.alternates ?? current.alternates),
      answer: patch.answer ?? current.answer,
      url: patch.url === undefined ? current.url : patch.url,
    };
    if (next.alternates.length > MAX_ALTERNATE_QUESTIONS)
      throw new BadRequestError('Invalid request', [`an answer has at most ${MAX_ALTERNATE_QUESTIONS} alternate questions`]);
    if (
      next.question === current.question &&
      next.answer === current.answer &&
      next.url === current.url &&
      next.alternates.join('\n') === current.alternates.join('\n')
    )
      return current;
    let row: CuratedAnswerRow | undefined;
    try {
      await ingestAnswer(deps, { ...input, ...next }, async (tx, source) => {
        const locked = await lockCuratedAnswer(tx, input.clientId, input.answerId);
        if (!locked) throw notFound();
        if (locked.source_id !== current.source_id) throw new StaleEdit();
        const { rows } = await tx.query<CuratedAnswerRow>(
          `UPDATE curated_answers SET question = $3, alternates = $4, answer = $5, url = $6, source_id = $7, updated_at = now()
            WHERE id = $1 AND client_id = $2 RETURNING *`,
          [input.answerId, input.clientId, next.question, next.alternates, next.answer, next.url, source.id],
        );
        row = rows[0];
      });
    } catch (err) {
      if (!(err instanceof StaleEdit)) throw err;
      if (attempt < EDIT_ATTEMPTS) continue;
      throw new ConflictError('Answer changed', ['the answer was changed by other edits while this one was saved; try again']);
    }
    if (current.source_id) await deleteSource(deps, input.clientId, current.source_id);
    return row as CuratedAnswerRow;
  }
}

/** The change that adds one more way visitors ask for the answer (a knowledge gap's wording) to its list. */
export function addingAlternate(question: string): (current: CuratedAnswerRow) => CuratedAnswerPatch {
  return (current) => ({ alternates: [...current.alternates, question] });
}

export async function deleteCuratedAnswer(deps: PipelineDeps, clientId: string, answerId: string): Promise<void> {
  const row = await deleteCuratedAnswerRow(deps.pool, clientId, answerId);
  if (!row) throw notFound();
  if (row.source_id) await deleteSource(deps, clientId, row.source_id);
}

function notFound(): NotFoundError {
  return new NotFoundError('Answer not found', ['this client has no curated answer with this answerId']);
}
