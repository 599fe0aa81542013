import { isUuid } from './clients.ts';
import type { Queryable } from './pool.ts';

/** The operator's curated answers (docs/operators.md "Curated answers"). Always filtered by client. */
export interface CuratedAnswerRow {
  id: string;
  client_id: string;
  question: string;
  answer: string;
  url: string | null;
  /** Other wordings of the question (a knowledge gap's, added by the operator): matched like it. */
  alternates: string[];
  source_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export async function insertCuratedAnswer(
  db: Queryable,
  input: { id: string; clientId: string; question: string; alternates: string[]; answer: string; url: string | null; sourceId: string },
): Promise<CuratedAnswerRow> {
  const { rows } = await db.query<CuratedAnswerRow>(
    `INSERT INTO curated_answers (id, client_id, question, alternates, answer, url, source_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
    [input.id, input.clientId, input.question, input.alternates, input.answer, input.url, input.sourceId],
  );
  return rows[0] as CuratedAnswerRow;
}

/** Read on every chat request (matching): named like the chat path's other statements, its columns listed (pool.ts). */
export async function listCuratedAnswers(db: Queryable, clientId: string): Promise<CuratedAnswerRow[]> {
  const { rows } = await db.query<CuratedAnswerRow>({
    name: 'kbchat_curated_answers',
    text: `SELECT id, client_id, question, alternates, answer, url, source_id, created_at, updated_at
             FROM curated_answers WHERE client_id = $1 ORDER BY created_at, id`,
    values: [clientId],
  });
  return rows;
}

export async function findCuratedAnswer(db: Queryable, clientId: string, answerId: string): Promise<CuratedAnswerRow | undefined> {
  if (!isUuid(answerId)) return undefined;
  const { rows } = await db.query<CuratedAnswerRow>('SELECT * FROM curated_answers WHERE id = $1 AND client_id = $2', [answerId, clientId]);
  return rows[0];
}

/** Locks the answer row for an edit (two operators saving at once: one after the other). */
export async function lockCuratedAnswer(db: Queryable, clientId: string, answerId: string): Promise<CuratedAnswerRow | undefined> {
  if (!isUuid(answerId)) return undefined;
  const { rows } = await db.query<CuratedAnswerRow>('SELECT * FROM curated_answers WHERE id = $1 AND client_id = $2 FOR UPDATE', [
    answerId,
    clientId,
  ]);
  return rows[0];
}

export async function deleteCuratedAnswerRow(db: Queryable, clientId: string, answerId: string): Promise<CuratedAnswerRow | undefined> {
  if (!isUuid(answerId)) return undefined;
  const { rows } = await db.query<CuratedAnswerRow>('DELETE FROM curated_answers WHERE id = $1 AND client_id = $2 RETURNING *', [
    answerId,
    clientId,
  ]);
  return rows[0];
}

/** The curated answer a retrieved document belongs to, if any. */
/** Which of these documents of the client are curated answers' hidden documents: each one's source id. */
export async function curatedDocumentSources(
  db: Queryable,
  clientId: string,
  documentIds: readonly string[],
): Promise<Map<string, string>> {
  const ids = documentIds.filter(isUuid);
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; source_id: string }>(
    `SELECT d.id, d.source_id FROM documents d JOIN curated_answers c ON c.source_id = d.source_id AND c.client_id = d.client_id
      WHERE d.id = ANY($1::uuid[]) AND d.client_id = $2`,
    [ids, clientId],
  );
  return new Map(rows.map((r) => [r.id, r.source_id]));
}

/** Which of the words occur in the client's documents other than the given source's (full text, english). */
export async function wordsElsewhere(db: Queryable, clientId: string, exceptSourceId: string | null, words: string[]): Promise<string[]> {
  if (words.length === 0) return [];
  const { rows } = await db.query<{ w: string }>(
    `SELECT w FROM unnest($2::text[]) AS w
      WHERE numnode(plainto_tsquery('kbchat_english', w)) > 0
        AND EXISTS (SELECT 1 FROM documents d WHERE d.client_id = $1 AND d.source_id IS DISTINCT FROM $3
                      AND d.fts @@ plainto_tsquery('kbchat_english', w))`,
    [clientId, words, exceptSourceId],
  );
  return rows.map((r) => r.w);
}
