import type { WebhookFormat } from './clients.ts';
import { type Pool, type Queryable, withTransaction } from './pool.ts';

/**
 * webhook_status is the outbox: 'pending' = committed, job not known to be in Redis; 'queued' = job
 * in Redis; 'delivered' / 'failed' = finished; 'none' = the client had no webhook URL.
 */
export type WebhookStatus = 'none' | 'pending' | 'queued' | 'delivered' | 'failed';

export interface LeadRow {
  id: string;
  client_id: string;
  name: string;
  email: string;
  phone: string | null;
  message: string | null;
  session_id: string | null;
  source_ip: string | null;
  webhook_status: WebhookStatus;
  webhook_queued_at: Date | null;
  webhook_queue: string | null;
  webhook_attempts: number;
  webhook_locked_until: Date | null;
  webhook_finished_at: Date | null;
  /** Where the lead's webhook goes, as configured when it was captured (null: captured before this was kept). */
  webhook_url: string | null;
  webhook_format: WebhookFormat | null;
  /** The lead's current delivery job id (null: the first one, webhookJobId(id)). */
  webhook_job: string | null;
  created_at: Date;
}

export interface NewLead {
  clientId: string;
  name: string;
  email: string;
  phone?: string | undefined;
  message?: string | undefined;
  sessionId?: string | undefined;
  sourceIp?: string | undefined;
  webhookStatus: 'none' | 'pending';
  /** The client's webhook URL and format now: the lead is delivered there even if the client's settings change. */
  webhookUrl?: string | null | undefined;
  webhookFormat?: WebhookFormat | undefined;
  /** REDIS_PREFIX of the deployment whose queue (and outbox sweep) delivers this lead. */
  webhookQueue: string;
}

export async function insertLead(db: Queryable, lead: NewLead): Promise<LeadRow> {
  const { rows } = await db.query<LeadRow>(
    `INSERT INTO leads (client_id, name, email, phone, message, session_id, source_ip, webhook_status, webhook_queue, webhook_url, webhook_format)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     RETURNING *`,
    [
      lead.clientId,
      lead.name,
      lead.email,
      lead.phone ?? null,
      lead.message ?? null,
      lead.sessionId ?? null,
      lead.sourceIp ?? null,
      lead.webhookStatus,
      lead.webhookStatus === 'none' ? null : lead.webhookQueue,
      lead.webhookStatus === 'none' ? null : (lead.webhookUrl ?? null),
      lead.webhookStatus === 'none' ? null : (lead.webhookFormat ?? null),
    ],
  );
  return rows[0] as LeadRow;
}

/** Pending leads whose job is now in Redis. A lead the worker already finished keeps its status. */
export async function markLeadsQueued(db: Queryable, leadIds: string[]): Promise<void> {
  if (leadIds.length === 0) return;
  await db.query(
    `UPDATE leads SET webhook_status = 'queued', webhook_queued_at = now()
      WHERE id = ANY($1::uuid[]) AND webhook_status = 'pending'`,
    [leadIds],
  );
}

/** Queued leads whose job was just seen in Redis: the stale check moves on to others. */
export async function touchQueuedLeads(db: Queryable, leadIds: string[]): Promise<void> {
  if (leadIds.length === 0) return;
  await db.query(`UPDATE leads SET webhook_queued_at = now() WHERE id = ANY($1::uuid[]) AND webhook_status = 'queued'`, [leadIds]);
}

export interface OutboxLead {
  id: string;
  client_id: string;
  /** The lead's current job id; null: the first one. */
  webhook_job: string | null;
}

export interface QueuedLead extends OutboxLead {
  webhook_attempts: number;
}

/**
 * Gives an undelivered lead a new job id, if its current one is still `from` (so two sweepers racing
 * give it one new job, not two). Returns whether this caller made the change.
 */
