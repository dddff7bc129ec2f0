// How the lead's `swarm` commands print the app's answers: short readable text
// for an agent to read, or the JSON as it came with --json.
// biome-ignore-all lint/suspicious/noExplicitAny: JSON answers of the app, printed as they come
import type { LeadCommand } from "./swarm-lead-args";

const pct = (rate: number | null | undefined) => (rate === null || rate === undefined ? "-" : `${Math.round(rate * 100)}%`);
const one = (text: string | null | undefined, max = 200) => {
  const line = (text ?? "").replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
};

function tasks(body: any): string[] {
  const lines = (body.tasks ?? []).map((task: any) => {
    const when = (task.finishedAt ?? task.createdAt ?? "").slice(0, 16).replace("T", " ");
    const head = `${task.id}  ${task.status.padEnd(11)} ${(task.agentName ?? "(pool)").padEnd(16)} ${when}  ${task.title}`;
    const detail = task.status === "failed" ? task.failureReason : (task.summary ?? task.output);
    return detail ? `${head}\n    ${task.status === "failed" ? "failure" : "result"}: ${one(detail)}` : head;
  });
  if (lines.length === 0) lines.push("no tasks matched");
  if (body.nextCursor) lines.push(`(more: --cursor ${body.nextCursor})`);
  return lines;
}

function task(body: any): string[] {
  const t = body.task;
  const lines = [
    `# ${t.title}`,
    `id ${t.id} · ${t.status} · agent ${t.agentName ?? "(pool)"} · type ${t.type}${t.tags.length ? ` · tags ${t.tags.join(", ")}` : ""}`,
  ];
  if (t.description) lines.push("", t.description);
  if (t.failureReason) lines.push("", "## Failure", t.failureReason);
  if (t.summary) lines.push("", "## Summary", t.summary);
  if (t.output) lines.push("", "## Output", t.output);
  return lines;
}

function agents(body: any): string[] {
  return (body.agents ?? []).map(
    (a: any) =>
      `${a.name.padEnd(20)} ${a.role.padEnd(6)} ${a.status.padEnd(7)} waiting ${a.openTasks?.waiting ?? 0}, running ${a.openTasks?.running ?? 0}${a.capabilities?.length ? `  [${a.capabilities.join(", ")}]` : ""}`,
  );
}

function failureGroup(group: any): string[] {
  const who = (group.byAgent ?? []).map((a: any) => `${a.agentName ?? "(pool)"} ×${a.count}`).join(", ");
  return [
    `- ${group.count}× ${one(group.example || group.key)}`,
    `    agents: ${who || group.agents}${group.lastWeekCount !== undefined ? ` · last week ${group.lastWeekCount}×` : ""}`,
  ];
}

function report(body: any): string[] {
  const w = body.thisWeek;
  const l = body.lastWeek;
  const lines = [
    `Week ${w.from} .. ${w.to} against ${l.from} .. ${l.to}`,
    `completed ${w.tasks.completed} (last week ${l.tasks.completed}), failed ${w.tasks.failed} (last week ${l.tasks.failed}), failure rate ${pct(w.tasks.failureRate)} (last week ${pct(l.tasks.failureRate)})`,
    "",
    "Top failure reasons:",
  ];
  if (!body.topFailureReasons?.length) lines.push("  none");
  for (const group of body.topFailureReasons ?? []) lines.push(...failureGroup(group));
  lines.push("", "Biggest changes per agent:");
  if (!body.biggestChanges?.length) lines.push("  none");
  for (const a of body.biggestChanges ?? []) {
    lines.push(
      `- ${a.agentName}: failure rate ${pct(a.thisWeek.failureRate)} (last week ${pct(a.lastWeek.failureRate)}), completed ${a.thisWeek.completed}, failed ${a.thisWeek.failed}`,
    );
  }
  return lines;
}

function failures(body: any): string[] {
  const lines = [`${body.totalFailed} failed task(s) ${body.range.from} .. ${body.range.to}, ${body.groupCount} distinct reason(s)`];
  for (const group of body.groups ?? []) lines.push(...failureGroup(group));
  return lines;
}

function outcomes(body: any): string[] {
  const lines = [`${body.agentName}: outcomes per SOUL.md version`];
  for (const v of body.versions ?? []) {
    lines.push(
      `- v${v.number} (${v.source}${v.createdAt ? `, ${v.createdAt.slice(0, 10)}` : ""}): ${v.tasks} task(s), success ${pct(v.successRate)}${v.reason ? ` · ${one(v.reason, 80)}` : ""}`,
    );
  }
  return lines;
}

function learned(body: any): string[] {
  const lines = [`learning stored (memory ${body.memoryIds?.join(", ")}) for ${body.scope === "swarm" ? "the whole swarm" : "the agent"}`];
  const note = body.claudeMd;
  if (note?.status === "applied") lines.push(`CLAUDE.md note applied (version ${note.versionId})`);
  if (note?.status === "pending") lines.push(`CLAUDE.md note waits for an operator's review (proposal ${note.proposalId})`);
  if (note?.status === "refused") lines.push(`CLAUDE.md note refused: ${note.message}`);
  return lines;
}

const VIEWS = { tasks, task, agents, report, failures, outcomes } as const;

export function printLead(cmd: LeadCommand, body: unknown): string {
  if (cmd.command === "learn") return learned(body).join("\n");
  if (cmd.json) return JSON.stringify(body, null, 2);
  return VIEWS[cmd.view](body).join("\n");
}
