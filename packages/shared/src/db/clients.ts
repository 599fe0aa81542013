import { randomBytes } from 'node:crypto';
import type { StoredWidgetSettings } from '../schemas/clients.ts';
import type { Queryable } from './pool.ts';

export type WebhookFormat = 'envelope' | 'flat';

export interface ClientRow {
  id: string;
  name: string;
  lead_webhook_url: string | null;
  webhook_format: WebhookFormat;
  webhook_secret: string;
  allowed_origins: string[];
  /** Days a session's messages are kept after its last one (docs/operators.md). */
  transcript_retention_days: number;
  /** The widget settings as stored (JSON; parsed by schemas/clients.ts toWidgetSettingsView). */
  widget: unknown;
  created_at: Date;
  updated_at: Date;
  /**
   * Whether the client has curated answers, as findClient read it (undefined from other reads): the
   * chat reads the answers only then, saving a statement a request for most clients.
   */
  has_curated_answers?: boolean;
}

/** A Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A clientId that is not a UUID can never exist: callers answer 404 without a query. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_RE.test(value);
}

export async function insertClient(
  db: Queryable,
  input: {
    name: string;
    leadWebhookUrl?: string | null;
    webhookFormat?: WebhookFormat;
    allowedOrigins?: string[];
    transcriptRetentionDays?: number;
    widget?: StoredWidgetSettings;
  },
): Promise<ClientRow> {
  const { rows } = await db.query<ClientRow>(
    `INSERT INTO clients (name, lead_webhook_url, webhook_format, webhook_secret, allowed_origins, transcript_retention_days, widget)
     VALUES ($1, $2, $3, $4, $5, coalesce($6, 90), $7)
     RETURNING *`,
    [
      input.name,
      input.leadWebhookUrl ?? null,
      input.webhookFormat ?? 'envelope',
      newWebhookSecret(),
      input.allowedOrigins ?? [],
      input.transcriptRetentionDays ?? null,
      JSON.stringify(input.widget ?? {}),
    ],
  );
  return rows[0] as ClientRow;
}

/** Every public request reads its client: a named statement (pool.ts), its columns listed. */
const FIND_CLIENT = {
  name: 'kbchat_find_client',
  text: `SELECT id, name, lead_webhook_url, webhook_format, webhook_secret, allowed_origins, transcript_retention_days, widget, created_at, updated_at,
                EXISTS (SELECT 1 FROM curated_answers ca WHERE ca.client_id = clients.id) AS has_curated_answers
           FROM clients WHERE id = $1`,
} as const;

export async function findClient(db: Queryable, clientId: string): Promise<ClientRow | undefined> {
  if (!isUuid(clientId)) return undefined;
  const { rows } = await db.query<ClientRow>({ ...FIND_CLIENT, values: [clientId] });
  return rows[0];
}

export async function listClients(db: Queryable, page: { limit: number; offset: number }): Promise<{ rows: ClientRow[]; total: number }> {
  const [list, count] = await Promise.all([
    db.query<ClientRow>('SELECT * FROM clients ORDER BY created_at DESC, id LIMIT $1 OFFSET $2', [page.limit, page.offset]),
    db.query<{ total: string }>('SELECT count(*) AS total FROM clients'),
  ]);
  return { rows: list.rows, total: Number(count.rows[0]?.total ?? 0) };
}

export interface ClientPatch {
  name?: string;
  leadWebhookUrl?: string | null;
  webhookFormat?: WebhookFormat;
  allowedOrigins?: string[];
  transcriptRetentionDays?: number;
  rotateWebhookSecret?: boolean;
  /** Widget keys to set, and keys to reset to the default. */
  widget?: { set: StoredWidgetSettings; unset: string[] };
}

/** Applies only the fields present in patch; returns undefined when the client does not exist. */
export async function updateClient(db: Queryable, clientId: string, patch: ClientPatch): Promise<ClientRow | undefined> {
  if (!isUuid(clientId)) return undefined;
  const sets: string[] = [];
  const values: unknown[] = [clientId];
  const set = (column: string, value: unknown) => {
    values.push(value);
    sets.push(`${column} = $${values.length}`);
  };
  if (patch.name !== undefined) set('name', patch.name);
  if (patch.leadWebhookUrl !== undefined) set('lead_webhook_url', patch.leadWebhookUrl);
  if (patch.webhookFormat !== undefined) set('webhook_format', patch.webhookFormat);
  if (patch.allowedOrigins !== undefined) set('allowed_origins', patch.allowedOrigins);
  if (patch.transcriptRetentionDays !== undefined) set('transcript_retention_days', patch.transcriptRetentionDays);
  if (patch.rotateWebhookSecret) set('webhook_secret', newWebhookSecret());
  if (patch.widget) {
    values.push(JSON.stringify(patch.widget.set), patch.widget.unset);
    sets.push(`widget = (widget - $${values.length}::text[]) || $${values.length - 1}::jsonb`);
  }
  sets.push('updated_at = now()');
  const { rows } = await db.query<ClientRow>(`UPDATE clients SET ${sets.join(', ')} WHERE id = $1 RETURNING *`, values);
  return rows[0];
}

/** Deletes the client and, by cascade, every row of its data. */
export async function deleteClient(db: Queryable, clientId: string): Promise<boolean> {
  if (!isUuid(clientId)) return false;
  const { rowCount } = await db.query('DELETE FROM clients WHERE id = $1', [clientId]);
  return (rowCount ?? 0) > 0;
}
