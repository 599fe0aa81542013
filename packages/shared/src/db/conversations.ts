import type { Queryable } from './pool.ts';

/**
 * What visitors asked, read back for the operator (docs/operators.md): conversations, their
 * transcripts, visitor feedback and the per-period figures. Every query is filtered by client.
 */

export interface ConversationFilter {
  clientId: string;
  limit: number;
  offset: number;
  from?: Date;
  to?: Date;
  /** Words searched in the conversation's messages (case-insensitive substring). */
  q?: string;
  lead?: boolean;
  feedback?: 'up' | 'down';
}

export interface ConversationRow {
  session_id: string;
  started_at: Date;
  last_message_at: Date;
  message_count: number;
  first_question: string | null;
  page_url: string | null;
  lead_captured: boolean;
  declined_count: number;
  feedback_up: number;
  feedback_down: number;
}

/** Newest first; `total` counts every conversation the filter matches. */
export async function listConversations(db: Queryable, f: ConversationFilter): Promise<{ items: ConversationRow[]; total: number }> {
  const { rows } = await db.query<ConversationRow & { total: string }>(
    `WITH c AS (
       SELECT s.session_id, s.created_at AS started_at, s.page_url,
              max(m.created_at) AS last_message_at,
              count(m.id)::int AS message_count,
              (array_agg(m.content ORDER BY m.id) FILTER (WHERE m.role = 'user'))[1] AS first_question,
              (bool_or(m.lead_capture_intent) OR EXISTS (SELECT 1 FROM leads l WHERE l.client_id = s.client_id AND l.session_id = s.session_id)) AS lead_captured,
              count(*) FILTER (WHERE m.declined)::int AS declined_count,
              count(*) FILTER (WHERE m.feedback = 'up')::int AS feedback_up,
              count(*) FILTER (WHERE m.feedback = 'down')::int AS feedback_down,
              bool_or($6::text IS NOT NULL AND strpos(lower(m.content), lower($6)) > 0) AS matches
         FROM sessions s JOIN messages m ON m.client_id = s.client_id AND m.session_id = s.session_id
        WHERE s.client_id = $1
          AND ($2::timestamptz IS NULL OR s.last_active_at >= $2)
          AND ($3::timestamptz IS NULL OR s.created_at < $3)
        GROUP BY s.client_id, s.session_id, s.created_at, s.page_url
     )
     SELECT c.*, count(*) OVER () AS total FROM c
      WHERE ($6::text IS NULL OR c.matches)
        AND ($7::boolean IS NULL OR c.lead_captured = $7)
        AND ($8::text IS NULL OR ($8 = 'up' AND c.feedback_up > 0) OR ($8 = 'down' AND c.feedback_down > 0))
      ORDER BY c.last_message_at DESC, c.session_id
      LIMIT $4 OFFSET $5`,
    [f.clientId, f.from ?? null, f.to ?? null, f.limit, f.offset, f.q ?? null, f.lead ?? null, f.feedback ?? null],
  );
  let total = Number(rows[0]?.total ?? 0);
  // An offset past the end returns no row to carry the total: count it apart.
  if (rows.length === 0 && f.offset > 0) total = (await listConversations(db, { ...f, offset: 0, limit: 1 })).total;
  return { items: rows, total };
}

export interface TranscriptMessage {
  public_id: string;
  role: 'user' | 'assistant';
  content: string;
  sources: { title: string; url: string }[];
  lead_capture_intent: boolean;
  declined: boolean;
  feedback: 'up' | 'down' | null;
  feedback_comment: string | null;
  created_at: Date;
}

/** The session's messages in order; undefined when the client has no such session. */
export async function conversationMessages(db: Queryable, clientId: string, sessionId: string): Promise<TranscriptMessage[] | undefined> {
  const { rows } = await db.query<TranscriptMessage & { present: boolean }>(
    `SELECT m.public_id, m.role, m.content, m.sources, m.lead_capture_intent, m.declined, m.feedback, m.feedback_comment, m.created_at
       FROM sessions s LEFT JOIN messages m ON m.client_id = s.client_id AND m.session_id = s.session_id
      WHERE s.client_id = $1 AND s.session_id = $2
      ORDER BY m.id`,
    [clientId, sessionId],
  );
  if (rows.length === 0) return undefined;
  return rows.filter((r) => r.public_id !== null);
}

/** A visitor's erasure request: the session and its messages (leads stay: they are the client's records). */
export async function deleteConversation(db: Queryable, clientId: string, sessionId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM sessions WHERE client_id = $1 AND session_id = $2', [clientId, sessionId]);
  return (rowCount ?? 0) > 0;
}

/**
 * The retention sweep: sessions whose last message is older than their client's
 * transcript_retention_days go, with their messages, at most `batch` at a time. Returns how many.
 */
