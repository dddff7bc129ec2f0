// The PostgreSQL twin of alerts.ts: the same evaluation in one transaction. Several
// app instances may evaluate at once (a fail-over overlap of the leader, lib/jobs/leader.ts),
// so the evaluation first takes a cluster-wide advisory lock for its transaction:
// the second evaluator waits, then sees the first one's alerts and opens no duplicate.
// The partial unique index of migration 20261126110300_alerts_schedules backs this
// up (one open alert per scope and agent). Audit events are appended last, so the
// audit chain's lock is held only briefly.
import "server-only";
import type { AuditInput } from "@/lib/audit/audit-log";
import { appendAuditPg } from "@/lib/audit/audit-log.pg";
import type { AlertDto } from "@/lib/contracts/metrics";
import { agentNamesPg, readRollupsPg } from "@/lib/metrics/task-metrics.pg";
import { pgSql, pgTransaction, type Sql } from "@/lib/pg";
import { type Clock, systemClock } from "@/lib/schedules/clock";
import { readAlertConfigPg } from "./alert-config.pg";
import { type AlertRow, alertSteps, alertWindow, firedAlert, measureRows, resolvedAlert, SCOPE_KEY, toDto } from "./alerts";
import { sendAlertWebhook } from "./webhook";

const COLUMNS = `"id", "scope", "agentId", "windowDays", "threshold", "failureRate", "failed", "total", "firedAt", "resolvedAt"`;

export async function evaluateAlertsPg({ clock = systemClock }: { clock?: Clock } = {}) {
  const now = clock();
  const result = await pgTransaction(async (sql) => {
    await sql.get(`SELECT pg_advisory_xact_lock(hashtext('swarmdeck:alerts'))`);
    const config = await readAlertConfigPg(sql);
    const names = await agentNamesPg(sql);
    const open = new Map(
      (await sql.all<AlertRow>(`SELECT ${COLUMNS} FROM "Alert" WHERE "resolvedAt" IS NULL`)).map((row) => [
        SCOPE_KEY(row.scope, row.agentId),
        row,
      ]),
    );
    const audits: AuditInput[] = [];
    const fired: AlertDto[] = [];
    const resolved: AlertDto[] = [];
    const measures = measureRows(await readRollupsPg(sql, alertWindow(config, now)));
    for (const step of alertSteps(measures, open, config)) {
      const { current } = step;
      if (step.kind === "update") {
        await sql.run(`UPDATE "Alert" SET "failureRate" = $1, "failed" = $2, "total" = $3 WHERE "id" = $4`, [
          current.rate,
          current.failed,
          current.total,
          step.alert.id,
        ]);
      } else if (step.kind === "fire") {
        const { row, dto, audit } = firedAlert(step, config, now, names);
        await sql.run(
          `INSERT INTO "Alert" ("id", "scope", "agentId", "windowDays", "threshold", "failureRate", "failed", "total", "firedAt")
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [row.id, row.scope, row.agentId, row.windowDays, row.threshold, row.failureRate, row.failed, row.total, new Date(now)],
        );
        audits.push(audit);
        fired.push(dto);
      } else {
        await sql.run(`UPDATE "Alert" SET "resolvedAt" = $1, "failureRate" = $2, "failed" = $3, "total" = $4 WHERE "id" = $5`, [
          new Date(now),
          current.rate,
          current.failed,
          current.total,
          step.alert.id,
        ]);
        const { dto, audit } = resolvedAlert(step.alert, current, now, names);
        audits.push(audit);
        resolved.push(dto);
      }
    }
    for (const audit of audits) await appendAuditPg(sql, audit);
    return { config, fired, resolved };
  });
  for (const alert of result.fired) await sendAlertWebhook(alert);
  return result;
}

async function readAlerts(sql: Sql, includeResolved: boolean, now: number): Promise<AlertRow[]> {
  return includeResolved
    ? sql.all<AlertRow>(
        `SELECT ${COLUMNS} FROM "Alert" WHERE "resolvedAt" IS NULL OR "resolvedAt" >= $1 ORDER BY "firedAt" DESC, "id" DESC`,
        [new Date(now - 7 * 86_400_000)],
      )
    : sql.all<AlertRow>(`SELECT ${COLUMNS} FROM "Alert" WHERE "resolvedAt" IS NULL ORDER BY "firedAt" DESC, "id" DESC`);
}

export async function listAlertsPg({ includeResolved = false, clock = systemClock }: { includeResolved?: boolean; clock?: Clock } = {}) {
  const sql = pgSql();
  const names = await agentNamesPg(sql);
  const rows = await readAlerts(sql, includeResolved, clock());
  return { alerts: rows.map((row) => toDto(row, names)), config: await readAlertConfigPg(sql) };
}
