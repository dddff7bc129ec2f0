// Session summaries (reference 001, P4): the worker's summary of a session is
// kept as a session_summary memory. With a chat model configured
// (SUMMARY_MODEL) it is first distilled by the structured prompt below, and a
// session with "No significant learnings." is not stored at all.
import "server-only";
import { SYSTEM_ACTOR } from "@/lib/audit/audit-log";
import { prepare, writeTransaction } from "@/lib/db";
import { afterStore, storeMemoriesSync } from "./memory-store";
import { chat } from "./provider";

export const SUMMARY_PROMPT = `You are summarizing an AI agent's work session. Extract ONLY high-value learnings.

DO NOT include:
- Generic descriptions of what was done ("worked on task X")
- Tool calls or file reads
- Routine progress updates

DO include (if present):
- **Mistakes made and corrections** — what went wrong and what fixed it
- **Discovered patterns** — reusable patterns, APIs, or approaches
- **Codebase knowledge** — important file paths, architecture decisions, conventions
- **Environment knowledge** — service URLs, config details, tool versions
- **Failed approaches** — what was tried and didn't work (and why)

Format as a bulleted list. If the session was routine with no significant learnings, respond with just: "No significant learnings."`;

export function isNoLearnings(text: string): boolean {
  return /^\W*no significant learnings\W*$/i.test(text.trim());
}

export async function summarizeSession(args: { agentId: string; taskId: string; title: string; summary: string }): Promise<void> {
  let content = args.summary.trim().slice(0, 20_000);
  let status: "stored" | "skipped" | "failed" = "stored";
  try {
    const distilled = await chat({ system: SUMMARY_PROMPT, user: `Task: ${args.title}\n\nSession transcript summary:\n${content}` });
    if (distilled !== null) {
      if (isNoLearnings(distilled)) status = "skipped";
      else content = distilled;
    } else if (isNoLearnings(content)) status = "skipped";
  } catch (error) {
    // The raw summary is still worth keeping; the failure is on the session row.
    console.warn("[swarmdeck] session summarisation failed", error);
    status = "failed";
  }
  if (status !== "skipped") {
    const stored = await writeTransaction((sqlite) =>
      storeMemoriesSync(sqlite, {
        actor: SYSTEM_ACTOR,
        items: [
          {
            name: `Session summary: ${args.title.slice(0, 150)}`,
            content,
            scope: "agent",
            source: "session_summary",
            agentId: args.agentId,
            taskId: args.taskId,
          },
        ],
      }),
    );
    afterStore(stored);
  }
  await markSessionSummary(args.taskId, status);
}

/** Marks the task's latest session's summary status (stored | skipped | failed). */
export async function markSessionSummary(taskId: string, status: "stored" | "skipped" | "failed"): Promise<void> {
  await writeTransaction((sqlite) => {
    prepare(
      sqlite,
      "UPDATE Session SET summaryStatus = ? WHERE id = (SELECT id FROM Session WHERE taskId = ? ORDER BY startedAt DESC LIMIT 1)",
    ).run(status, taskId);
  });
}
