import type { Queryable } from './pool.ts';

/**
 * Conversations are keyed by (client_id, session_id): the same sessionId under another client is
 * another session, so history never crosses tenants.
 */
export async function touchSession(db: Queryable, clientId: string, sessionId: string): Promise<void> {
  await db.query(
    `INSERT INTO sessions (client_id, session_id) VALUES ($1, $2)
     ON CONFLICT (client_id, session_id) DO UPDATE SET last_active_at = now()`,
    [clientId, sessionId],
  );
}
