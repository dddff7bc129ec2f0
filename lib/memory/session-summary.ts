// Session summaries (reference 001, P4): what the agent did in a task's session,
// distilled by the summary model (SUMMARY_MODEL) with the structured prompt below
// into a session_summary memory. The worker sends the real session: Claude Code's
// own transcript, or another agent's captured output. Nothing is stored without a
// summary model (a raw transcript is not a lesson), when the model says "No
// significant learnings.", or when it fails; the session row records which.
import "server-only";
import { SYSTEM_ACTOR } from "@/lib/audit/audit-log";
import type { SessionTranscriptBody } from "@/lib/contracts/tasks";
import { prepare, usesPostgres, writeTransaction } from "@/lib/db";
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

const SOURCE_LABEL: Record<SessionTranscriptBody["source"], string> = {
  claude_transcript: "Session transcript (Claude Code)",
  output: "Session output (the agent's captured output)",
};

export async function summarizeSession(args: {
  agentId: string;
  taskId: string;
  title: string;
  session: SessionTranscriptBody;
}): Promise<"stored" | "skipped" | "failed"> {
  let status: "stored" | "skipped" | "failed";
  let content: string | null = null;
  try {
    const distilled = await chat({
      system: SUMMARY_PROMPT,
      user: `Task: ${args.title}\n\n${SOURCE_LABEL[args.session.source]}:\n${args.session.transcript}`,
    });
    if (distilled === null || isNoLearnings(distilled) || !distilled.trim()) status = "skipped";
    else {
      status = "stored";
      content = distilled.trim();
    }
  } catch (error) {
    console.warn("[swarmdeck] session summarisation failed", error);
    status = "failed";
  }
  if (content !== null) {
    const items = [
      {
        name: `Session summary: ${args.title.slice(0, 150)}`,
        content,
        scope: "agent" as const,
        source: "session_summary" as const,
        agentId: args.agentId,
        taskId: args.taskId,
      },
    ];
    if (usesPostgres()) await (await import("./memory-store.pg")).storeSystemMemoriesPg(items);
    else {
      const stored = await writeTransaction((sqlite) => storeMemoriesSync(sqlite, { actor: SYSTEM_ACTOR, items }));
      afterStore(stored);
    }
  }
  await markSessionSummary(args.taskId, status);
  return status;
}

const SUMMARY_WAIT_MS = 5_000;

/** After a finish committed: never fails the request, waits a little so the memory is there when the answer arrives. */
export async function summarizeSessionSafely(args: Parameters<typeof summarizeSession>[0]): Promise<void> {
  const work = summarizeSession(args).catch((error) => console.error(`[swarmdeck] session summary of task ${args.taskId} failed`, error));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, SUMMARY_WAIT_MS)))]);
  clearTimeout(timer);
}

/** Marks the task's latest session's summary status (stored | skipped | failed). */
export async function markSessionSummary(taskId: string, status: "stored" | "skipped" | "failed"): Promise<void> {
  if (usesPostgres()) {
    const { pgSql } = await import("@/lib/pg");
    await pgSql().run(
      `UPDATE "Session" SET "summaryStatus" = $1
       WHERE "id" = (SELECT "id" FROM "Session" WHERE "taskId" = $2 ORDER BY "startedAt" DESC, "id" DESC LIMIT 1)`,
      [status, taskId],
    );
    return;
  }
  await writeTransaction((sqlite) => {
    prepare(
      sqlite,
      "UPDATE Session SET summaryStatus = ? WHERE id = (SELECT id FROM Session WHERE taskId = ? ORDER BY startedAt DESC LIMIT 1)",
    ).run(status, taskId);
  });
}
