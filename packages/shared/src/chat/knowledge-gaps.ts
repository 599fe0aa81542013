import { createHash } from 'node:crypto';
import type { CuratedAnswerRow } from '../db/curated-answers.ts';
import type { GapQuestion } from '../db/knowledge-gaps.ts';
import { closestCurated, matchCurated, questionKey } from './curated.ts';

/**
 * Knowledge gaps (docs/operators.md): questions the bot declined and answers rated down, grouped
 * when they ask the same thing in near-identical words — one key of topic words, the matcher's
 * (chat/curated.ts): "Do you sell skateboards?" and "do u sell skateboards" are one gap. A gap a
 * curated answer now answers, or one dismissed after it was last asked, is not listed.
 */
export interface KnowledgeGap {
  gapId: string;
  question: string;
  count: number;
  lastAskedAt: Date;
  reason: 'declined' | 'thumbs-down';
  sessionIds: string[];
  /**
   * The curated answer the gap's wording comes closest to without being matched (its words meet the
   * most of that answer's questions and text), or null: where "Add to an answer" starts.
   */
  closestAnswerId: string | null;
}

const MAX_SESSION_IDS = 20;

export function gapIdOf(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

export function groupGaps(
  questions: readonly GapQuestion[],
  options: { curated: readonly CuratedAnswerRow[]; dismissed: ReadonlyMap<string, Date> },
): KnowledgeGap[] {
  const groups = new Map<string, { gap: KnowledgeGap; declined: number; sessions: Set<string> }>();
  for (const q of questions) {
    const key = questionKey(q.question);
    if (!key) continue; // "hi", "?": nothing asked
    let group = groups.get(key);
    if (!group) {
      group = {
        gap: {
          gapId: gapIdOf(key),
          question: q.question,
          count: 0,
          lastAskedAt: q.asked_at,
          reason: 'declined',
          sessionIds: [],
          closestAnswerId: null,
        },
        declined: 0,
        sessions: new Set(),
      };
      groups.set(key, group);
    }
    group.gap.count++;
    if (q.declined) group.declined++;
    // The newest wording names the gap.
    if (q.asked_at > group.gap.lastAskedAt) {
      group.gap.lastAskedAt = q.asked_at;
      group.gap.question = q.question;
    }
    group.sessions.add(q.session_id);
  }
  return [...groups.values()]
    .map(({ gap, declined, sessions }) => ({
      ...gap,
      reason: declined * 2 >= gap.count ? ('declined' as const) : ('thumbs-down' as const),
      sessionIds: [...sessions].slice(0, MAX_SESSION_IDS),
    }))
    .filter((gap) => {
      const dismissedAt = options.dismissed.get(gap.gapId);
      if (dismissedAt && dismissedAt >= gap.lastAskedAt) return false;
      return matchCurated(gap.question, options.curated) === undefined;
    })
    .map((gap) => ({ ...gap, closestAnswerId: closestCurated(gap.question, options.curated)?.answer.id ?? null }))
    .sort((a, b) => b.count - a.count || b.lastAskedAt.getTime() - a.lastAskedAt.getTime());
}
