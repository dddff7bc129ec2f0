// Failure-rate alerts: for the swarm and for each agent, the failure rate over
// the window (from the daily rollups) against the threshold. An alert opens once
// per episode (an Alert row, an `alert.fired` audit event, one webhook POST) and
// is resolved (`alert.resolved`) when the rate is back at or under the threshold
// or the window no longer holds the minimum number of tasks.
import "server-only";
import type Database from "better-sqlite3";
import { type AuditInput, appendAuditSync, SYSTEM_ACTOR } from "@/lib/audit/audit-log";
import type { AlertDto } from "@/lib/contracts/metrics";
import { prepare, usesPostgres, withSqlite, writeTransaction } from "@/lib/db";
import { newId } from "@/lib/ids";
import { addDays, dayRange } from "@/lib/metrics/range";
import { utcDay } from "@/lib/metrics/rollup-day";
import { agentNames, type RollupRow, readRollups } from "@/lib/metrics/task-metrics";
import { type Clock, systemClock } from "@/lib/schedules/clock";
import { type AlertConfig, readAlertConfig } from "./alert-config";
import { sendAlertWebhook } from "./webhook";

export type AlertRow = {
  id: string;
  scope: "swarm" | "agent";
  agentId: string | null;
  windowDays: number;
  threshold: number;
  failureRate: number;
  failed: number;
  total: number;
  firedAt: number;
  resolvedAt: number | null;
};

export type Measure = { scope: "swarm" | "agent"; agentId: string | null; failed: number; total: number };

export const SCOPE_KEY = (scope: string, agentId: string | null) => `${scope}:${agentId ?? ""}`;

function measure(sqlite: Database.Database, config: AlertConfig, now: number): Measure[] {
  return measureRows(readRollups(sqlite, alertWindow(config, now)));
}

/** The days an evaluation at `now` looks at. */
export function alertWindow(config: AlertConfig, now: number) {
  const today = utcDay(now);
  return dayRange(addDays(today, -(config.windowDays - 1)), today);
}

/** The swarm's and each agent's failures over the window's rollup rows (shared with alerts.pg.ts). */
export function measureRows(rows: RollupRow[]): Measure[] {
  const swarm: Measure = { scope: "swarm", agentId: null, failed: 0, total: 0 };
  const agents = new Map<string, Measure>();
  for (const row of rows) {
    swarm.failed += row.failed;
    swarm.total += row.completed + row.failed;
    if (!row.agentId) continue;
    const agent = agents.get(row.agentId) ?? { scope: "agent", agentId: row.agentId, failed: 0, total: 0 };
    agent.failed += row.failed;
    agent.total += row.completed + row.failed;
    agents.set(row.agentId, agent);
  }
  return [swarm, ...agents.values()];
}

export function isFiring(m: Pick<Measure, "failed" | "total">, config: AlertConfig): boolean {
  return m.total >= config.minTasks && m.failed / m.total > config.threshold;
}

export function toDto(row: AlertRow, names: Map<string, string>): AlertDto {
  return {
    id: row.id,
    scope: row.scope,
    agentId: row.agentId,
    agentName: row.agentId ? (names.get(row.agentId) ?? "(deleted agent)") : null,
    windowDays: row.windowDays,
    threshold: row.threshold,
    failureRate: row.failureRate,
    failed: row.failed,
    total: row.total,
    firedAt: new Date(row.firedAt).toISOString(),
    resolvedAt: row.resolvedAt === null ? null : new Date(row.resolvedAt).toISOString(),
  };
}

/** An alert's failures, total and rate as measured now. */
export type AlertNumbers = { failed: number; total: number; rate: number };

/** One step of an evaluation (both stores): a firing alert's numbers updated, a new alert opened, or an alert resolved. */
export type AlertStep =
  | { kind: "update"; alert: AlertRow; current: AlertNumbers }
  | { kind: "fire"; measure: Measure; current: AlertNumbers }
  | { kind: "resolve"; alert: AlertRow; current: AlertNumbers };

/** What an evaluation does with the open alerts (by SCOPE_KEY) given the window's measures, in order (both stores). */
export function alertSteps(measures: Measure[], open: Map<string, AlertRow>, config: AlertConfig): AlertStep[] {
  const steps: AlertStep[] = [];
  const seen = new Set<string>();
  for (const m of measures) {
    const key = SCOPE_KEY(m.scope, m.agentId);
    seen.add(key);
    const existing = open.get(key);
    const current = { failed: m.failed, total: m.total, rate: m.total > 0 ? m.failed / m.total : 0 };
    if (isFiring(m, config)) steps.push(existing ? { kind: "update", alert: existing, current } : { kind: "fire", measure: m, current });
    else if (existing) steps.push({ kind: "resolve", alert: existing, current });
  }
  // Open alerts of agents with no tasks left in the window.
  for (const [key, existing] of open) {
    if (!seen.has(key)) steps.push({ kind: "resolve", alert: existing, current: { failed: 0, total: 0, rate: 0 } });
  }
  return steps;
}

