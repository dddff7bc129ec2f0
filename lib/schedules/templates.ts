// The shipped schedule templates (reference 001, P11) as data. They are seeded
// disabled at first start (lib/seed/seed.ts) for an operator to enable; the
// per-agent retrospective can also be created for each agent from the page.
export type ScheduleTemplate = {
  key: string;
  name: string;
  cron: string;
  /** Who it is for: each worker, or the lead. */
  target: "each_agent" | "lead";
  taskTitle: string;
  taskDescription: string;
  taskType: string;
  taskTags: string[];
  taskPriority: number;
};

export const SCHEDULE_TEMPLATES: readonly ScheduleTemplate[] = [
  {
    key: "weekly-retrospective",
    name: "Weekly retrospective",
    cron: "0 9 * * 1",
    target: "each_agent",
    taskTitle: "Weekly retrospective",
    taskType: "retrospective",
    taskTags: ["retrospective", "self-improvement"],
    taskPriority: 0,
    taskDescription: [
      "Review your last 7 days of task completions and session summaries.",
      "1. Search your memories for the past week's work.",
      "2. Identify the top 3 learnings.",
      "3. Update your IDENTITY.md if your expertise has grown.",
      "4. Update your TOOLS.md if you discovered new tools or services.",
      "5. Store a consolidated summary of the week as a memory (source: reflection).",
    ].join("\n"),
  },
  {
    key: "daily-knowledge-digest",
    name: "Daily knowledge digest",
    cron: "0 18 * * *",
    target: "lead",
    taskTitle: "Daily knowledge digest",
    taskType: "digest",
    taskTags: ["digest", "knowledge"],
    taskPriority: 0,
    taskDescription: [
      "Scan the tasks completed in the last 24 hours and their session summaries.",
      "1. Identify knowledge that should be promoted to swarm-scoped memory.",
      "2. Store each such learning as a swarm memory, named so others can find it.",
      "3. Push corrections to individual workers with a learning where one repeats a mistake.",
    ].join("\n"),
  },
  {
    key: "weekly-metrics-check",
    name: "Weekly metrics check",
    cron: "0 8 * * 1",
    target: "lead",
    taskTitle: "Weekly metrics check",
    taskType: "metrics-review",
    taskTags: ["metrics", "retrospective"],
    taskPriority: 0,
    taskDescription: [
      "Read the weekly metrics report: GET /api/v1/metrics/weekly-report (also on the Metrics page, section",
      '"Weekly report"): this week against last, the top failure reasons and the agents whose failure rate',
      "moved the most.",
      "1. For each recurring failure reason, decide whether it needs a tool, a setup-script change or a learning.",
      "2. For each agent that got worse, look at its identity changes in the same period (identity timeline) and",
      "   its outcome per SOUL.md version; propose a correction or a rollback where a change made things worse.",
      "3. Write a short swarm health summary as a swarm memory (source: reflection).",
    ].join("\n"),
  },
];

export function findTemplate(key: string): ScheduleTemplate | undefined {
  return SCHEDULE_TEMPLATES.find((template) => template.key === key);
}
