import type { Queryable } from './pool.ts';

/** A visitor question the bot declined, or whose answer was rated down. */
export interface GapQuestion {
  question: string;
  session_id: string;
  asked_at: Date;
  declined: boolean;
}

/** The questions behind declined or thumbs-down answers between from and to (newest first, at most 5,000). */
export async function gapQuestions(db: Queryable, clientId: string, from: Date, to: Date): Promise<GapQuestion[]> {
  const { rows } = await db.query<GapQuestion>(
    `SELECT u.content AS question, a.session_id, u.created_at AS asked_at, a.declined
       FROM messages a
       JOIN LATERAL (
         SELECT content, created_at FROM messages u
          WHERE u.client_id = a.client_id AND u.session_id = a.session_id AND u.role = 'user' AND u.id < a.id
          ORDER BY u.id DESC LIMIT 1
       ) u ON true
      WHERE a.client_id = $1 AND a.role = 'assistant' AND (a.declined OR a.feedback = 'down')
        AND a.created_at >= $2 AND a.created_at < $3
      ORDER BY a.id DESC
      LIMIT 5000`,
    [clientId, from, to],
  );
  return rows;
}

/** When each gap of the client was dismissed. */
export async function gapDismissals(db: Queryable, clientId: string): Promise<Map<string, Date>> {
  const { rows } = await db.query<{ gap_id: string; dismissed_at: Date }>(
    'SELECT gap_id, dismissed_at FROM knowledge_gap_dismissals WHERE client_id = $1',
    [clientId],
  );
  return new Map(rows.map((r) => [r.gap_id, r.dismissed_at]));
}

export async function dismissGap(db: Queryable, clientId: string, gapId: string): Promise<void> {
  await db.query(
    `INSERT INTO knowledge_gap_dismissals (client_id, gap_id) VALUES ($1, $2)
     ON CONFLICT (client_id, gap_id) DO UPDATE SET dismissed_at = now()`,
    [clientId, gapId],
  );
}
