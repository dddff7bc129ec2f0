// Who gets a task when a schedule fires (reference 001, P11: a retrospective
// for each agent, digests and reviews for the lead): one agent, the lead(s),
// every agent, every agent with a role or a capability tag, or the pool. One
// task per agent. A target gets none, with the reason kept on the run, when its
// agent is offline or a task from an earlier run of the same schedule is still
// open for it (the pool likewise).
import "server-only";
import type Database from "better-sqlite3";
import { offlineAfterMs } from "@/lib/agents/agents";
import { prepare } from "@/lib/db";

export type TargetKind = "agent" | "leads" | "all" | "role" | "tag" | "pool";
export type Recipient = { agentId: string | null; agentName: string | null };
export type Skip = { agentId: string | null; agentName: string | null; reason: string };
export type RunPlan = { recipients: Recipient[]; skips: Skip[]; error: string | null };

export type TargetedSchedule = { id: string; targetKind: string; targetValue: string | null; agentId: string | null };
export type AgentRow = { id: string; name: string; lastSeenAt: number | null };

const OPEN = "('unassigned', 'offered', 'pending', 'in_progress')";

function agentsOf(sqlite: Database.Database, schedule: TargetedSchedule): AgentRow[] | string {
  const base = "SELECT id, name, lastSeenAt FROM Agent WHERE archivedAt IS NULL";
  switch (schedule.targetKind) {
    case "agent": {
      const agent = prepare(sqlite, `${base} AND id = ?`).get(schedule.agentId) as AgentRow | undefined;
      return agent ? [agent] : "The target agent is archived or deleted; no task was created";
    }
    case "leads":
      return prepare(sqlite, `${base} AND role = 'lead' ORDER BY name`).all() as AgentRow[];
    case "all":
      return prepare(sqlite, `${base} ORDER BY name`).all() as AgentRow[];
    case "role":
      return prepare(sqlite, `${base} AND role = ? ORDER BY name`).all(schedule.targetValue) as AgentRow[];
    case "tag":
      return prepare(
        sqlite,
        `${base} AND EXISTS (SELECT 1 FROM json_each(Agent.capabilities) WHERE json_each.value = ?) ORDER BY name`,
      ).all(schedule.targetValue) as AgentRow[];
    default:
      return [];
  }
}

/** A plain description of a target ("every agent tagged frontend"). */
export function describeTarget(kind: string, value: string | null, agentName: string | null): string {
  switch (kind) {
    case "agent":
      return agentName ? `for ${agentName}` : "for an agent that is gone";
    case "leads":
      return "for the lead(s)";
    case "all":
      return "for every agent";
    case "role":
      return `for every ${value ?? "?"} agent`;
    case "tag":
      return `for every agent tagged ${value ?? "?"}`;
    default:
      return "for the pool (any agent)";
  }
}

type OpenTask = { id: string; status: string };

const stillOpen = (task: OpenTask) => `The previous run's task ${task.id} is still ${task.status.replace("_", " ")}`;

/** The pool's plan, given the open task of an earlier run (both stores). */
export function poolPlan(open: OpenTask | undefined): RunPlan {
  return open
    ? { recipients: [], skips: [{ agentId: null, agentName: null, reason: stillOpen(open) }], error: null }
    : { recipients: [{ agentId: null, agentName: null }], skips: [], error: null };
}

/** The plan when no active agent matches the target (both stores). */
export function noMatchPlan(schedule: TargetedSchedule): RunPlan {
  const who = describeTarget(schedule.targetKind, schedule.targetValue, null).replace(/^for /, "");
  return { recipients: [], skips: [{ agentId: null, agentName: null, reason: `No active agent matches (${who})` }], error: null };
}

/** One target agent into the plan (both stores): skipped with its open task or when offline, a recipient otherwise. */
export function planAgent(plan: RunPlan, agent: AgentRow, open: OpenTask | undefined, seenNow: number): void {
  if (open) {
    plan.skips.push({ agentId: agent.id, agentName: agent.name, reason: stillOpen(open) });
  } else if (agent.lastSeenAt === null || seenNow - agent.lastSeenAt >= offlineAfterMs()) {
    const since = agent.lastSeenAt === null ? "its worker has never called in" : `last seen ${new Date(agent.lastSeenAt).toISOString()}`;
    plan.skips.push({ agentId: agent.id, agentName: agent.name, reason: `The agent is offline (${since})` });
  } else {
    plan.recipients.push({ agentId: agent.id, agentName: agent.name });
  }
}

/**
 * The recipients of one firing, and the targets skipped with their reasons.
 * `seenNow` is the real time the agents' lastSeenAt is written in (the
 * scheduler's clock may be shifted in tests).
 */
export function planRun(sqlite: Database.Database, schedule: TargetedSchedule, seenNow: number): RunPlan {
  const openTask = (agentId: string | null) =>
    (agentId === null
      ? prepare(sqlite, `SELECT id, status FROM Task WHERE scheduleId = ? AND agentId IS NULL AND status IN ${OPEN} LIMIT 1`).get(
          schedule.id,
        )
      : prepare(sqlite, `SELECT id, status FROM Task WHERE scheduleId = ? AND agentId = ? AND status IN ${OPEN} LIMIT 1`).get(
          schedule.id,
          agentId,
        )) as OpenTask | undefined;

  if (schedule.targetKind === "pool") return poolPlan(openTask(null));
  const agents = agentsOf(sqlite, schedule);
  if (typeof agents === "string") return { recipients: [], skips: [], error: agents };
  if (agents.length === 0) return noMatchPlan(schedule);
  const plan: RunPlan = { recipients: [], skips: [], error: null };
  for (const agent of agents) planAgent(plan, agent, openTask(agent.id), seenNow);
  return plan;
}