export async function replaceLeadJob(db: Queryable, leadId: string, from: string | null, to: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE leads SET webhook_job = $3
      WHERE id = $1 AND webhook_job IS NOT DISTINCT FROM $2 AND webhook_status IN ('pending', 'queued')`,
    [leadId, from, to],
  );
  return rowCount === 1;
}

/** Committed leads of one queue whose job never reached Redis, oldest first. */
export async function pendingLeads(db: Queryable, queue: string, olderThanMs: number, limit: number): Promise<OutboxLead[]> {
  const { rows } = await db.query<OutboxLead>(
    `SELECT id, client_id, webhook_job FROM leads
      WHERE webhook_status = 'pending' AND webhook_queue = $1 AND created_at < now() - $2 * interval '1 millisecond'
      ORDER BY created_at
      LIMIT $3`,
    [queue, olderThanMs, limit],
  );
  return rows;
}

/** Queued leads of one queue not seen in Redis for a while (their job may have vanished), least recently checked first. */
export async function staleQueuedLeads(db: Queryable, queue: string, notSeenForMs: number, limit: number): Promise<QueuedLead[]> {
  const { rows } = await db.query<QueuedLead>(
    `SELECT id, client_id, webhook_job, webhook_attempts FROM leads
      WHERE webhook_status = 'queued' AND webhook_queue = $1
        AND coalesce(webhook_queued_at, created_at) < now() - $2 * interval '1 millisecond'
      ORDER BY webhook_queued_at NULLS FIRST
      LIMIT $3`,
    [queue, notSeenForMs, limit],
  );
  return rows;
}

/**
 * What a delivery needs, read fresh for every attempt: the lead, the URL and format it was captured
 * with, and its client's name and current secret (a rotated secret signs the next attempt). A client
 * whose webhook URL has been removed since wants no more webhooks: lead_webhook_url is then null.
 */
export type LeadForDelivery = Pick<
  LeadRow,
  'id' | 'client_id' | 'name' | 'email' | 'phone' | 'message' | 'session_id' | 'webhook_status' | 'created_at'
> & {
  client_name: string;
  lead_webhook_url: string | null;
  webhook_format: WebhookFormat;
  webhook_secret: string;
};

export async function findLeadForDelivery(db: Queryable, leadId: string, clientId: string): Promise<LeadForDelivery | undefined> {
  const { rows } = await db.query<LeadForDelivery>(
    `SELECT l.id, l.client_id, l.name, l.email, l.phone, l.message, l.session_id, l.webhook_status, l.created_at,
            c.name AS client_name, c.webhook_secret,
            CASE WHEN c.lead_webhook_url IS NOT NULL THEN coalesce(l.webhook_url, c.lead_webhook_url) END AS lead_webhook_url,
            coalesce(l.webhook_format, c.webhook_format) AS webhook_format
       FROM leads l JOIN clients c ON c.id = l.client_id
      WHERE l.id = $1 AND l.client_id = $2`,
    [leadId, clientId],
  );
  return rows[0];
}

export type DeliveryClaim =
  | { kind: 'claimed'; attempt: number }
  | { kind: 'finished'; status: WebhookStatus }
  | { kind: 'gone' }
  /** Another worker holds this lead's claim (a job handed out twice). */
  | { kind: 'locked'; retryInMs: number }
  /** The client already has its share of deliveries in flight. */
  | { kind: 'client-busy' };

/**
 * Claims one delivery attempt of a lead: at most one request per lead is ever in flight, and at most
 * perClientLimit per client. The client's advisory lock serialises the count-then-claim of concurrent
 * workers; the row lock orders them against the request that marks the lead queued.
 */
export async function claimDelivery(
  pool: Pool,
  input: { leadId: string; clientId: string; perClientLimit: number; lockMs: number },
): Promise<DeliveryClaim> {
  return withTransaction(pool, async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('kbchat:lead-webhook:' || $1::text, 0))`, [input.clientId]);
    const { rows } = await tx.query<{ webhook_status: WebhookStatus; locked_ms: number | null }>(
      `SELECT webhook_status,
              CASE WHEN webhook_locked_until > now()
                   THEN ceil(extract(epoch FROM webhook_locked_until - now()) * 1000)::int END AS locked_ms
         FROM leads WHERE id = $1 AND client_id = $2
          FOR UPDATE`,
      [input.leadId, input.clientId],
    );
    const lead = rows[0];
    if (!lead) return { kind: 'gone' };
    if (lead.webhook_status !== 'pending' && lead.webhook_status !== 'queued') return { kind: 'finished', status: lead.webhook_status };
    if (lead.locked_ms !== null) return { kind: 'locked', retryInMs: lead.locked_ms };
    const inflight = await tx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM leads
        WHERE client_id = $1 AND webhook_locked_until IS NOT NULL AND webhook_locked_until > now() AND id <> $2`,
      [input.clientId, input.leadId],
    );
    if ((inflight.rows[0]?.n ?? 0) >= input.perClientLimit) return { kind: 'client-busy' };
    const claimed = await tx.query<{ webhook_attempts: number }>(
      `UPDATE leads SET webhook_locked_until = now() + $2 * interval '1 millisecond', webhook_attempts = webhook_attempts + 1
        WHERE id = $1
        RETURNING webhook_attempts`,
      [input.leadId, input.lockMs],
    );
    return { kind: 'claimed', attempt: claimed.rows[0]?.webhook_attempts ?? 1 };
  });
}

/**
 * Releases a claim. With a final status the lead leaves the outbox; without one it stays queued for
 * the job's next attempt.
 */
export async function releaseDelivery(db: Queryable, leadId: string, finalStatus?: 'delivered' | 'failed'): Promise<void> {
  if (finalStatus) {
    await db.query(
      `UPDATE leads SET webhook_status = $2, webhook_locked_until = NULL, webhook_finished_at = now()
        WHERE id = $1 AND webhook_status IN ('pending', 'queued')`,
      [leadId, finalStatus],
    );
  } else {
    await db.query(`UPDATE leads SET webhook_locked_until = NULL WHERE id = $1`, [leadId]);
  }
}

/** The client's webhook URL was removed after the lead was captured: nothing to deliver. */
export async function markLeadWithoutWebhook(db: Queryable, leadId: string): Promise<void> {
  await db.query(
    `UPDATE leads SET webhook_status = 'none', webhook_locked_until = NULL, webhook_finished_at = now()
      WHERE id = $1 AND webhook_status IN ('pending', 'queued')`,
    [leadId],
  );
}

/** Leads whose job ended failed in Redis without the worker recording it (e.g. the database was away). */
export async function markLeadsFailed(db: Queryable, leadIds: string[]): Promise<void> {
  if (leadIds.length === 0) return;
  await db.query(
    `UPDATE leads SET webhook_status = 'failed', webhook_locked_until = NULL, webhook_finished_at = now()
      WHERE id = ANY($1::uuid[]) AND webhook_status IN ('pending', 'queued')`,
    [leadIds],
  );
}

export async function listLeads(
  db: Queryable,
  clientId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: LeadRow[]; total: number }> {
  const [list, count] = await Promise.all([
    db.query<LeadRow>(`SELECT * FROM leads WHERE client_id = $1 ORDER BY created_at DESC, id LIMIT $2 OFFSET $3`, [
      clientId,
      page.limit,
      page.offset,
    ]),
    db.query<{ total: number }>(`SELECT count(*)::int AS total FROM leads WHERE client_id = $1`, [clientId]),
  ]);
  return { rows: list.rows, total: count.rows[0]?.total ?? 0 };
}

/** Serialises the lead-limit count and insert of one client (the Postgres fallback of the rate limit). */
export async function lockClientLeadLimit(tx: Queryable, clientId: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('kbchat:lead-limit:' || $1::text, 0))`, [clientId]);
}

/** The client's leads of the last windowMs, per source address: how many, and the age of the oldest. */
export async function recentLeadsBySource(
  db: Queryable,
  clientId: string,
  windowMs: number,
): Promise<{ sourceIp: string | null; count: number; oldestAgeMs: number }[]> {
  const { rows } = await db.query<{ source_ip: string | null; n: number; oldest_ms: number }>(
    `SELECT source_ip, count(*)::int AS n, (extract(epoch FROM now() - min(created_at)) * 1000)::float8 AS oldest_ms
       FROM leads
      WHERE client_id = $1 AND created_at > now() - $2 * interval '1 millisecond'
      GROUP BY source_ip`,
    [clientId, windowMs],
  );
  return rows.map((r) => ({ sourceIp: r.source_ip, count: r.n, oldestAgeMs: r.oldest_ms }));
}
