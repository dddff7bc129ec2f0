"use client";

// What the Schedules list and a schedule's own page both do to a schedule: run it now
// (saying what it created and whom it skipped) and enable or disable it.
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { toast } from "sonner";
import { api, describeError } from "@/lib/api-client";
import type { ScheduleDto } from "@/lib/contracts/schedules";

type RunAnswer = { taskIds: string[]; skips: Array<{ agentName: string | null; reason: string }> };

/** Run now and Enable/Disable, with their toasts; afterwards the schedule lists, the schedule and its runs are refetched. */
export function useScheduleActions() {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState<string | null>(null);
  const refresh = async (id: string) => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: ["schedules"] }),
      queryClient.invalidateQueries({ queryKey: ["schedule", id] }),
      queryClient.invalidateQueries({ queryKey: ["schedule-runs", id] }),
    ]);
  };

  async function runNow(s: ScheduleDto) {
    setBusy(`run-${s.id}`);
    try {
      const { run } = await api<{ run: RunAnswer }>(`/api/v1/schedules/${s.id}/run`, { method: "POST" });
      const skipped = run.skips.length ? `; skipped: ${run.skips.map((k) => `${k.agentName ?? "pool"} (${k.reason})`).join(", ")}` : "";
      if (run.taskIds.length === 0) toast.warning(`Nothing created from "${s.name}"${skipped}`);
      else toast.success(`${run.taskIds.length === 1 ? "Task" : `${run.taskIds.length} tasks`} created from "${s.name}"${skipped}`);
      await refresh(s.id);
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setBusy(null);
    }
  }

  async function toggle(s: ScheduleDto) {
    setBusy(`toggle-${s.id}`);
    try {
      await api(`/api/v1/schedules/${s.id}`, { method: "PATCH", body: { enabled: !s.enabled } });
      toast.success(s.enabled ? "Schedule disabled" : "Schedule enabled");
      await refresh(s.id);
    } catch (error) {
      toast.error(describeError(error));
    } finally {
      setBusy(null);
    }
  }

  return { busy, runNow, toggle };
}
