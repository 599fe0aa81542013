import { z } from 'zod';
import type { ClientRow } from '../db/clients.ts';
import { httpUrl, requiredString } from './common.ts';

const origin = z
  .string({ error: 'must be a string' })
  .trim()
  .refine(
    (v) => {
      try {
        const u = new URL(v);
        return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === v.replace(/\/$/, '');
      } catch {
        return false;
      }
    },
    { error: 'must be an origin such as https://www.example.com' },
  )
  .transform((v) => v.replace(/\/$/, ''));

export const webhookFormat = z.enum(['envelope', 'flat'], { error: 'must be envelope or flat' });

const retentionDays = z
  .number({ error: 'must be a whole number of days' })
  .int({ error: 'must be a whole number of days' })
  .min(1, { error: 'must be between 1 and 3650' })
  .max(3650, { error: 'must be between 1 and 3650' });

const hexColor = z
  .string({ error: 'must be a string' })
  .trim()
  .regex(/^#[0-9a-fA-F]{6}$/, { error: 'must be a hex colour such as #1f4fd1' })
  .transform((v) => v.toLowerCase());
/**
 * A widget text: stored in a JSON column, whose parser refuses the escape of a lone surrogate that a
 * text column would have taken (as U+FFFD) — so it is a 400 here, not a 500 there.
 */
const widgetText = (max: number) => requiredString({ max }).refine((v) => v.isWellFormed(), { error: 'must be valid Unicode text' });
export const widgetPosition = z.enum(['bottom-right', 'bottom-left'], { error: 'must be bottom-right or bottom-left' });

/**
 * The widget's look, set by the operator (docs/widget.md, "Settings"). In a create or PATCH body
 * every key is optional and null resets it to the default; a PATCH changes only the keys it names.
 */
export const widgetSettingsBody = z.object(
  {
    title: widgetText(60).nullish(),
    greeting: widgetText(300).nullish(),
    color: hexColor.nullish(),
    starterQuestions: z
      .array(widgetText(120), { error: 'must be an array of questions' })
      .max(4, { error: 'must hold at most 4 questions' })
      .nullish(),
    position: widgetPosition.nullish(),
  },
  { error: 'must be an object' },
);
export type WidgetSettingsBody = z.output<typeof widgetSettingsBody>;

/** As stored in clients.widget (parsed when read: the column is JSON). */
export const storedWidgetSettings = z.object({
  title: z.string().optional(),
  greeting: z.string().optional(),
  color: z.string().optional(),
  starterQuestions: z.array(z.string()).optional(),
  position: widgetPosition.optional(),
});
export type StoredWidgetSettings = z.output<typeof storedWidgetSettings>;

/** The widget fields as every view shows them: null = the widget's default. */
export const widgetSettingsView = z.object({
  title: z.string().nullable(),
  greeting: z.string().nullable(),
  color: z.string().nullable(),
  starterQuestions: z.array(z.string()),
  position: widgetPosition,
});

export function toWidgetSettingsView(stored: unknown): z.output<typeof widgetSettingsView> {
  const w = storedWidgetSettings.catch({}).parse(stored);
  return {
    title: w.title ?? null,
    greeting: w.greeting ?? null,
    color: w.color ?? null,
    starterQuestions: w.starterQuestions ?? [],
    position: w.position ?? 'bottom-right',
  };
}

/** The keys a body names, with null (reset) dropped: what to merge into the stored object, and what to remove. */
export function widgetPatch(body: WidgetSettingsBody): { set: StoredWidgetSettings; unset: string[] } {
  const set: Record<string, unknown> = {};
  const unset: string[] = [];
  for (const [k, v] of Object.entries(body)) {
    if (v === undefined) continue;
    if (v === null || (Array.isArray(v) && v.length === 0)) unset.push(k);
    else set[k] = v;
  }
  return { set: storedWidgetSettings.parse(set), unset };
}

export const createClientBody = z.object({
  name: requiredString({ max: 200 }),
  leadWebhookUrl: httpUrl().nullish(),
  webhookFormat: webhookFormat.optional(),
  allowedOrigins: z.array(origin, { error: 'must be an array of origins' }).max(100).optional(),
  transcriptRetentionDays: retentionDays.optional(),
  widget: widgetSettingsBody.optional(),
});

export const updateClientBody = z.object({
  name: requiredString({ max: 200 }).optional(),
  leadWebhookUrl: httpUrl().nullish(),
  webhookFormat: webhookFormat.optional(),
  allowedOrigins: z.array(origin, { error: 'must be an array of origins' }).max(100).optional(),
  transcriptRetentionDays: retentionDays.optional(),
  rotateWebhookSecret: z.boolean({ error: 'must be true or false' }).optional(),
  widget: widgetSettingsBody.optional(),
});

export const clientView = z.object({
  clientId: z.string(),
  name: z.string(),
  leadWebhookUrl: z.string().nullable(),
  webhookFormat: webhookFormat,
  allowedOrigins: z.array(z.string()),
  /** Days transcripts are kept after a conversation's last message (default 90). */
  transcriptRetentionDays: z.number(),
  widget: widgetSettingsView,
  createdAt: z.string(),
  updatedAt: z.string(),
});
/** Only on create (and rotation): the secret is shown once. */
export const clientWithSecretView = clientView.extend({ webhookSecret: z.string() });

export function toClientView(row: ClientRow): z.output<typeof clientView> {
  return {
    clientId: row.id,
    name: row.name,
    leadWebhookUrl: row.lead_webhook_url,
    webhookFormat: row.webhook_format,
    allowedOrigins: row.allowed_origins,
    transcriptRetentionDays: row.transcript_retention_days,
    widget: toWidgetSettingsView(row.widget),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
