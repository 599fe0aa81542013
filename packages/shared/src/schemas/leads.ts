import { z } from 'zod';
import type { LeadRow } from '../db/leads.ts';
import type { DeliveryRow } from '../db/webhook-deliveries.ts';
import { optionalString, paginationQuery, requiredString } from './common.ts';

/**
 * POST /api/lead (spec §4.4). Every missing field is reported at once, one string each
 * ("name is required"); a clientId that is present but malformed is a 404 (the service looks it up).
 */

export const LEAD_LIMITS = { name: 200, email: 254, phone: 40, message: 4_000, sessionId: 200, clientId: 100 } as const;

// Digits with the usual separators, an optional leading +, an optional extension: "+1 (555) 010-4477 ext. 12".
const PHONE_RE = /^\+?[0-9 ()./-]{3,}(?:\s*(?:ext\.?|x|#)\s*[0-9]{1,6})?$/i;

// Pragmatic address check: one @, a dot in the domain, no spaces or angle brackets. The receiver
// gets what the visitor typed; this only catches mistakes, it cannot prove an address exists.
const EMAIL_RE = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:".]{2,}$/;

const leadEmail = requiredString({ max: LEAD_LIMITS.email }).pipe(
  z.string().refine((v) => EMAIL_RE.test(v), { error: 'must be a valid email address' }),
);

const leadPhone = optionalString({ max: LEAD_LIMITS.phone }).refine(
  (v) => v === undefined || (PHONE_RE.test(v) && /\d{3}/.test(v.replace(/\D/g, ''))),
  {
    error: 'must be a phone number (digits, spaces, + ( ) - . /)',
  },
);

export const leadBody = z.object({
  clientId: requiredString({ max: LEAD_LIMITS.clientId }),
  name: requiredString({ max: LEAD_LIMITS.name }),
  email: leadEmail,
  phone: leadPhone,
  message: optionalString({ max: LEAD_LIMITS.message }),
  sessionId: optionalString({ max: LEAD_LIMITS.sessionId }),
});
export type LeadInput = z.output<typeof leadBody>;

export const leadResponse = z.object({
  success: z.literal(true),
  leadId: z.string(),
  message: z.string(),
});

export const webhookStatus = z.enum(['none', 'pending', 'queued', 'delivered', 'failed']);

export const leadView = z.object({
  leadId: z.string(),
  name: z.string(),
  email: z.string(),
  phone: z.string().nullable(),
  message: z.string().nullable(),
  sessionId: z.string().nullable(),
  webhookStatus,
  createdAt: z.string(),
});

export const leadList = z.object({
  leads: z.array(leadView),
  total: z.number(),
  limit: z.number(),
  offset: z.number(),
});

export function toLeadView(row: LeadRow): z.output<typeof leadView> {
  return {
    leadId: row.id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    message: row.message,
    sessionId: row.session_id,
    webhookStatus: row.webhook_status,
    createdAt: row.created_at.toISOString(),
  };
}

export const deliveryQuery = paginationQuery.extend({
  leadId: z.uuid({ error: 'must be a lead id (UUID)' }).optional(),
});

export const deliveryView = z.object({
  deliveryId: z.string(),
  leadId: z.string(),
  webhookId: z.string(),
  url: z.string(),
  attempt: z.number(),
  outcome: z.enum(['delivered', 'rejected', 'error']),
  statusCode: z.number().nullable(),
  error: z.string().nullable(),
  durationMs: z.number().nullable(),
  createdAt: z.string(),
});

export const deliveryList = z.object({
  deliveries: z.array(deliveryView),
  total: z.number(),
  limit: z.number(),
  offset: z.number(),
});

export function toDeliveryView(row: DeliveryRow): z.output<typeof deliveryView> {
  return {
    deliveryId: row.id,
    leadId: row.lead_id,
    webhookId: row.message_id,
    url: row.url,
    attempt: row.attempt,
    outcome: row.outcome,
    statusCode: row.status_code,
    error: row.error,
    durationMs: row.duration_ms,
    createdAt: row.created_at.toISOString(),
  };
}
