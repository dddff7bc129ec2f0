"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { editor } from "monaco-editor";
import { useRef, useState } from "react";
import { toast } from "sonner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ConfirmDialog, Dialog } from "@/components/ui/dialog";
import { ErrorState, Loading } from "@/components/ui/states";
import { api, describeError } from "@/lib/api-client";
import { IDENTITY_FILE_NAMES, IDENTITY_LANGUAGES, type IdentityKind, type PromptPreviewDto } from "@/lib/contracts/identity";
import { listFiles } from "./format";
import { CodeDiff, CodeViewer } from "./monaco";

export type Conflict = {
  kind: IdentityKind;
  theirs: { content: string; versionId: string | null; versionNumber: number | null; by: string };
  mine: string;
};

/** Theirs (saved meanwhile) on the left, yours on the right, editable: save the merge, or drop yours. */
export function ConflictDialog({
  conflict,
  onClose,
  onSaveMerged,
  onDiscardMine,
  saving,
}: {
  conflict: Conflict | null;
  onClose: () => void;
  onSaveMerged: (content: string) => void;
  onDiscardMine: () => void;
  saving: boolean;
}) {
  const modified = useRef<editor.IStandaloneCodeEditor | null>(null);
  if (!conflict) return null;
  const name = IDENTITY_FILE_NAMES[conflict.kind];
  return (
    <Dialog
      open
      onOpenChange={(open) => !open && onClose()}
      title={`${name}: their changes and yours`}
      description={`Left: version ${conflict.theirs.versionNumber ?? "?"} saved by ${conflict.theirs.by} while you were editing. Right: your text. Edit the right side into the version you want, then save it on top of theirs.`}
      className="max-w-6xl!"
    >
      <div className="h-[60vh] overflow-hidden rounded-md border border-border" data-testid="conflict-diff">
        <CodeDiff
          original={conflict.theirs.content}
          modified={conflict.mine}
          language={IDENTITY_LANGUAGES[conflict.kind]}
          options={{ originalEditable: false, readOnly: false }}
          onMount={(diff) => {
            modified.current = diff.getModifiedEditor();
          }}
        />
      </div>
      <div className="mt-4 flex flex-wrap justify-end gap-2">
        <Button variant="secondary" onClick={onDiscardMine} data-testid="discard-mine">
          Discard mine, load theirs
        </Button>
        <Button busy={saving} onClick={() => onSaveMerged(modified.current?.getValue() ?? conflict.mine)} data-testid="save-merged">
          Save the right side as version {(conflict.theirs.versionNumber ?? 0) + 1}
        </Button>
      </div>
    </Dialog>
  );
}

export function PromptPreviewDialog({
  agentId,
  open,
  onOpenChange,
}: {
  agentId: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const preview = useQuery({
    queryKey: ["identity", agentId, "prompt"],
    queryFn: () => api<PromptPreviewDto>(`/api/v1/agents/${agentId}/prompt`),
    enabled: open,
  });
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title="System prompt preview"
      description="What the agent's next task starts with: AGENT, SOUL, IDENTITY, USER, capabilities, then the base sections. TOOLS.md is read on demand, not injected."
      className="max-w-5xl!"
    >
      {preview.isPending ? (
        <Loading label="Assembling…" />
      ) : preview.isError ? (
        <ErrorState error={preview.error} />
      ) : (
        <div className="space-y-3" data-testid="prompt-preview">
          <div className="flex flex-wrap items-center gap-2 text-xs text-fg-muted">
            {preview.data.bootstrap ? <Badge tone="warn">bootstrap mode</Badge> : <Badge tone="ok">normal mode</Badge>}
            <span>{preview.data.systemPrompt.length.toLocaleString()} characters</span>
            <span>· per-file cap {preview.data.capChars.toLocaleString()} characters</span>
          </div>
          {preview.data.notes.length > 0 ? (
            <ul className="space-y-1 rounded-md border border-warn/30 bg-warn/10 px-3 py-2 text-xs text-fg">
              {preview.data.notes.map((note) => (
                <li key={note}>{note}</li>
              ))}
            </ul>
          ) : null}
          <div className="h-[60vh] overflow-hidden rounded-md border border-border">
            <CodeViewer value={preview.data.systemPrompt} language="markdown" />
          </div>
        </div>
      )}
    </Dialog>
  );
}

export function RebootstrapButton({ agentId, agentName, existing }: { agentId: string; agentName: string; existing: IdentityKind[] }) {
  const [open, setOpen] = useState(false);
  const queryClient = useQueryClient();
  const erased = (["SOUL", "IDENTITY", "USER"] as const).filter((kind) => existing.includes(kind)).map((kind) => IDENTITY_FILE_NAMES[kind]);
  const run = useMutation({
    mutationFn: () => api<{ erased: string[] }>(`/api/v1/agents/${agentId}/rebootstrap`, { method: "POST" }),
    onSuccess: (result) => {
      toast.success(
        result.erased.length ? `Re-bootstrapped: archived ${listFiles(result.erased)}` : "Re-bootstrapped: BOOTSTRAP.md is ready",
      );
      setOpen(false);
      void queryClient.invalidateQueries({ queryKey: ["identity", agentId] });
    },
    onError: (error) => toast.error(describeError(error)),
  });
  return (
    <>
      <Button variant="secondary" size="sm" onClick={() => setOpen(true)} data-testid="rebootstrap">
        Re-bootstrap
      </Button>
      <ConfirmDialog
        open={open}
        onOpenChange={setOpen}
        title={`Re-bootstrap ${agentName}?`}
        description={
          <div className="space-y-2" data-testid="rebootstrap-description">
            <p>
              {erased.length ? (
                <>
                  This erases <strong className="text-fg">{listFiles(erased)}</strong>: {agentName}'s personality starts over.
                </>
              ) : (
                <>SOUL.md, IDENTITY.md and USER.md are already gone; nothing more is erased.</>
              )}
            </p>
            <p>
              Every erased file is archived as a version and can be restored from its history. BOOTSTRAP.md is restored from the template
              and becomes the agent's system prompt at its next task.
            </p>
          </div>
        }
        confirmLabel={erased.length ? "Erase and re-bootstrap" : "Restore BOOTSTRAP.md"}
        destructive
        busy={run.isPending}
        onConfirm={() => run.mutate()}
      />
    </>
  );
}
