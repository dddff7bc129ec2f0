// Seeds the shipped schedule templates once, disabled. A marker in SwarmConfig
// records that it happened, so a template an operator deleted stays deleted.
import "server-only";
import { appendAudit, SYSTEM_ACTOR } from "@/lib/audit/audit-log";
import { db } from "@/lib/db";
import { SCHEDULE_TEMPLATES } from "./templates";

export const TEMPLATES_SEEDED_KEY = "SCHEDULE_TEMPLATES_SEEDED";

export async function seedScheduleTemplates(): Promise<number> {
  return db.$transaction(async (tx) => {
    const marker = await tx.swarmConfig.findUnique({
      where: { scope_scopeId_key: { scope: "global", scopeId: "", key: TEMPLATES_SEEDED_KEY } },
    });
    if (marker) return 0;
    const lead = await tx.agent.findFirst({
      where: { role: "lead", archivedAt: null },
      orderBy: { createdAt: "asc" },
      select: { id: true },
    });
    let created = 0;
    for (const template of SCHEDULE_TEMPLATES) {
      if (await tx.schedule.findFirst({ where: { templateKey: template.key }, select: { id: true } })) continue;
      const row = await tx.schedule.create({
        data: {
          name: template.name,
          templateKey: template.key,
          cron: template.cron,
          timezone: "UTC",
          enabled: false,
          agentId: template.target === "lead" ? (lead?.id ?? null) : null,
          taskTitle: template.taskTitle,
          taskDescription: template.taskDescription,
          taskType: template.taskType,
          taskTags: JSON.stringify(template.taskTags),
          taskPriority: template.taskPriority,
        },
      });
      await appendAudit(tx, {
        actor: SYSTEM_ACTOR,
        action: "schedule.created",
        targetType: "schedule",
        targetId: row.id,
        data: { name: row.name, templateKey: template.key, enabled: false },
      });
      created += 1;
    }
    await tx.swarmConfig.create({
      data: { scope: "global", scopeId: "", key: TEMPLATES_SEEDED_KEY, value: SCHEDULE_TEMPLATES.map((t) => t.key).join(",") },
    });
    return created;
  });
}
