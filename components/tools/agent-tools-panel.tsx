"use client";

// The Tools tab: every tool the agent wrote for itself, with its source (read-only
// Monaco), its versions and their diffs, the last test input and output, calls
// and failures; operators enable, disable or delete a tool and review changes the
// agent proposed (paranoid profile, or self_extension: propose).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Wrench } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { api, describeError } from "@/lib/api-client";
import type { AgentToolDetailDto, AgentToolDto } from "@/lib/contracts/tools";
import { timeAgo } from "../identity/format";
import { useCan } from "../session-user";
import { Badge } from "../ui/badge";
import { Card, CardHeader } from "../ui/card";
import { cn } from "../ui/cn";
import { EmptyState, ErrorState, Loading } from "../ui/states";
import { BuiltinChangesCard } from "./builtin-changes-card";
import { ToolDetail } from "./tool-detail";

function ToolRow({ tool, active, onSelect }: { tool: AgentToolDto; active: boolean; onSelect: () => void }) {
  return (
    <button
      type="button"
      onClick={onSelect}
      aria-current={active}
      data-testid={`tool-row-${tool.name}`}
      className={cn(
        "flex w-full flex-col gap-1 border-b border-border px-4 py-3 text-left last:border-b-0 hover:bg-muted/50",
        active && "bg-muted",
      )}
    >
      <span className="flex flex-wrap items-center gap-2">
        <span className={cn("font-mono text-sm", tool.deleted && "text-fg-muted line-through")}>{tool.name}</span>
        {tool.currentVersion ? <Badge>v{tool.currentVersion}</Badge> : null}
        {tool.deleted ? <Badge tone="danger">deleted</Badge> : !tool.enabled ? <Badge tone="warn">disabled</Badge> : null}
        {tool.pendingChanges ? <Badge tone="accent">{tool.pendingChanges} to review</Badge> : null}
      </span>
      <span className="line-clamp-2 text-xs text-fg-muted">{tool.description}</span>
      <span className="text-xs text-fg-muted">
        {tool.callCount} calls · {tool.failureCount} failed
        {tool.lastCalledAt ? ` · last ${timeAgo(tool.lastCalledAt)}` : ""}
      </span>
    </button>
  );
}

export function AgentToolsPanel({ agentId }: { agentId: string }) {
  const can = useCan();
  const queryClient = useQueryClient();
  const [selected, setSelected] = useState<string | null>(null);
  const list = useQuery({
    queryKey: ["tools", agentId],
    queryFn: () => api<{ tools: AgentToolDto[] }>(`/api/v1/agents/${agentId}/tools`),
    refetchInterval: 15_000,
  });
  const name = selected ?? list.data?.tools[0]?.name ?? null;
  const detail = useQuery({
    queryKey: ["tools", agentId, name],
    queryFn: () => api<AgentToolDetailDto>(`/api/v1/agents/${agentId}/tools/${name}`),
    enabled: name !== null,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["tools", agentId] });
  const change = useMutation({
    mutationFn: ({ path, method, body }: { path: string; method: string; body?: unknown; done: string }) =>
      api(`/api/v1/agents/${agentId}/tools/${path}`, { method, body }),
    onSuccess: (_result, variables) => {
      toast.success(variables.done);
      void refresh();
    },
    onError: (error) => toast.error(describeError(error)),
  });

  if (list.isPending) return <Loading label="Loading tools…" />;
  if (list.isError) return <ErrorState error={list.error} />;
  const tools = list.data.tools;
  if (!tools.length) {
    return (
      <div className="space-y-4">
        <Card>
          <EmptyState title="No tools yet">
            Tools this agent writes for itself (<code>tool_write</code> over MCP, or <code>swarm tool write</code>) appear here, each with
            its source, versions, test and calls.
          </EmptyState>
        </Card>
        <BuiltinChangesCard agentId={agentId} />
      </div>
    );
  }
  return (
    <div className="space-y-4">
      <div className="grid gap-4 lg:grid-cols-[18rem_minmax(0,1fr)]" data-testid="tools-panel">
        <Card className="h-fit overflow-hidden">
          <CardHeader
            title={
              <span className="flex items-center gap-2">
                <Wrench className="size-4" aria-hidden /> Tools
              </span>
            }
            description={`${tools.filter((t) => !t.deleted).length} registered`}
          />
          <div>
            {tools.map((tool) => (
              <ToolRow key={tool.id} tool={tool} active={tool.name === name} onSelect={() => setSelected(tool.name)} />
            ))}
          </div>
        </Card>
        {detail.isPending ? (
          <Loading label="Loading the tool…" />
        ) : detail.isError ? (
          <ErrorState error={detail.error} />
        ) : (
          <ToolDetail tool={detail.data} canWrite={can.write} busy={change.isPending} onChange={(request) => change.mutate(request)} />
        )}
      </div>
      <BuiltinChangesCard agentId={agentId} />
    </div>
  );
}
