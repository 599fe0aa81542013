import type { Queryable } from './pool.ts';

export type UsageKind = 'embedding' | 'query-embedding' | 'chat';

export interface UsageEntry {
  clientId: string;
  kind: UsageKind;
  model: string;
  requests?: number;
  promptTokens: number;
  completionTokens?: number;
  costUsd: number;
}

/** Adds to the client's usage for today (one row per client, day, kind and model). */
export async function recordUsage(db: Queryable, e: UsageEntry): Promise<void> {
  await db.query(
    `INSERT INTO usage (client_id, kind, model, requests, prompt_tokens, completion_tokens, cost_usd)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (client_id, day, kind, model) DO UPDATE SET
       requests = usage.requests + EXCLUDED.requests,
       prompt_tokens = usage.prompt_tokens + EXCLUDED.prompt_tokens,
       completion_tokens = usage.completion_tokens + EXCLUDED.completion_tokens,
       cost_usd = usage.cost_usd + EXCLUDED.cost_usd`,
    [e.clientId, e.kind, e.model, e.requests ?? 1, e.promptTokens, e.completionTokens ?? 0, e.costUsd],
  );
}
