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

export const createClientBody = z.object({
  name: requiredString({ max: 200 }),
  leadWebhookUrl: httpUrl().nullish(),
  webhookFormat: webhookFormat.optional(),
  allowedOrigins: z.array(origin, { error: 'must be an array of origins' }).max(100).optional(),
  transcriptRetentionDays: retentionDays.optional(),
});

export const updateClientBody = z.object({
  name: requiredString({ max: 200 }).optional(),
  leadWebhookUrl: httpUrl().nullish(),
  webhookFormat: webhookFormat.optional(),
  allowedOrigins: z.array(origin, { error: 'must be an array of origins' }).max(100).optional(),
  transcriptRetentionDays: retentionDays.optional(),
  rotateWebhookSecret: z.boolean({ error: 'must be true or false' }).optional(),
});

export const clientView = z.object({
  clientId: z.string(),
  name: z.string(),
  leadWebhookUrl: z.string().nullable(),
  webhookFormat: webhookFormat,
  allowedOrigins: z.array(z.string()),
  /** Days transcripts are kept after a conversation's last message (default 90). */
  transcriptRetentionDays: z.number(),
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
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
