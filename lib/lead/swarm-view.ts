// What a lead agent reads about the swarm (reference 001: P11's retrospectives
// and digests, Gap 10's weekly metrics check), over the worker protocol. Each
// function reuses the operator's query, with agents named by name or id and
// time windows that may count back from now. Only lead agents get here
// (leadRoute in lib/api/handler.ts).
import "server-only";
import type { z } from "zod";
import { listAgents } from "@/lib/agents/agents";
import {
  LEAD_LIST_TEXT_CHARS,
  type LeadTasksQuery,
  type leadOutcomesQuerySchema,
  type leadReportQuerySchema,
  type leadWindowQuerySchema,
  resolveTimeRef,
} from "@/lib/contracts/lead";
import type { TaskDto } from "@/lib/contracts/tasks";
import { prepare, usesPostgres, withSqlite } from "@/lib/db";
import { ApiError, notFound } from "@/lib/errors";
import { getFailureRecurrence } from "@/lib/metrics/failure-reasons";
import { getSoulOutcomes } from "@/lib/metrics/identity-metrics";
import { resolveRange } from "@/lib/metrics/range";
import { utcDay } from "@/lib/metrics/rollup-day";
import { getWeeklyReport } from "@/lib/metrics/weekly-report";
import { type Clock, systemClock } from "@/lib/schedules/clock";
import { getTaskWithEvents, listTasks } from "@/lib/tasks/operator-tasks";

/** An active agent by id or name. */
export async function resolveAgentRef(ref: string): Promise<{ id: string; name: string }> {
  const agent = usesPostgres()
    ? await (await import("./swarm-view.pg")).findAgentRefPg(ref)
    : await withSqlite(
        (sqlite) =>
          prepare(sqlite, "SELECT id, name FROM Agent WHERE (id = ? OR name = ?) AND archivedAt IS NULL").get(ref, ref) as
            | { id: string; name: string }
            | undefined,
      );
  if (!agent) throw new ApiError("not_found", `No agent named "${ref}"`, { agent: ref });
  return agent;
}

function window(query: { since?: string; until?: string }, now: number) {
  const sinceMs = query.since ? resolveTimeRef(query.since, now) : undefined;
  const untilMs = query.until ? resolveTimeRef(query.until, now) : undefined;
  if (sinceMs !== undefined && untilMs !== undefined && sinceMs >= untilMs) {
    throw new ApiError("validation_failed", "since must be before until", [{ path: "since", message: "after until" }]);
  }
  return { sinceMs, untilMs };
}

function clip(text: string | null): string | null {
  return text && text.length > LEAD_LIST_TEXT_CHARS
    ? `${text.slice(0, LEAD_LIST_TEXT_CHARS)}\n[... cut; swarm swarm task <id> has it all]`
    : text;
}

/** The swarm's tasks, newest first, long texts cut (one task's read has them whole). */
export async function leadListTasks({ query, clock = systemClock }: { query: LeadTasksQuery; clock?: Clock }) {
  const { agent, since, until, ...rest } = query;
  const agentId = agent ? (await resolveAgentRef(agent)).id : undefined;
  const page = await listTasks({ ...rest, agentId }, window({ since, until }, clock()));
  const tasks: TaskDto[] = page.tasks.map((task) => ({
    ...task,
    output: clip(task.output),
    summary: clip(task.summary),
    failureReason: clip(task.failureReason),
  }));
  return { tasks, nextCursor: page.nextCursor };
}

export function leadGetTask({ id }: { id: string }) {
  return getTaskWithEvents({ id });
}

/** Every active agent with its status (idle, busy, offline) and its open work. */
export async function leadListAgents() {
  const agents = await listAgents();
  const open = usesPostgres()
    ? await (await import("./swarm-view.pg")).openTaskCountsPg()
    : await withSqlite(
        (sqlite) =>
          prepare(
            sqlite,
            "SELECT agentId, status, count(*) AS n FROM Task WHERE agentId IS NOT NULL AND status IN ('offered', 'pending', 'in_progress') GROUP BY agentId, status",
          ).all() as Array<{ agentId: string; status: string; n: number }>,
      );
  return {
    agents: agents.map((agent) => {
      const mine = open.filter((row) => row.agentId === agent.id);
      const count = (status: string) => mine.find((row) => row.status === status)?.n ?? 0;
      return { ...agent, openTasks: { waiting: count("offered") + count("pending"), running: count("in_progress") } };
    }),
  };
}

export function leadWeeklyReport({ query, clock = systemClock }: { query: z.infer<typeof leadReportQuerySchema>; clock?: Clock }) {
  return getWeeklyReport({ clock, endDay: query.to });
}

/** Failure recurrence over whole UTC days (default the last 7), per agent when asked. */
export async function leadFailures({ query, clock = systemClock }: { query: z.infer<typeof leadWindowQuerySchema>; clock?: Clock }) {
  const now = clock();
  const { sinceMs, untilMs } = window(query, now);
  const to = utcDay((untilMs ?? now + 1) - 1);
  const from = utcDay(sinceMs ?? now - 6 * 86_400_000);
  const agentId = query.agent ? (await resolveAgentRef(query.agent)).id : undefined;
  return getFailureRecurrence({ range: resolveRange({ from, to }, clock), agentId });
}

/** One agent's outcome under each SOUL.md version. */
export async function leadOutcomes({ query }: { query: z.infer<typeof leadOutcomesQuerySchema> }) {
  const agent = await resolveAgentRef(query.agent);
  const outcomes = await getSoulOutcomes({ agentId: agent.id });
  if (!outcomes) throw notFound("Agent");
  return { agentName: agent.name, ...outcomes };
}
