import type { WebhookFormat } from '../db/clients.ts';
import type { LeadForDelivery } from '../db/leads.ts';

/**
 * The two payload forms of spec §6, chosen per client. The body of a lead is the same bytes on
 * every attempt (timestamp = when the lead was captured), so a receiver that deduplicates on
 * webhook-id never sees two versions of one lead.
 */

/** The spec's webhooks reference: the default. */
export interface EnvelopePayload {
  event: 'lead.created';
  timestamp: string;
  data: {
    id: string;
    name: string;
    email: string;
    phone: string | null;
    message: string | null;
    clientId: string;
    clientName: string;
    sessionId: string | null;
  };
}

/**
 * The spec's lead endpoint reference: name, email, phone, message, clientId, timestamp at the top
 * level. leadId, clientName and sessionId are added so a flat receiver can deduplicate and route
 * as well as an envelope one; absent phone/message/sessionId are null, as in the envelope.
 */
export interface FlatPayload {
  name: string;
  email: string;
  phone: string | null;
  message: string | null;
  clientId: string;
  timestamp: string;
  leadId: string;
  clientName: string;
  sessionId: string | null;
}

export function buildLeadPayload(lead: LeadForDelivery, format: WebhookFormat): EnvelopePayload | FlatPayload {
  const timestamp = lead.created_at.toISOString();
  if (format === 'flat') {
    return {
      name: lead.name,
      email: lead.email,
      phone: lead.phone,
      message: lead.message,
      clientId: lead.client_id,
      timestamp,
      leadId: lead.id,
      clientName: lead.client_name,
      sessionId: lead.session_id,
    };
  }
  return {
    event: 'lead.created',
    timestamp,
    data: {
      id: lead.id,
      name: lead.name,
      email: lead.email,
      phone: lead.phone,
      message: lead.message,
      clientId: lead.client_id,
      clientName: lead.client_name,
      sessionId: lead.session_id,
    },
  };
}

/** webhook-id: stable per lead, across retries and re-enqueues by the outbox. */
export function webhookMessageId(leadId: string): string {
  return `msg_${leadId}`;
}
