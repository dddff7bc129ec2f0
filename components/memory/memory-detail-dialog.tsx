"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { toast } from "sonner";
import { api, describeError } from "@/lib/api-client";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { ConfirmDialog, Dialog } from "../ui/dialog";
import { ErrorState, Loading } from "../ui/states";
import { type AgentOption, type MemoryDetail, SOURCE_LABELS } from "./memory-types";

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="flex gap-3 py-1 text-xs">
      <dt className="w-28 shrink-0 text-fg-muted">{label}</dt>
      <dd className="min-w-0 break-words">{children}</dd>
    </div>
  );
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : "—");

/** One memory in full, with delete (confirmed). */
export function MemoryDetailDialog({
  id,
  onClose,
  agents,
  canWrite,
}: {
  id: number | null;
  onClose: () => void;
  agents: AgentOption[];
  canWrite: boolean;
}) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const memory = useQuery({
    queryKey: ["memories", "one", id],
    queryFn: () => api<{ memory: MemoryDetail }>(`/api/v1/memories/${id}`),
    enabled: id !== null,
  });
  const remove = useMutation({
    mutationFn: () => api(`/api/v1/memories/${id}`, { method: "DELETE" }),
    onSuccess: () => {
      toast.success("Memory deleted");
      setConfirming(false);
      queryClient.invalidateQueries({ queryKey: ["memories"] });
      onClose();
    },
    onError: (error) => toast.error(describeError(error)),
  });
  const m = memory.data?.memory;
  const agentName = (agentId: string | null) => {
    const agent = agents.find((a) => a.id === agentId);
    return agent ? agent.name : (agentId ?? "—");
  };

  return (
    <Dialog open={id !== null} onOpenChange={(open) => (open ? null : onClose())} title={m?.name ?? "Memory"} className="max-w-2xl">
      {memory.isPending ? (
        <Loading />
      ) : memory.isError ? (
        <ErrorState error={memory.error} />
      ) : m ? (
        <div data-testid="memory-detail">
          <div className="mb-3 flex flex-wrap gap-1.5">
            <Badge tone={m.scope === "swarm" ? "accent" : "neutral"}>{m.scope}</Badge>
            <Badge tone={m.source === "task_failure" ? "danger" : m.source === "lead_feedback" ? "warn" : "neutral"}>
              {SOURCE_LABELS[m.source] ?? m.source}
            </Badge>
            <Badge tone={m.embeddingStatus === "done" ? "ok" : m.embeddingStatus === "failed" ? "danger" : "neutral"}>
              embedding: {m.embeddingStatus}
            </Badge>
            {m.duplicateOfId ? <Badge tone="warn">near-duplicate of #{m.duplicateOfId}</Badge> : null}
          </div>
          <pre className="max-h-80 overflow-auto whitespace-pre-wrap rounded-md border border-border bg-muted p-3 font-mono text-xs leading-relaxed">
            {m.content}
          </pre>
          <dl className="mt-3 divide-y divide-border">
            <Row label="Agent">{agentName(m.agentId)}</Row>
            <Row label="Created">{when(m.createdAt)}</Row>
            <Row label="Read">
              {m.accessCount} times{m.lastAccessedAt ? `, last ${when(m.lastAccessedAt)}` : ""}
            </Row>
            <Row label="Expires">{m.expiresAt ? when(m.expiresAt) : "never"}</Row>
            {m.sourceTaskId ? (
              <Row label="Task">
                <Link href={`/tasks/${m.sourceTaskId}`} className="text-accent hover:underline" data-testid="memory-task-link">
                  {m.sourceTaskId}
                </Link>
              </Row>
            ) : null}
            {m.sourcePath ? <Row label="File">{m.sourcePath}</Row> : null}
            {m.embeddingError ? <Row label="Embedding error">{m.embeddingError}</Row> : null}
          </dl>
          {canWrite ? (
            <div className="mt-4 flex justify-end">
              <Button variant="danger" onClick={() => setConfirming(true)} data-testid="memory-delete">
                Delete memory
              </Button>
            </div>
          ) : null}
          <ConfirmDialog
            open={confirming}
            onOpenChange={setConfirming}
            title="Delete this memory?"
            description={`"${m.name}" is removed from search and from future task prompts. This cannot be undone.`}
            confirmLabel="Delete memory"
            destructive
            busy={remove.isPending}
            onConfirm={() => remove.mutate()}
          />
        </div>
      ) : null}
    </Dialog>
  );
}
