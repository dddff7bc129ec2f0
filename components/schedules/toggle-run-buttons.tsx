"use client";

// Enable/Disable and Run now, as the Schedules list and a schedule's own page both show them.
import { Play } from "lucide-react";
import { Button } from "@/components/ui/button";
import type { ScheduleDto } from "@/lib/contracts/schedules";
import type { useScheduleActions } from "./schedule-actions";

export function ToggleRunButtons({
  schedule: s,
  actions,
  runVariant,
}: {
  schedule: ScheduleDto;
  actions: ReturnType<typeof useScheduleActions>;
  /** The list makes Run now quieter than Disable (ghost); the schedule's page shows both alike. */
  runVariant: "secondary" | "ghost";
}) {
  return (
    <>
      <Button
        size="sm"
        variant="secondary"
        busy={actions.busy === `toggle-${s.id}`}
        onClick={() => actions.toggle(s)}
        data-testid="schedule-toggle"
      >
        {s.enabled ? "Disable" : "Enable"}
      </Button>
      <Button
        size="sm"
        variant={runVariant}
        title={`Run “${s.name}” now`}
        busy={actions.busy === `run-${s.id}`}
        onClick={() => actions.runNow(s)}
        data-testid="schedule-run"
      >
        <Play className="size-4" aria-hidden /> Run now
      </Button>
    </>
  );
}
