import type { Queryable } from './pool.ts';

export interface StoredTurn {
  role: 'user' | 'assistant';
  content: string;
  sources?: { title: string; url: string }[];
  leadCaptureIntent?: boolean;
}

/** The session's last `limit` messages, oldest first. Always filtered by client: never another tenant's. */
export async function recentMessages(
  db: Queryable,
  clientId: string,
  sessionId: string,
  limit: number,
): Promise<{ role: 'user' | 'assistant'; content: string }[]> {
  if (limit <= 0) return [];
  const { rows } = await db.query<{ role: 'user' | 'assistant'; content: string }>(
    `SELECT role, content FROM messages
      WHERE client_id = $1 AND session_id = $2
      ORDER BY id DESC LIMIT $3`,
    [clientId, sessionId, limit],
  );
  return rows.reverse();
}

/** Appends turns in order (the session row must exist: see touchSession). */
export async function insertMessages(db: Queryable, clientId: string, sessionId: string, turns: StoredTurn[]): Promise<void> {
  if (turns.length === 0) return;
  await db.query(
    `INSERT INTO messages (client_id, session_id, role, content, sources, lead_capture_intent)
     SELECT $1, $2, t.role, t.content, t.sources, t.lead
       FROM unnest($3::text[], $4::text[], $5::jsonb[], $6::boolean[]) WITH ORDINALITY AS t(role, content, sources, lead, n)
      ORDER BY t.n`,
    [
      clientId,
      sessionId,
      turns.map((t) => t.role),
      turns.map((t) => t.content),
      turns.map((t) => JSON.stringify(t.sources ?? [])),
      turns.map((t) => t.leadCaptureIntent ?? false),
    ],
  );
}
