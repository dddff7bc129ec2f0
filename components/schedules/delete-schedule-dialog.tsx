"use client";

// Deleting a schedule, from the Schedules list and from the schedule's own page: one
// confirmation, one toast, the lists refetched.
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { toast } from "sonner";
import { ConfirmDialog } from "@/components/ui/dialog";
import { api, describeError } from "@/lib/api-client";
import type { ScheduleDto } from "@/lib/contracts/schedules";

/** Asks before deleting `schedule` (null: closed); after a delete `onDeleted` (else `onDone`), after a cancel `onDone`. */
export function DeleteScheduleDialog({
  schedule,
  onDone,
  onDeleted,
}: {
  schedule: ScheduleDto | null;
  onDone: () => void;
  onDeleted?: () => void;
}) {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  async function remove(target: ScheduleDto) {
    setBusy(true);
    try {
      await api(`/api/v1/schedules/${target.id}`, { method: "DELETE" });
      toast.success("Schedule deleted");
      // The list forgets it; its own page, if that is where this was asked, leaves
      // (onDeleted) without asking for it again, so it never flashes "not found".
      // A deleted template's schedule is offered again (components/schedules/lead-templates-card.tsx).
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: ["schedules"] }),
        queryClient.invalidateQueries({ queryKey: ["schedule-templates"] }),
      ]);
      if (onDeleted) onDeleted();
      else onDone();
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setBusy(false);
    }
  }
  return (
    <ConfirmDialog
      open={schedule !== null}
      onOpenChange={(open) => (open ? null : onDone())}
      title={`Delete "${schedule?.name ?? ""}"?`}
      description="The schedule and its run history go; tasks it already created stay."
      confirmLabel="Delete schedule"
      destructive
      busy={busy}
      onConfirm={() => {
        if (schedule) void remove(schedule);
      }}
    />
  );
}