export async function deleteExpiredConversations(db: Queryable, batch = 1000): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM sessions s USING (
       SELECT s2.client_id, s2.session_id FROM sessions s2 JOIN clients c ON c.id = s2.client_id
        WHERE s2.last_active_at < now() - make_interval(days => c.transcript_retention_days)
        LIMIT $1) old
      WHERE s.client_id = old.client_id AND s.session_id = old.session_id`,
    [batch],
  );
  return rowCount ?? 0;
}

/**
 * One rating per answer, the latest wins. False when the message is not an assistant answer of this
 * client's session (the route answers 404).
 */
export async function setFeedback(
  db: Queryable,
  input: { clientId: string; sessionId: string; messageId: string; rating: 'up' | 'down'; comment: string | null },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE messages SET feedback = $4, feedback_comment = $5, feedback_at = now()
      WHERE client_id = $1 AND session_id = $2 AND public_id = $3::uuid AND role = 'assistant'`,
    [input.clientId, input.sessionId, input.messageId, input.rating, input.comment],
  );
  return (rowCount ?? 0) > 0;
}

export interface StatsRow {
  start: Date;
  conversations: number;
  messages: number;
  answered: number;
  declined: number;
  leads: number;
  feedback_up: number;
  feedback_down: number;
  tokens: number;
  cost_usd: number;
}

/**
 * Per day or week (UTC) between from and to: conversations started, messages, answers that quoted
 * the site and those that declined, leads, ratings, tokens and cost of the models (usage).
 */
export async function statsSeries(db: Queryable, clientId: string, from: Date, to: Date, interval: 'day' | 'week'): Promise<StatsRow[]> {
  const { rows } = await db.query<Record<keyof StatsRow, string | Date>>(
    `WITH buckets AS (
       SELECT generate_series(date_trunc($4, $2::timestamptz AT TIME ZONE 'UTC'), $3::timestamptz AT TIME ZONE 'UTC', ('1 ' || $4)::interval) AS start
     ),
     m AS (
       SELECT date_trunc($4, created_at AT TIME ZONE 'UTC') AS start,
              count(*) AS messages,
              count(*) FILTER (WHERE role = 'assistant' AND NOT declined AND jsonb_array_length(sources) > 0) AS answered,
              count(*) FILTER (WHERE role = 'assistant' AND declined) AS declined,
              count(*) FILTER (WHERE feedback = 'up') AS feedback_up,
              count(*) FILTER (WHERE feedback = 'down') AS feedback_down
         FROM messages WHERE client_id = $1 AND created_at >= $2 AND created_at < $3 GROUP BY 1
     ),
     s AS (
       SELECT date_trunc($4, created_at AT TIME ZONE 'UTC') AS start, count(*) AS conversations
         FROM sessions WHERE client_id = $1 AND created_at >= $2 AND created_at < $3 GROUP BY 1
     ),
     l AS (
       SELECT date_trunc($4, created_at AT TIME ZONE 'UTC') AS start, count(*) AS leads
         FROM leads WHERE client_id = $1 AND created_at >= $2 AND created_at < $3 GROUP BY 1
     ),
     u AS (
       SELECT date_trunc($4, day::timestamp) AS start, sum(prompt_tokens + completion_tokens) AS tokens, sum(cost_usd) AS cost_usd
         FROM usage WHERE client_id = $1 AND day >= ($2::timestamptz AT TIME ZONE 'UTC')::date AND day < ($3::timestamptz AT TIME ZONE 'UTC')::date + 1
        GROUP BY 1
     )
     SELECT b.start AT TIME ZONE 'UTC' AS start,
            coalesce(s.conversations, 0) AS conversations, coalesce(m.messages, 0) AS messages,
            coalesce(m.answered, 0) AS answered, coalesce(m.declined, 0) AS declined, coalesce(l.leads, 0) AS leads,
            coalesce(m.feedback_up, 0) AS feedback_up, coalesce(m.feedback_down, 0) AS feedback_down,
            coalesce(u.tokens, 0) AS tokens, coalesce(u.cost_usd, 0) AS cost_usd
       FROM buckets b
       LEFT JOIN m ON m.start = b.start LEFT JOIN s ON s.start = b.start
       LEFT JOIN l ON l.start = b.start LEFT JOIN u ON u.start = b.start
      ORDER BY b.start`,
    [clientId, from, to, interval],
  );
  return rows.map((r) => ({
    start: r.start as Date,
    conversations: Number(r.conversations),
    messages: Number(r.messages),
    answered: Number(r.answered),
    declined: Number(r.declined),
    leads: Number(r.leads),
    feedback_up: Number(r.feedback_up),
    feedback_down: Number(r.feedback_down),
    tokens: Number(r.tokens),
    cost_usd: Number(r.cost_usd),
  }));
}
