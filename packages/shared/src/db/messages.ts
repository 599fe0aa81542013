import type { Queryable } from './pool.ts';

/**
 * Sessions and their messages: one aggregate. Conversations are keyed by (client_id, session_id),
 * so the same sessionId under another client is another session and history never crosses tenants.
 */

export interface StoredTurn {
  role: 'user' | 'assistant';
  content: string;
  sources?: { title: string; url: string }[];
  leadCaptureIntent?: boolean;
  /** The answer said it does not know (no sources, no contact offer asked for). */
  declined?: boolean;
}

/** The session's last `limit` messages, oldest first. Always filtered by client: never another tenant's. */
export async function recentMessages(
  db: Queryable,
  clientId: string,
  sessionId: string,
  limit: number,
): Promise<{ role: 'user' | 'assistant'; content: string }[]> {
  if (limit <= 0) return [];
  const { rows } = await db.query<{ role: 'user' | 'assistant'; content: string }>({
    name: 'kbchat_recent_messages',
    text: `SELECT role, content FROM messages
      WHERE client_id = $1 AND session_id = $2
      ORDER BY id DESC LIMIT $3`,
    values: [clientId, sessionId, limit],
  });
  return rows.reverse();
}

/**
 * Creates the session if needed (or marks it active) and appends the turns, in one statement: one
 * round trip, atomic without a transaction. The session row exists before the end-of-statement
 * foreign-key check of the messages runs. Named (pool.ts): parsing and planning it was a third of
 * its backend CPU. Returns the turns' public ids (messageId), in order.
 */
export async function appendTurns(
  db: Queryable,
  clientId: string,
  sessionId: string,
  turns: StoredTurn[],
  pageUrl?: string,
): Promise<string[]> {
  const { rows } = await db.query<{ public_id: string; id: string }>({
    name: 'kbchat_append_turns',
    text: `WITH s AS (
       INSERT INTO sessions (client_id, session_id, page_url) VALUES ($1, $2, $8)
       ON CONFLICT (client_id, session_id) DO UPDATE SET last_active_at = now()
       RETURNING client_id, session_id)
     INSERT INTO messages (client_id, session_id, role, content, sources, lead_capture_intent, declined)
     SELECT s.client_id, s.session_id, t.role, t.content, t.sources, t.lead, t.declined
       FROM s, unnest($3::text[], $4::text[], $5::jsonb[], $6::boolean[], $7::boolean[]) WITH ORDINALITY AS t(role, content, sources, lead, declined, n)
      ORDER BY t.n
     RETURNING public_id, id`,
    values: [...turnParams(clientId, sessionId, turns), pageUrl?.slice(0, 2048) ?? null],
  });
  // RETURNING's order is not promised; the identity column's is.
  return rows.sort((a, b) => Number(a.id) - Number(b.id)).map((r) => r.public_id);
}

function turnParams(clientId: string, sessionId: string, turns: StoredTurn[]): unknown[] {
  return [
    clientId,
    sessionId,
    turns.map((t) => t.role),
    turns.map((t) => t.content),
    turns.map((t) => JSON.stringify(t.sources ?? [])),
    turns.map((t) => t.leadCaptureIntent ?? false),
    turns.map((t) => t.declined ?? false),
  ];
}
