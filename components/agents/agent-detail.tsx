"use client";

// One agent: who it is, whether its worker is connected, its security profile,
// its worker tokens, archiving; the identity panel renders below (children).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Archive, ArrowLeft } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { type ReactNode, useState } from "react";
import { toast } from "sonner";
import { ApiClientError, api, describeError } from "@/lib/api-client";
import type { AgentDto } from "@/lib/contracts/agents";
import { AgentStatusBadge } from "../agent-status-badge";
import { RelativeTime } from "../relative-time";
import { useCan } from "../session-user";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardHeader } from "../ui/card";
import { ConfirmDialog } from "../ui/dialog";
import { EmptyState, ErrorState, Loading } from "../ui/states";
import { EditAgentDetails } from "./edit-agent-dialog";
import { SecurityProfileCard } from "./security-profile";
import { SetupStatusCard } from "./setup-status";
import { WorkerTokensCard } from "./worker-tokens-card";

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-fg-muted">{label}</dt>
      <dd className="mt-0.5 truncate text-sm">{children}</dd>
    </div>
  );
}

function ArchiveCard({ agent }: { agent: AgentDto }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const archive = useMutation({
    mutationFn: () => api(`/api/v1/agents/${agent.id}`, { method: "DELETE" }),
    onSuccess: () => {
      toast.success(`Agent ${agent.name} archived`);
      queryClient.invalidateQueries({ queryKey: ["agents"] });
      queryClient.invalidateQueries({ queryKey: ["proposals"] });
      router.push("/agents");
    },
    onError: (error) => toast.error(describeError(error)),
  });
  return (
    <Card>
      <CardHeader
        title="Archive agent"
        description="Its worker tokens stop working, its queued tasks go back to the pool, its open proposals are closed and the schedules aimed at it stop. History (identity versions, proposals, tasks, audit) is kept."
        actions={
          <Button variant="danger" size="sm" onClick={() => setConfirming(true)} data-testid="archive-agent">
            <Archive className="size-4" aria-hidden /> Archive
          </Button>
        }
      />
      <ConfirmDialog
        open={confirming}
        onOpenChange={setConfirming}
        title={`Archive ${agent.name}?`}
        description={
          <>
            Every worker token of <strong>{agent.name}</strong> is revoked at once, its pending tasks return to the pool, its open proposals
            are closed as rejected and its schedules are switched off. The name becomes free for a new agent. This cannot be undone from the
            UI.
          </>
        }
        confirmLabel="Archive agent"
        destructive
        busy={archive.isPending}
        onConfirm={() => archive.mutate()}
      />
    </Card>
  );
}

export function AgentDetail({ agentId, children }: { agentId: string; children?: ReactNode }) {
  const can = useCan();
  const query = useQuery({
    queryKey: ["agent", agentId],
    queryFn: () => api<{ agent: AgentDto }>(`/api/v1/agents/${agentId}`),
    refetchInterval: 15_000,
    retry: (count, error) => !(error instanceof ApiClientError && error.status === 404) && count < 2,
  });

  const back = (
    <Link href="/agents" className="inline-flex items-center gap-1 text-sm text-fg-muted hover:text-fg">
      <ArrowLeft className="size-4" aria-hidden /> Agents
    </Link>
  );
  if (query.isPending) return <Loading label="Loading the agent…" />;
  if (query.isError) {
    const missing = query.error instanceof ApiClientError && query.error.status === 404;
    return (
      <div className="space-y-4">
        {back}
        <Card>
          {missing ? (
            <EmptyState title="Agent not found">It may have been archived, or the link is wrong.</EmptyState>
          ) : (
            <ErrorState error={query.error} />
          )}
        </Card>
      </div>
    );
  }
  const { agent } = query.data;
  return (
    <div className="space-y-6">
      <div className="space-y-3">
        {back}
        <div className="flex flex-wrap items-start justify-between gap-3">
          <div className="flex min-w-0 flex-wrap items-center gap-x-3 gap-y-2">
            <h1 className="min-w-0 text-xl [overflow-wrap:anywhere] font-semibold tracking-tight" data-testid="agent-name">
              {agent.name}
            </h1>
            {agent.displayName ? (
              <span className="text-fg-muted" data-testid="agent-display-name">
                {agent.displayName}
              </span>
            ) : null}
            <AgentStatusBadge agent={agent} />
            <span data-testid="agent-role">
              <Badge>{agent.role}</Badge>
            </span>
          </div>
          {can.write ? <EditAgentDetails agent={agent} /> : null}
        </div>
        {agent.description ? (
          <p className="max-w-3xl whitespace-pre-line text-sm [overflow-wrap:anywhere] text-fg-muted" data-testid="agent-description">
            {agent.description}
          </p>
        ) : null}
      </div>
      <Card>
        <dl className="grid grid-cols-2 gap-4 px-4 py-4 md:grid-cols-5">
          <Fact label="Status">{agent.online ? `online, ${agent.status}` : "offline"}</Fact>
          <Fact label="Last seen">
            <RelativeTime iso={agent.lastSeenAt} />
          </Fact>
          <Fact label="Worker host">{agent.workerHostname ?? <span className="text-fg-muted">no worker yet</span>}</Fact>
          <Fact label="Worker version">{agent.workerVersion ?? <span className="text-fg-muted">–</span>}</Fact>
          <Fact label="Harness">{agent.harness ?? <span className="text-fg-muted">–</span>}</Fact>
        </dl>
      </Card>
      <SetupStatusCard agent={agent} />
      <div className="grid gap-6 xl:grid-cols-2 [&>*]:min-w-0">
        <SecurityProfileCard agent={agent} />
        <WorkerTokensCard agent={agent} />
      </div>
      {children}
      {can.write ? <ArchiveCard agent={agent} /> : null}
    </div>
  );
}
