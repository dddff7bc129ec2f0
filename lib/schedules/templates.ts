// The shipped schedule templates (reference 001: P11's retrospectives, review
// and digest; Gap 10's weekly metrics check) as data. They are offered when the
// first lead agent is created (lib/schedules/lead-templates.ts), and stay on the
// Schedules page for later; nothing is installed before a lead exists.
export type ScheduleTemplate = {
  key: string;
  name: string;
  cron: string;
  /** Who gets a task at each firing: every agent (one task each), or the lead(s). */
  targetKind: "all" | "leads";
  taskTitle: string;
  /** What it does in a sentence or two, for the page that offers it (`code` spans in backticks). */
  summary: string;
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
    targetKind: "all",
    taskTitle: "Weekly retrospective",
    summary:
      "Every agent reviews its last 7 days of work and picks its top 3 learnings. It updates `IDENTITY.md` and `TOOLS.md` where they have grown, and stores a summary of the week as a memory.",
    taskType: "retrospective",
    taskTags: ["retrospective", "self-improvement"],
    taskPriority: 0,
    taskDescription: [
      "Review your last 7 days of task completions and session summaries.",
      "1. Search your memories for the past week's work.",
      "2. Identify the top 3 learnings.",
      "3. Update your IDENTITY.md if your expertise has grown.",
      "4. Update your TOOLS.md if you discovered new tools or services.",
      '5. Store a consolidated summary of the week as a memory: `swarm memory store --name "Week of <date>" --file F`.',
    ].join("\n"),
  },
  {
    key: "daily-knowledge-digest",
    name: "Daily knowledge digest",
    cron: "0 18 * * *",
    targetKind: "leads",
    taskTitle: "Daily knowledge digest",
    summary:
      "The lead scans the tasks completed in the last 24 hours and promotes what others should know to swarm memory. An agent that repeats a mistake is sent a correction.",
    taskType: "digest",
    taskTags: ["digest", "knowledge"],
    taskPriority: 0,
    taskDescription: [
      "Scan the tasks completed in the last 24 hours and their session summaries:",
      "`swarm swarm tasks --status completed --since 24h` (`swarm swarm task <id>` shows one whole).",
      "1. Identify knowledge that should be promoted to swarm-scoped memory.",
      "2. Store each such learning as a swarm memory, named so others can find it:",
      "   `swarm memory store --name N --file F --scope swarm`.",
      "3. Where one agent repeats a mistake, push it a correction:",
      '   `swarm learn --agent <name> --category mistake-pattern "what to do instead"`.',
    ].join("\n"),
  },
  {
    key: "weekly-metrics-check",
    name: "Weekly metrics check",
    cron: "0 8 * * 1",
    targetKind: "leads",
    taskTitle: "Weekly metrics check",
    summary:
      "The lead reads the weekly report (`swarm swarm report`) and reports the trends. Above a 30% failure rate it investigates the top failure reasons and gives the agents that keep failing a learning.",
    taskType: "metrics-review",
    taskTags: ["metrics", "retrospective"],
    taskPriority: 0,
    taskDescription: [
      "Mandatory weekly metrics check. Read the weekly report: `swarm swarm report` (this week against last:",
      "completed and failed tasks, the failure rate, the top failure reasons and which agents they come from,",
      "the agents whose failure rate moved the most). Report the trends in your output.",
      "If the failure rate is above 30%:",
      "1. Investigate the top 3 failure reasons: `swarm swarm failures --since 7d`, then the failed tasks",
      "   themselves (`swarm swarm tasks --status failed --since 7d --agent <name>`).",
      "2. For each, decide whether it needs a tool, a setup-script change or a learning; give the agent that",
      '   keeps failing a learning (`swarm learn --agent <name> --category mistake-pattern "..." [--claude-md]`),',
      "   and name in your output the corrective work that is needed.",
      "3. For an agent that got worse, compare its outcomes per SOUL.md version (`swarm swarm outcomes --agent",
      "   <name>`) with its identity changes in the same period.",
      "4. Store a short swarm health summary as a swarm memory (`swarm memory store --scope swarm`).",
    ].join("\n"),
  },
  {
    key: "monthly-swarm-review",
    name: "Monthly swarm review",
    cron: "0 10 1 * *",
    targetKind: "leads",
    taskTitle: "Monthly swarm review",
    summary:
      "The lead reviews a month of every worker's task outputs and identity changes. It coaches the workers who need it and stores a swarm health report as a swarm memory.",
    taskType: "swarm-review",
    taskTags: ["retrospective", "swarm-review"],
    taskPriority: 0,
    taskDescription: [
      "Review all workers' recent task outputs and identity changes.",
      "1. Read the month: `swarm swarm agents`, `swarm swarm tasks --since 30d` (`--agent <name>`, `--status failed`),",
      "   `swarm swarm failures --since 30d`, and each agent's outcomes per SOUL.md version",
      "   (`swarm swarm outcomes --agent <name>`).",
      '2. Find patterns across the swarm: `swarm memory search "..." --scope all`.',
      "3. Identify the workers who need coaching, and push each a correction:",
      '   `swarm learn --agent <name> --category mistake-pattern "..." [--claude-md]`; a lesson for everyone:',
      '   `swarm learn --swarm --category best-practice "..."`.',
      '4. Store a swarm health report as a swarm memory (`swarm memory store --name "Swarm review <month>" --file F --scope swarm`).',
    ].join("\n"),
  },
];

export function findTemplate(key: string): ScheduleTemplate | undefined {
  return SCHEDULE_TEMPLATES.find((template) => template.key === key);
}
