// The learning-loop templates (templates.ts) as an offer: made when the first
// lead agent is created (the create-agent answer carries it, the browser shows
// it), and kept on the Schedules page while a lead exists and a template is not
// installed. Installing creates enabled schedules that target every agent or
// the lead(s), so no lead task ever lands in the pool.
import "server-only";
import type { Actor } from "@/lib/audit/audit-log";
import type { ScheduleDto } from "@/lib/contracts/schedules";
import { db } from "@/lib/db";
import { ApiError } from "@/lib/errors";
import type { Clock } from "./clock";
import { createSchedule } from "./schedules";
import { describeTarget } from "./targets";
import { findTemplate, SCHEDULE_TEMPLATES } from "./templates";

export type TemplateOffer = {
  /** Whether a lead exists: the templates need one. */
  leadExists: boolean;
  templates: Array<(typeof SCHEDULE_TEMPLATES)[number] & { targetDescription: string; installed: boolean }>;
};

export async function templateOffer(): Promise<TemplateOffer> {
  const [lead, installed] = await Promise.all([
    db.agent.findFirst({ where: { role: "lead", archivedAt: null }, select: { id: true } }),
    db.schedule.findMany({ where: { templateKey: { not: null } }, select: { templateKey: true } }),
  ]);
  const keys = new Set(installed.map((row) => row.templateKey));
  return {
    leadExists: lead !== null,
    templates: SCHEDULE_TEMPLATES.map((template) => ({
      ...template,
      targetDescription: describeTarget(template.targetKind, null, null),
      installed: keys.has(template.key),
    })),
  };
}

/** The offer to make with a newly created agent: only for the swarm's first lead, and only while something is left to install. */
export async function offerForNewAgent(agent: { id: string; role: string }): Promise<TemplateOffer | null> {
  if (agent.role !== "lead") return null;
  const otherLead = await db.agent.findFirst({ where: { role: "lead", archivedAt: null, id: { not: agent.id } }, select: { id: true } });
  if (otherLead) return null;
  const offer = await templateOffer();
  return offer.templates.some((template) => !template.installed) ? offer : null;
}

export async function installTemplates({
  keys,
  enabled,
  actor,
  clock,
}: {
  keys: string[];
  enabled: boolean;
  actor: Actor;
  clock?: Clock;
}): Promise<{ schedules: ScheduleDto[]; alreadyInstalled: string[] }> {
  const unknown = keys.filter((key) => !findTemplate(key));
  if (unknown.length)
    throw new ApiError("validation_failed", `Unknown template: ${unknown.join(", ")}`, [{ path: "keys", message: "unknown" }]);
  const offer = await templateOffer();
  if (!offer.leadExists) throw new ApiError("conflict", "Create a lead agent first: these schedules give the lead its tasks");
  const installed = new Set(offer.templates.filter((template) => template.installed).map((template) => template.key));
  const schedules: ScheduleDto[] = [];
  for (const key of [...new Set(keys)]) {
    const template = findTemplate(key);
    if (!template || installed.has(key)) continue;
    schedules.push(
      await createSchedule({
        input: {
          name: template.name,
          templateKey: template.key,
          cron: template.cron,
          timezone: "UTC",
          enabled,
          targetKind: template.targetKind,
          taskTitle: template.taskTitle,
          taskDescription: template.taskDescription,
          taskType: template.taskType,
          taskTags: [...template.taskTags],
          taskPriority: template.taskPriority,
        },
        actor,
        clock,
      }),
    );
  }
  return { schedules, alreadyInstalled: keys.filter((key) => installed.has(key)) };
}
