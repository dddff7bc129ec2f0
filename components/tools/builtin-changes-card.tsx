"use client";

// The agent's changes to built-in tools: each staged on a branch of the app's
// built-in repository, tested, then merged into the agent's branch or abandoned.
// Where the agent's tool changes are proposals, a tested change waits here for an
// operator; approving stages it then, rejecting keeps the built-in as it is.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { toast } from "sonner";
import { api, describeError } from "@/lib/api-client";
import type { BuiltinChangeDto } from "@/lib/contracts/tools";
import { timeAgo } from "../identity/format";
import { CodeViewer } from "../identity/monaco";
import { useCan } from "../session-user";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardHeader } from "../ui/card";
import { Dialog, FormActions } from "../ui/dialog";
import { Field, Textarea } from "../ui/input";
import { ErrorState } from "../ui/states";

const TONE = { merged: "ok", abandoned: "danger", refused: "warn", proposed: "accent", rejected: "danger" } as const;
const LABEL = {
  merged: "merged",
  abandoned: "abandoned",
  refused: "refused",
  proposed: "waiting for review",
  rejected: "rejected",
} as const;

export function BuiltinChangesCard({ agentId }: { agentId: string }) {
  const can = useCan();
  const queryClient = useQueryClient();
  const [viewing, setViewing] = useState<BuiltinChangeDto | null>(null);
  const [rejecting, setRejecting] = useState<BuiltinChangeDto | null>(null);
  const [note, setNote] = useState("");
  const query = useQuery({
    queryKey: ["tools", agentId, "builtin-changes"],
    queryFn: () => api<{ changes: BuiltinChangeDto[] }>(`/api/v1/agents/${agentId}/builtin-tools`),
  });
  const review = useMutation({
    mutationFn: ({ change, decision, note }: { change: BuiltinChangeDto; decision: "approve" | "reject"; note?: string }) =>
      api<BuiltinChangeDto>(`/api/v1/agents/${agentId}/builtin-tools/${change.id}/${decision}`, {
        method: "POST",
        body: note ? { note } : {},
      }),
    onSuccess: (result) => {
      if (result.status === "merged") toast.success(`${result.name}: approved, tested and merged`);
      else if (result.status === "rejected") toast.success(`${result.name}: rejected`);
      else toast.error(`${result.name}: approved, but the staged change failed its test and was abandoned`);
      setRejecting(null);
      setNote("");
      void queryClient.invalidateQueries({ queryKey: ["tools", agentId] });
    },
    onError: (error) => toast.error(describeError(error)),
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
              <Badge tone={TONE[change.status]}>{LABEL[change.status]}</Badge>
              <span className="text-xs text-fg-muted">
                {change.author.label || change.author.type} · {timeAgo(change.createdAt)}
              </span>
              <span className="ml-auto flex flex-wrap gap-2">
                <Button size="sm" variant="ghost" onClick={() => setViewing(change)}>
                  Source
                </Button>
                {change.status === "proposed" && can.write ? (
                  <>
                    <Button size="sm" disabled={review.isPending} onClick={() => review.mutate({ change, decision: "approve" })}>
                      Approve
                    </Button>
                    <Button size="sm" variant="secondary" disabled={review.isPending} onClick={() => setRejecting(change)}>
                      Reject
                    </Button>
                  </>
                ) : null}
              </span>
            </div>
            {change.status === "proposed" ? (
              <p className="text-xs text-fg-muted">
                Passed its test in the sandbox. Approving commits it on a staging branch, tests it again there and merges it into this
                agent's branch.
              </p>
            ) : change.branch || change.commit ? (
              <p className="break-all font-mono text-xs text-fg-muted">
                {change.branch ?? "no branch"} · {change.commit ? change.commit.slice(0, 12) : "no commit"}
              </p>
            ) : null}
            {change.reason ? <p className="text-xs text-fg-muted">“{change.reason}”</p> : null}
            {change.review?.note ? (
              <p className="text-xs">
                <span className="text-fg-muted">Operator's note:</span> {change.review.note}
              </p>
            ) : null}
            {change.error ? (
              <p className="whitespace-pre-wrap break-words font-mono text-xs text-danger">{change.error}</p>
            ) : change.status !== "rejected" ? (
              <p className="break-words font-mono text-xs">
                test: {JSON.stringify(change.testInput)} → {JSON.stringify(change.testOutput)}
              </p>
            ) : null}
          </li>
        ))}
      </ul>
      <Dialog
        open={viewing !== null}
        onOpenChange={(open) => !open && setViewing(null)}
        title={viewing ? `${viewing.name}: the agent's version` : ""}
        description="Read-only. What execute returns becomes the built-in's arguments."
        className="max-w-3xl"
      >
        {viewing ? (
          <div data-testid="builtin-change-source">
            <CodeViewer
              height={360}
              language="typescript"
              value={viewing.source}
              options={{ readOnly: true, ariaLabel: `${viewing.name} source` }}
            />
          </div>
        ) : null}
      </Dialog>
      <Dialog
        open={rejecting !== null}
        onOpenChange={(open) => {
          if (!open) {
            setRejecting(null);
            setNote("");
          }
        }}
        title={rejecting ? `Reject the change to ${rejecting.name}?` : ""}
        description="The built-in stays as it is for this agent. Your note is recorded with the change."
      >
        <form
          className="space-y-3"
          onSubmit={(event) => {
            event.preventDefault();
            if (rejecting) review.mutate({ change: rejecting, decision: "reject", note: note.trim() || undefined });
          }}
        >
          <Field label="Note for the agent (optional)" htmlFor="builtin-reject-note">
            <Textarea id="builtin-reject-note" rows={3} maxLength={2000} value={note} onChange={(event) => setNote(event.target.value)} />
          </Field>
          <FormActions onCancel={() => setRejecting(null)} submitLabel="Reject" danger busy={review.isPending} testId="builtin-reject" />
        </form>
      </Dialog>
    </Card>
  );
}
