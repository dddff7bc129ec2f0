// Lead-to-worker feedback (reference 001, P6): a lead agent (or an operator)
// pushes a learning into one worker's memory, and optionally into its CLAUDE.md.
import "server-only";
import type Database from "better-sqlite3";
import type { Actor } from "@/lib/audit/audit-log";
import type { LEARNING_CATEGORIES } from "@/lib/contracts/memory";
import { prepare, writeTransaction } from "@/lib/db";
import { ApiError } from "@/lib/errors";
import { appendClaudeFeedback } from "./claude-feedback";
import { afterStore, storeMemoriesSync } from "./memory-store";

export type LearningInput = {
  targetAgentId: string;
  category: (typeof LEARNING_CATEGORIES)[number];
  learning: string;
  addToClaudeMd: boolean;
};

function findTarget(sqlite: Database.Database, id: string) {
  return prepare(sqlite, "SELECT id, name, archivedAt FROM Agent WHERE id = ?").get(id) as
    | { id: string; name: string; archivedAt: number | null }
    | undefined;
}

export async function injectLearning(args: {
  input: LearningInput;
  actor: Actor;
  /** The lead agent that gives the feedback (null: an operator). */
  fromAgent: { id: string; name: string } | null;
}): Promise<{ memoryIds: number[]; claudeVersionId: string | null }> {
  const { input } = args;
  const result = await writeTransaction((sqlite) => {
    const target = findTarget(sqlite, input.targetAgentId);
    if (!target || target.archivedAt !== null) throw new ApiError("not_found", "The target agent was not found");
    const from = args.fromAgent ? `lead ${args.fromAgent.name}` : `operator ${args.actor.label}`;
    const stored = storeMemoriesSync(sqlite, {
      actor: args.actor,
      items: [
        {
          name: `Lead feedback (${input.category})`,
          content: `[Feedback from ${from}] Category: ${input.category}\n\n${input.learning}`,
          scope: "agent",
          source: "lead_feedback",
          agentId: target.id,
        },
      ],
    });
    let claudeVersionId: string | null = null;
    if (input.addToClaudeMd) {
      const firstLine = input.learning.split("\n").find((line) => line.trim()) ?? input.learning;
      claudeVersionId = appendClaudeFeedback(sqlite, {
        agentId: target.id,
        line: `(${input.category}) ${firstLine.trim().slice(0, 500)}`,
        actor: args.actor,
        authorAgentId: args.fromAgent?.id ?? args.actor.id ?? "operator",
      }).versionId;
    }
    return { stored, claudeVersionId };
  });
  afterStore(result.stored);
  return { memoryIds: result.stored.ids, claudeVersionId: result.claudeVersionId };
}
