// The PostgreSQL twin of lead-feedback.ts's recentLeadFeedback (same rows, same
// order), for the task bundle's PostgreSQL path; runs on the caller's `Sql`.
import "server-only";
import type { Sql } from "@/lib/pg";
import { type LeadFeedback, leadFeedbackDays } from "./lead-feedback";

const MAX_ITEMS = 5;

export function recentLeadFeedbackPg(sql: Sql, { agentId, now }: { agentId: string; now: number }): Promise<LeadFeedback[]> {
  // Index Memory(source, createdAt).
  return sql.all<LeadFeedback>(
    `SELECT "id", "name", "content", "scope", "createdAt" FROM "Memory"
     WHERE "source" = 'lead_feedback' AND "createdAt" >= $1 AND "archivedAt" IS NULL AND "supersededById" IS NULL
       AND ("expiresAt" IS NULL OR "expiresAt" > $2) AND (("scope" = 'agent' AND "agentId" = $3) OR "scope" = 'swarm')
     ORDER BY "createdAt" DESC, "id" DESC LIMIT $4`,
    [new Date(now - leadFeedbackDays() * 86_400_000), new Date(now), agentId, MAX_ITEMS],
  );
}
