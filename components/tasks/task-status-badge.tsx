import type { TaskStatus } from "@/lib/contracts/tasks";
import { Badge } from "../ui/badge";

const LOOK: Record<TaskStatus, { label: string; tone: "neutral" | "accent" | "ok" | "warn" | "danger" }> = {
  unassigned: { label: "In the pool", tone: "neutral" },
  offered: { label: "Proposed", tone: "warn" },
  pending: { label: "Pending", tone: "neutral" },
  in_progress: { label: "In progress", tone: "accent" },
  completed: { label: "Completed", tone: "ok" },
  failed: { label: "Failed", tone: "danger" },
  cancelled: { label: "Cancelled", tone: "neutral" },
};

export function taskStatusLabel(status: TaskStatus): string {
  return LOOK[status].label;
}

export function TaskStatusBadge({ status, testId = "task-status" }: { status: TaskStatus; testId?: string }) {
  const look = LOOK[status];
  return (
    <Badge tone={look.tone} className={status === "cancelled" ? "line-through decoration-fg-muted/60" : undefined}>
      {status === "in_progress" ? <span className="size-1.5 animate-pulse rounded-full bg-current" aria-hidden /> : null}
      <span data-testid={testId}>{look.label}</span>
    </Badge>
  );
}
