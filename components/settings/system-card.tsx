"use client";

// What this instance runs on (GET /api/health): the kind of database and whether it answers.
import { useQuery } from "@tanstack/react-query";
import { Badge } from "../ui/badge";
import { Card, CardHeader } from "../ui/card";
import { ErrorState, Loading } from "../ui/states";

type Health = { ok: boolean; db: "ok" | "unavailable"; database: "sqlite" | "postgresql" };

const DATABASE_LABEL: Record<Health["database"], string> = { sqlite: "SQLite (embedded)", postgresql: "PostgreSQL" };

export function SystemCard() {
  const health = useQuery({
    queryKey: ["health"],
    queryFn: async (): Promise<Health> => {
      // 503 still carries the body: the database is named even when it does not answer.
      const response = await fetch("/api/health", { cache: "no-store" });
      return (await response.json()) as Health;
    },
  });
  return (
    <Card>
      <CardHeader title="System" description="What this instance serves from." />
      <div className="px-4 py-3 text-sm">
        {health.isPending ? (
          <Loading />
        ) : health.isError ? (
          <ErrorState error={health.error} />
        ) : (
          <dl className="grid grid-cols-[8rem_1fr] gap-y-2" data-testid="system-info">
            <dt className="text-fg-muted">Database</dt>
            <dd className="flex flex-wrap items-center gap-2">
              <span data-testid="database-kind">{DATABASE_LABEL[health.data.database] ?? health.data.database}</span>
              <Badge tone={health.data.db === "ok" ? "ok" : "danger"}>{health.data.db === "ok" ? "answering" : "unavailable"}</Badge>
            </dd>
          </dl>
        )}
      </div>
    </Card>
  );
}
