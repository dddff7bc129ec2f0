// A schedule run's outcome as a badge: every target got its task, some were
// skipped, none was (each with its reason on the run), or the run failed.
import { Badge } from "@/components/ui/badge";

const RUN_STATUS: Record<string, { label: string; tone: "ok" | "warn" | "danger" | "neutral" }> = {
  created: { label: "tasks created", tone: "ok" },
  partial: { label: "some skipped", tone: "warn" },
  skipped: { label: "skipped", tone: "neutral" },
  failed: { label: "failed", tone: "danger" },
};

export function RunStatusBadge({ status }: { status: string }) {
  const known = RUN_STATUS[status] ?? { label: status, tone: "neutral" as const };
  return (
    <Badge tone={known.tone} className="run-status">
      {known.label}
    </Badge>
  );
}
