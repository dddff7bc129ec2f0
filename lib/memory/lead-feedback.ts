// The lead's feedback in an agent's task prompt (reference 001, P6). Relevance
// search alone would let a correction miss the very next task when its words
// differ from the task's, so recent lead feedback for this agent (and for the
// whole swarm) is given whole in its own section of every task prompt for a
// while (SWARMDECK_LEAD_FEEDBACK_DAYS, default 14; newest 5). Feedback for one
// agent is never shown to another.
import "server-only";
import type Database from "better-sqlite3";
import { prepare } from "@/lib/db";

export type LeadFeedback = { id: number; name: string; content: string; scope: string; createdAt: number };

const MAX_ITEMS = 5;
const MAX_CHARS = 2_000;

export function leadFeedbackDays(env: Record<string, string | undefined> = process.env): number {
  const value = Number(env.SWARMDECK_LEAD_FEEDBACK_DAYS);
  return Number.isFinite(value) && value > 0 && env.SWARMDECK_LEAD_FEEDBACK_DAYS?.trim() ? value : 14;
}

export function recentLeadFeedback(sqlite: Database.Database, { agentId, now }: { agentId: string; now: number }): LeadFeedback[] {
  // Index Memory(source, createdAt).
  return prepare(
    sqlite,
    `SELECT id, name, content, scope, createdAt FROM Memory
     WHERE source = 'lead_feedback' AND createdAt >= ? AND archivedAt IS NULL AND supersededById IS NULL
       AND (expiresAt IS NULL OR expiresAt > ?) AND ((scope = 'agent' AND agentId = ?) OR scope = 'swarm')
     ORDER BY createdAt DESC, id DESC LIMIT ?`,
  ).all(now - leadFeedbackDays() * 86_400_000, now, agentId, MAX_ITEMS) as LeadFeedback[];
}

/** The "Feedback from your lead" section of a task prompt ("" when there is none). */
export function leadFeedbackSection(items: LeadFeedback[]): string {
  if (items.length === 0) return "";
  const lines = items.map((item) => {
    const body = item.content.length > MAX_CHARS ? `${item.content.slice(0, MAX_CHARS)}…` : item.content;
    const when = new Date(item.createdAt).toISOString().slice(0, 10);
    return `### ${item.name}, ${when}${item.scope === "swarm" ? " (to the whole swarm)" : ""}\n${body}`;
  });
  return [
    "## Feedback from your lead",
    "",
    "Corrections and advice your lead gave you recently. Apply them to this task.",
    "",
    lines.join("\n\n"),
  ].join("\n");
}
