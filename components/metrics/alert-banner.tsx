"use client";

// The dashboard's banner for open failure-rate alerts.
import { useQuery } from "@tanstack/react-query";
import { AlertTriangle } from "lucide-react";
import Link from "next/link";
import { api } from "@/lib/api-client";
import type { AlertDto } from "@/lib/contracts/metrics";

const pct = (v: number) => `${Math.round(v * 1000) / 10}%`;

export function AlertBanner() {
  const query = useQuery({ queryKey: ["alerts"], queryFn: () => api<{ alerts: AlertDto[] }>("/api/v1/alerts"), refetchInterval: 30_000 });
  const alerts = query.data?.alerts ?? [];
  if (alerts.length === 0) return null;
  return (
    <div className="mb-4 rounded-lg border border-danger/40 bg-danger/10 px-4 py-3 text-sm" role="alert" data-testid="alert-banner">
      <div className="flex items-start gap-3">
        <AlertTriangle className="mt-0.5 size-4 shrink-0 text-danger" aria-hidden />
        <div className="min-w-0 flex-1">
          <p className="font-medium text-danger">
            {alerts.length === 1 ? "A failure-rate alert is open" : `${alerts.length} failure-rate alerts are open`}
          </p>
          <ul className="mt-1 space-y-0.5 text-fg">
            {alerts.map((alert) => (
              <li key={alert.id}>
                <span className="font-medium">{alert.scope === "swarm" ? "Whole swarm" : (alert.agentName ?? "An agent")}</span>:{" "}
                {alert.failed} of {alert.total} tasks failed ({pct(alert.failureRate)}) in the last {alert.windowDays} days, above{" "}
                {pct(alert.threshold)}. Since {new Date(alert.firedAt).toLocaleString()}.
              </li>
            ))}
          </ul>
        </div>
        <Link href="/metrics" className="shrink-0 text-accent hover:underline">
          See metrics
        </Link>
      </div>
    </div>
  );
}
