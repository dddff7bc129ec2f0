// The task's events, oldest first: status changes, claims, progress notes,
// stalls and give-backs, each with who did it and when.
import type { TaskEventDto } from "@/lib/contracts/tasks";
import { RelativeTime } from "../relative-time";
import { cn } from "../ui/cn";
import { EmptyState } from "../ui/states";

const DOT: Record<string, string> = {
  created: "bg-fg-muted",
  claimed: "bg-accent",
  progress: "bg-accent/50",
  stalled: "bg-warn",
  released: "bg-warn",
  sync: "bg-accent/50",
};

function dotFor(event: TaskEventDto): string {
  if (event.toStatus === "completed") return "bg-ok";
  if (event.toStatus === "failed") return "bg-danger";
  if (event.toStatus === "cancelled") return "bg-fg-muted";
  return DOT[event.type] ?? "bg-fg-muted";
}

function who(event: TaskEventDto): string {
  if (event.actorType === "system") return "system";
  if (event.actorType === "worker") return "worker";
  return "operator";
}

/** How much of a failure reason a "Failed: …" status event keeps (the server cuts it there). */
const FAILURE_EXCERPT = 500;
const FAILED_PREFIX = "Failed: ";

/** The event's text; a failure reason the server cut short ends in an ellipsis, not mid-word. */
export function eventText(event: Pick<TaskEventDto, "message" | "type" | "toStatus">): string {
  const message = event.message || event.type;
  const cut = event.toStatus === "failed" && message.startsWith(FAILED_PREFIX) && message.length >= FAILED_PREFIX.length + FAILURE_EXCERPT;
  return cut ? `${message.trimEnd()}…` : message;
}

export function TaskTimeline({ events }: { events: TaskEventDto[] }) {
  if (events.length === 0) return <EmptyState title="No events yet" />;
  return (
    <ol className="max-h-[32rem] space-y-0 overflow-auto px-4 py-3" data-testid="task-timeline">
      {events.map((event) => (
        <li key={event.id} className="relative flex gap-3 pb-3 last:pb-0" data-testid="task-event" data-event-type={event.type}>
          <span className={cn("mt-1.5 size-2 shrink-0 rounded-full", dotFor(event))} aria-hidden />
          <div className="min-w-0 flex-1">
            <p className={cn("text-sm [overflow-wrap:anywhere]", event.type === "progress" && "italic")} data-testid="task-event-message">
              {eventText(event)}
            </p>
            <p className="text-xs text-fg-muted">
              {event.type} · {who(event)} · <RelativeTime iso={event.createdAt} />
            </p>
          </div>
        </li>
      ))}
    </ol>
  );
}
