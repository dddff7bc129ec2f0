"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { editor } from "monaco-editor";
import { useRef, useState } from "react";
import { toast } from "sonner";
import { timeAgo, triggerLabel, triggerTitle } from "@/components/identity/format";
import { CodeDiff } from "@/components/identity/monaco";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { Dialog, FormActions } from "@/components/ui/dialog";
import { Field, Input, Textarea } from "@/components/ui/input";
import { ErrorState, Loading } from "@/components/ui/states";
import { useUnsavedChangesGuard } from "@/components/unsaved-guard";
import { ApiClientError, api, describeError } from "@/lib/api-client";
import { kindToSlug, type ProposalDetailDto } from "@/lib/contracts/identity";

const hasMarkers = (text: string) => /^(<<<<<<<|>>>>>>>) /m.test(text);

/** `onConflict`: the approval found the file moved on with overlapping changes; the proposal is now a conflict. */
export function ProposalReview({ proposalId, onConflict }: { proposalId: string; onConflict?: (proposalId: string) => void }) {
  const queryClient = useQueryClient();
  const detail = useQuery({
    queryKey: ["proposals", "detail", proposalId],
    queryFn: () => api<ProposalDetailDto>(`/api/v1/proposals/${proposalId}`),
  });
  const modified = useRef<editor.IStandaloneCodeEditor | null>(null);
  const [edited, setEdited] = useState<string | null>(null);
  const [note, setNote] = useState("");
  const [rejecting, setRejecting] = useState(false);
  const [rejectNote, setRejectNote] = useState("");
  const [decided, setDecided] = useState(false);
  const [baseline, setBaseline] = useState<string | null>(null);
  // Approved with edits: what was applied, beside what the agent proposed.
  const d = detail.data;
  const appliedVersion = d?.status === "approved" && d.edited && d.resultVersionId ? d.resultVersionId : null;
  const applied = useQuery({
    queryKey: ["proposals", "applied", proposalId, appliedVersion],
    enabled: appliedVersion !== null,
    queryFn: () =>
      api<{ content: string; number: number }>(
        `/api/v1/agents/${d?.agentId}/identity/${d ? kindToSlug(d.kind) : ""}/versions/${appliedVersion}`,
      ),
  });
  useUnsavedChangesGuard(
    !decided && edited !== null && baseline !== null && edited !== baseline,
    "Your edits to this proposal are not approved yet. Leave this page and lose them?",
  );

  const done = (message: string) => {
    setDecided(true);
    toast.success(message);
    setRejecting(false);
    void queryClient.invalidateQueries({ queryKey: ["proposals"] });
    void queryClient.invalidateQueries({ queryKey: ["identity"] });
  };

  const approve = useMutation({
    mutationFn: (content?: string) =>
      api<{ number: number; edited: boolean; merged: boolean }>(`/api/v1/proposals/${proposalId}/approve`, {
        body: { note: note.trim() || undefined, content },
      }),
    onSuccess: (result) =>
      done(
        `Approved${result.edited ? " with your edits" : ""}${result.merged ? " (merged onto the current version)" : ""}: version ${result.number}`,
      ),
    onError: (error) => {
      toast.error(describeError(error));
      void queryClient.invalidateQueries({ queryKey: ["proposals"] });
      if (error instanceof ApiClientError && error.code === "stale_base") onConflict?.(proposalId);
    },
  });
  const reject = useMutation({
    mutationFn: () => api(`/api/v1/proposals/${proposalId}/reject`, { body: { note: rejectNote.trim() } }),
    onSuccess: () => done("Rejected; the note is kept with the proposal"),
    onError: (error) => toast.error(describeError(error)),
  });

  if (detail.isPending)
    return (
      <Card>
        <Loading label="Loading proposal…" />
      </Card>
    );
  if (detail.isError)
    return (
      <Card>
        <ErrorState error={detail.error} />
      </Card>
    );
  const p = detail.data;
  const open = p.status === "pending" || p.status === "conflict";
  const moved = open && p.baseMoved;
  // When the file moved on, review the proposal merged onto today's version.
  const original = moved ? p.currentContent : p.baseContent;
  const initial = moved && p.mergedContent !== null ? p.mergedContent : p.proposedContent;
  const current = edited ?? initial;
  const isEdited = current !== initial;
  const unresolved = hasMarkers(current);

  return (
    <Card data-testid="proposal-review">
      <CardHeader
        title={
          <span className="flex flex-wrap items-center gap-2">
            {p.agentName} wants to change {p.path}
            <Badge tone={p.trigger === "user_request" ? "accent" : "neutral"} title={triggerTitle(p.trigger)}>
              {triggerLabel(p.trigger)}
            </Badge>
          </span>
        }
        description={
          <>
            Proposed {timeAgo(p.createdAt)} on version {p.baseVersionNumber ?? "none"}
            {p.taskId ? ` during task ${p.taskId.slice(0, 8)}` : ""}.
          </>
        }
      />
      <div className="space-y-3 p-4">
        <blockquote className="rounded-md border-l-4 border-accent bg-muted px-3 py-2 text-sm" data-testid="proposal-reason">
          {p.reason}
        </blockquote>
        {moved ? (
          <div
            className={`rounded-md border px-3 py-2 text-sm ${p.mergeClean ? "border-warn/30 bg-warn/10" : "border-danger/30 bg-danger/10"}`}
            role="status"
            data-testid="proposal-moved"
          >
            {p.path} moved on since this proposal (version {p.baseVersionNumber} → {p.currentVersionNumber}).{" "}
            {p.mergeClean
              ? "The right side is the proposal merged cleanly onto the current version."
              : "The changes overlap: the right side is the three-way merge with conflict markers. Edit it into the text you want, then approve your edit."}
          </div>
        ) : null}
        {!open ? (
          <div className="rounded-md border border-border bg-muted px-3 py-2 text-sm" data-testid="proposal-decision">
            <strong className="capitalize">{p.status}</strong>
            {p.reviewerLabel ? ` by ${p.reviewerLabel}` : ""}
            {p.decidedAt ? ` ${timeAgo(p.decidedAt)}` : ""}
            {p.edited ? " (with edits)" : ""}
            {p.reviewNote ? `: “${p.reviewNote}”` : ""}
          </div>
        ) : null}
        <div className="flex justify-between text-xs text-fg-muted">
          <span>{moved ? `Current version ${p.currentVersionNumber}` : `Base version ${p.baseVersionNumber ?? "(none)"}`}</span>
          <span>{moved ? "Proposal merged onto it (edit to resolve)" : open ? "Proposed (you can edit this side)" : "Proposed"}</span>
        </div>
        <div className="h-[55vh] overflow-hidden rounded-md border border-border" data-testid="proposal-diff">
          <CodeDiff
            toolbar
            original={original}
            modified={initial}
            language={p.language}
            options={{ originalEditable: false, readOnly: !open }}
            onMount={(diff) => {
              modified.current = diff.getModifiedEditor();
              setBaseline(modified.current.getValue());
              modified.current.onDidChangeModelContent(() => setEdited(modified.current?.getValue() ?? null));
            }}
          />
        </div>
        {applied.data && d ? (
          <div className="space-y-1" data-testid="proposal-applied">
            <div className="flex justify-between text-xs text-fg-muted">
              <span>What the agent proposed</span>
              <span>What was applied with the reviewer's edits (version {applied.data.number})</span>
            </div>
            <div className="h-[40vh] overflow-hidden rounded-md border border-border">
              <CodeDiff original={d.proposedContent} modified={applied.data.content} language={d.language} options={{ readOnly: true }} />
            </div>
          </div>
        ) : null}
        {open ? (
          <div className="flex flex-wrap items-end gap-2">
            <Input
              value={note}
              onChange={(event) => setNote(event.target.value)}
              placeholder="Note for the agent (optional)"
              className="min-w-48 flex-1"
              aria-label="Approval note"
              data-testid="approve-note"
            />
            <Button
              variant="secondary"
              onClick={() => {
                // A note typed beside the buttons is meant for this decision too: carry it into the dialog.
                if (!rejectNote.trim()) setRejectNote(note);
                setRejecting(true);
              }}
              data-testid="reject-proposal"
            >
              Reject…
            </Button>
            <Button
              busy={approve.isPending}
              disabled={unresolved}
              title={unresolved ? "Resolve the conflict markers first" : undefined}
              onClick={() => {
                // The editor owns the text: read it now rather than trusting the last change event.
                const text = modified.current?.getValue() ?? current;
                approve.mutate(text !== initial || (moved && !p.mergeClean) ? text : undefined);
              }}
              data-testid="approve-proposal"
            >
              {isEdited ? "Approve edited" : "Approve"}
            </Button>
          </div>
        ) : null}
        {open && unresolved ? (
          <p className="text-xs text-danger">
            Resolve the conflict markers (&lt;&lt;&lt;&lt;&lt;&lt;&lt; … &gt;&gt;&gt;&gt;&gt;&gt;&gt;) before approving.
          </p>
        ) : null}
      </div>
      <Dialog
        open={rejecting}
        onOpenChange={setRejecting}
        title={`Reject ${p.agentName}'s change to ${p.path}?`}
        description="The note is stored with the proposal so the agent and other operators know why."
      >
        <form
          onSubmit={(event) => {
            event.preventDefault();
            reject.mutate();
          }}
          className="space-y-4"
        >
          <Field label="Note" htmlFor="reject-note" hint="Required: tell the agent why, so it does not propose the same change again.">
            <Textarea
              id="reject-note"
              rows={3}
              value={rejectNote}
              onChange={(event) => setRejectNote(event.target.value)}
              required
              data-testid="reject-note"
            />
          </Field>
          <FormActions
            onCancel={() => setRejecting(false)}
            submitLabel="Reject"
            busy={reject.isPending}
            danger
            disabled={!rejectNote.trim()}
            testId="confirm-reject"
          />
        </form>
      </Dialog>
    </Card>
  );
}
