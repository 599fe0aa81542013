import type { Queryable } from './pool.ts';

/** delivered = 2xx; rejected = any other status (never retried); error = no answer (network, timeout, refused address). */
export type DeliveryOutcome = 'delivered' | 'rejected' | 'error';

export interface DeliveryRow {
  id: string;
  client_id: string;
  lead_id: string;
  message_id: string;
  url: string;
  attempt: number;
  outcome: DeliveryOutcome;
  status_code: number | null;
  error: string | null;
  duration_ms: number | null;
  created_at: Date;
}

export interface NewDelivery {
  clientId: string;
  leadId: string;
  messageId: string;
  url: string;
  attempt: number;
  outcome: DeliveryOutcome;
  statusCode?: number | undefined;
  error?: string | undefined;
  durationMs: number;
}

/** One row per attempt: the log an operator reads when a client says "we never got that lead". */
export async function insertDelivery(db: Queryable, d: NewDelivery): Promise<void> {
  await db.query(
    `INSERT INTO webhook_deliveries (client_id, lead_id, message_id, url, attempt, outcome, status_code, error, duration_ms)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [d.clientId, d.leadId, d.messageId, d.url, d.attempt, d.outcome, d.statusCode ?? null, d.error ?? null, Math.round(d.durationMs)],
  );
}

export async function listDeliveries(
  db: Queryable,
  clientId: string,
  page: { limit: number; offset: number; leadId?: string | undefined },
): Promise<{ rows: DeliveryRow[]; total: number }> {
  const leadId = page.leadId ?? null;
  const [list, count] = await Promise.all([
    db.query<DeliveryRow>(
      `SELECT id::text AS id, client_id, lead_id, message_id, url, attempt, outcome, status_code, error, duration_ms, created_at
         FROM webhook_deliveries
        WHERE client_id = $1 AND ($4::uuid IS NULL OR lead_id = $4::uuid)
        ORDER BY created_at DESC, id DESC
        LIMIT $2 OFFSET $3`,
      [clientId, page.limit, page.offset, leadId],
    ),
    db.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM webhook_deliveries WHERE client_id = $1 AND ($2::uuid IS NULL OR lead_id = $2::uuid)`,
      [clientId, leadId],
    ),
  ]);
  return { rows: list.rows, total: count.rows[0]?.total ?? 0 };
}