function alertAudit(action: "alert.fired" | "alert.resolved", dto: AlertDto): AuditInput {
  return { actor: SYSTEM_ACTOR, action, targetType: "alert", targetId: dto.id, agentId: dto.agentId, data: { ...dto } };
}

/** A new alert (both stores): its row, its DTO and its `alert.fired` audit input. */
export function firedAlert(
  step: { measure: Measure; current: AlertNumbers },
  config: AlertConfig,
  now: number,
  names: Map<string, string>,
): { row: AlertRow; dto: AlertDto; audit: AuditInput } {
  const row: AlertRow = {
    id: newId(),
    ...step.measure,
    windowDays: config.windowDays,
    threshold: config.threshold,
    failureRate: step.current.rate,
    firedAt: now,
    resolvedAt: null,
  };
  const dto = toDto(row, names);
  return { row, dto, audit: alertAudit("alert.fired", dto) };
}

/** A resolved alert (both stores): its DTO and its `alert.resolved` audit input. */
export function resolvedAlert(
  row: AlertRow,
  current: AlertNumbers,
  now: number,
  names: Map<string, string>,
): { dto: AlertDto; audit: AuditInput } {
  const dto = toDto({ ...row, resolvedAt: now, failureRate: current.rate, failed: current.failed, total: current.total }, names);
  return { dto, audit: alertAudit("alert.resolved", dto) };
}

const OPEN_SQL =
  "SELECT id, scope, agentId, windowDays, threshold, failureRate, failed, total, firedAt, resolvedAt FROM Alert WHERE resolvedAt IS NULL";

/** One evaluation: opens, updates and resolves alerts in one transaction, then posts the webhook for new ones. */
export async function evaluateAlerts({ clock = systemClock }: { clock?: Clock } = {}) {
  if (usesPostgres()) return (await import("./alerts.pg")).evaluateAlertsPg({ clock });
  const now = clock();
  const result = await writeTransaction((sqlite) => {
    const config = readAlertConfig(sqlite);
    const names = agentNames(sqlite);
    const open = new Map((prepare(sqlite, OPEN_SQL).all() as AlertRow[]).map((row) => [SCOPE_KEY(row.scope, row.agentId), row]));
    const fired: AlertDto[] = [];
    const resolved: AlertDto[] = [];
    for (const step of alertSteps(measure(sqlite, config, now), open, config)) {
      const { current } = step;
      if (step.kind === "update") {
        prepare(sqlite, "UPDATE Alert SET failureRate = ?, failed = ?, total = ? WHERE id = ?").run(
          current.rate,
          current.failed,
          current.total,
          step.alert.id,
        );
      } else if (step.kind === "fire") {
        const { row, dto, audit } = firedAlert(step, config, now, names);
        prepare(
          sqlite,
          "INSERT INTO Alert (id, scope, agentId, windowDays, threshold, failureRate, failed, total, firedAt) VALUES (@id, @scope, @agentId, @windowDays, @threshold, @failureRate, @failed, @total, @firedAt)",
        ).run(row);
        appendAuditSync(sqlite, audit);
        fired.push(dto);
      } else {
        prepare(sqlite, "UPDATE Alert SET resolvedAt = ?, failureRate = ?, failed = ?, total = ? WHERE id = ?").run(
          now,
          current.rate,
          current.failed,
          current.total,
          step.alert.id,
        );
        const { dto, audit } = resolvedAlert(step.alert, current, now, names);
        appendAuditSync(sqlite, audit);
        resolved.push(dto);
      }
    }
    return { config, fired, resolved };
  });
  for (const alert of result.fired) await sendAlertWebhook(alert);
  return result;
}

/** GET /api/v1/alerts: the open alerts (and, with `recent`, those resolved in the last 7 days). */
export async function listAlerts({ includeResolved = false, clock = systemClock }: { includeResolved?: boolean; clock?: Clock } = {}) {
  if (usesPostgres()) return (await import("./alerts.pg")).listAlertsPg({ includeResolved, clock });
  return withSqlite((sqlite) => {
    const names = agentNames(sqlite);
    const rows = (
      includeResolved
        ? prepare(
            sqlite,
            "SELECT id, scope, agentId, windowDays, threshold, failureRate, failed, total, firedAt, resolvedAt FROM Alert WHERE resolvedAt IS NULL OR resolvedAt >= ? ORDER BY firedAt DESC",
          ).all(clock() - 7 * 86_400_000)
        : prepare(sqlite, `${OPEN_SQL} ORDER BY firedAt DESC`).all()
    ) as AlertRow[];
    return { alerts: rows.map((row) => toDto(row, names)), config: readAlertConfig(sqlite) };
  });
}
