"use client";

// The agent's changes to built-in tools: each staged on a branch of the app's
// built-in repository, tested, then merged into the agent's branch or abandoned.
import { useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api-client";
import type { BuiltinChangeDto } from "@/lib/contracts/tools";
import { timeAgo } from "../identity/format";
import { Badge } from "../ui/badge";
import { Card, CardHeader } from "../ui/card";
import { ErrorState } from "../ui/states";

const TONE = { merged: "ok", abandoned: "danger", refused: "warn" } as const;

export function BuiltinChangesCard({ agentId }: { agentId: string }) {
  const query = useQuery({
    queryKey: ["tools", agentId, "builtin-changes"],
    queryFn: () => api<{ changes: BuiltinChangeDto[] }>(`/api/v1/agents/${agentId}/builtin-tools`),
  });
  if (query.isError) return <ErrorState error={query.error} />;
  const changes = query.data?.changes ?? [];
  if (!changes.length) return null;
  return (
    <Card data-testid="builtin-changes">
      <CardHeader
        title="Changes to built-in tools"
        description="Each is committed on a staging branch of the built-in tools' git repository, tested, and merged into this agent's branch only if it passes."
      />
      <ul className="divide-y divide-border">
        {changes.map((change) => (
          <li key={change.id} className="space-y-1 px-4 py-3 text-sm" data-testid={`builtin-change-${change.status}`}>
            <div className="flex flex-wrap items-center gap-2">
              <span className="font-mono">{change.name}</span>
              <Badge tone={TONE[change.status]}>{change.status}</Badge>
              <span className="text-xs text-fg-muted">
                {change.author.label || change.author.type} · {timeAgo(change.createdAt)}
              </span>
            </div>
            <p className="break-all font-mono text-xs text-fg-muted">
              {change.branch ?? "no branch"} · {change.commit ? change.commit.slice(0, 12) : "no commit"}
            </p>
            {change.reason ? <p className="text-xs text-fg-muted">“{change.reason}”</p> : null}
            {change.error ? (
              <p className="whitespace-pre-wrap break-words font-mono text-xs text-danger">{change.error}</p>
            ) : (
              <p className="break-words font-mono text-xs">
                test: {JSON.stringify(change.testInput)} → {JSON.stringify(change.testOutput)}
              </p>
            )}
          </li>
        ))}
      </ul>
    </Card>
  );
}
