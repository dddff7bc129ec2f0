"use client";

// The agent page's identity section: one Monaco tab per identity file, save with a
// reason, unsaved-change warnings, a clear stale-save conflict with a diff and a
// merge path, the version history, the prompt preview and re-bootstrap.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Eye, Lock, Save } from "lucide-react";
import type { editor } from "monaco-editor";
import { useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import { useCan } from "@/components/session-user";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { ConfirmDialog } from "@/components/ui/dialog";
import { Input } from "@/components/ui/input";
import { ConflictNotice, ErrorState, Loading } from "@/components/ui/states";
import { ApiClientError, api, describeError } from "@/lib/api-client";
import type { AgentDto } from "@/lib/contracts/agents";
import type { SecurityProfile } from "@/lib/contracts/common";
import {
  IDENTITY_FILE_NAMES,
  type IdentityFileDto,
  type IdentityKind,
  type IdentityVersionDto,
  kindToSlug,
  type WriteResult,
} from "@/lib/contracts/identity";
import { useUnsavedChangesGuard } from "../unsaved-guard";
import { useNarrowScreen } from "../use-narrow-screen";
import { CapabilitiesIssues, useCapabilitiesCheck } from "./capabilities-check";
import { timeAgo } from "./format";
import { type Conflict, ConflictDialog, PromptPreviewDialog, RebootstrapButton } from "./identity-dialogs";
import { IdentityHistory } from "./identity-history";
import { CodeEditor } from "./monaco";

type Draft = { baseVersionId: string | null; baseContent: string; text: string };

const LOCK_NOTES: Partial<Record<IdentityKind, string>> = {
  AGENT: "Agents cannot write this: AGENT.md is the operational cage, set by operators only.",
  CAPABILITIES: "Agents cannot write this: the tools Claude Code gets and the limits the worker enforces are set by operators only.",
  BOOTSTRAP: "Agents cannot write this. It is retired automatically once SOUL.md and IDENTITY.md exist.",
};

const PROFILE_NOTES: Record<SecurityProfile, string> = {
  paranoid: "paranoid: the agent's own changes to SOUL, IDENTITY, USER, CLAUDE.md and the setup script are refused",
  standard: "standard: the agent's own changes to SOUL, IDENTITY, USER, CLAUDE.md and the setup script wait for approval",
  power: "power: the agent's own changes apply at once",
};

export function AgentIdentityPanel({ agentId }: { agentId: string }) {
  const can = useCan();
  const narrow = useNarrowScreen();
  const queryClient = useQueryClient();
  const agent = useQuery({ queryKey: ["agents", agentId], queryFn: () => api<{ agent: AgentDto }>(`/api/v1/agents/${agentId}`) });
  const agentName = agent.data?.agent.name;
  const profile = agent.data?.agent.securityProfile;
  const files = useQuery({
    queryKey: ["identity", agentId, "files"],
    queryFn: () => api<{ files: IdentityFileDto[] }>(`/api/v1/agents/${agentId}/identity`),
  });
  const [active, setActive] = useState<IdentityKind>("SOUL");
  const [drafts, setDrafts] = useState<Partial<Record<IdentityKind, Draft>>>({});
  const [reason, setReason] = useState("");
  const [pendingTab, setPendingTab] = useState<IdentityKind | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [staleNotice, setStaleNotice] = useState<Conflict | null>(null);
  const [previewOpen, setPreviewOpen] = useState(false);
  // Monaco owns the text (uncontrolled); `drafts` only tracks what changed, and a
  // save reads the text from the editor itself. `resets` remounts it to reload.
  const editorRef = useRef<editor.IStandaloneCodeEditor | null>(null);
  const [resets, setResets] = useState(0);

  const file = files.data?.files.find((f) => f.kind === active);
  const draft = drafts[active];
  const dirtyKinds = (Object.entries(drafts) as [IdentityKind, Draft][]).filter(([, d]) => d.text !== d.baseContent).map(([k]) => k);
  const dirty = dirtyKinds.includes(active);
  const capabilities = useCapabilitiesCheck(active === "CAPABILITIES" ? (draft?.text ?? file?.content ?? "") : null);

  useUnsavedChangesGuard(
    dirtyKinds.length > 0,
    `Unsaved changes to ${dirtyKinds.map((k) => IDENTITY_FILE_NAMES[k]).join(", ")} will be lost. Leave this page?`,
  );

  // A file saved elsewhere (or the merged result of a save) while there is no
  // draft: load it into the editor.
  const shownContent = files.data?.files.find((f) => f.kind === active)?.content;
  useEffect(() => {
    const instance = editorRef.current;
    if (dirty || shownContent === undefined || !instance) return;
    if (instance.getValue() !== shownContent) instance.setValue(shownContent);
  }, [dirty, shownContent]);

  // The editor owns its text: a replacement (the capabilities upgrade) goes through it, as
  // one undoable edit, and reaches the draft through the editor's change event.
  const replaceText = (text: string) => {
    const instance = editorRef.current;
    const model = instance?.getModel();
    if (!instance || !model) return onChange(text);
    instance.executeEdits("capabilities-upgrade", [{ range: model.getFullModelRange(), text }]);
    onChange(text);
  };

  const dropDraft = (kind: IdentityKind) =>
    setDrafts((current) => {
      const next = { ...current };
      delete next[kind];
      return next;
    });

  const refresh = () => queryClient.invalidateQueries({ queryKey: ["identity", agentId] });

  // After a save: text typed while it was in flight stays a draft, now on top of the
  // version just written (or, when the server merged, still on its old base, so the next
  // save merges again); a draft that did not change since the save started goes (the
  // conflict dialog saves a text of its own, which replaces the draft).
  const settleDraft = (kind: IdentityKind, typed: string, saved: string, result: WriteResult) =>
    setDrafts((current) => {
      const draft = current[kind];
      const next = { ...current };
      if (!draft || draft.text === typed || result.status !== "applied") delete next[kind];
      else if (!result.merged) next[kind] = { baseVersionId: result.versionId, baseContent: saved, text: draft.text };
      return next;
    });

  const save = useMutation({
    mutationFn: (args: { kind: IdentityKind; content: string; baseVersionId: string | null; typed?: string }) =>
      api<WriteResult>(`/api/v1/agents/${agentId}/identity/${kindToSlug(args.kind)}`, {
        method: "PUT",
        body: { content: args.content, baseVersionId: args.baseVersionId, reason: reason.trim() || undefined },
      }),
    onSuccess: async (result, args) => {
      const name = IDENTITY_FILE_NAMES[args.kind];
      if (result.status === "applied" && result.unchanged) toast.info(`${name} is unchanged: nothing to save`);
      else if (result.status === "applied" && result.merged) toast.success(`Saved ${name}, merged with changes saved meanwhile`);
      else toast.success(`Saved ${name}`);
      setReason("");
      setConflict(null);
      setStaleNotice(null);
      // The draft goes once the saved text is loaded, so the editor never shows the old one.
      await refresh();
      settleDraft(args.kind, args.typed ?? args.content, args.content, result);
    },
    onError: async (error, args) => {
      if (error instanceof ApiClientError && error.code === "stale_base") {
        const slug = kindToSlug(args.kind);
        const [theirs, history] = await Promise.all([
          api<IdentityFileDto>(`/api/v1/agents/${agentId}/identity/${slug}`),
          api<{ versions: IdentityVersionDto[] }>(`/api/v1/agents/${agentId}/identity/${slug}/versions`),
        ]);
        setStaleNotice({
          kind: args.kind,
          mine: args.content,
          theirs: {
            content: theirs.content,
            versionId: theirs.versionId,
            versionNumber: theirs.versionNumber,
            by: history.versions[0]?.authorLabel ?? "someone",
          },
        });
        void refresh();
        return;
      }
      toast.error(describeError(error));
    },
  });

  if (files.isPending)
    return (
      <Card>
        <Loading label="Loading identity files…" />
      </Card>
    );
  if (files.isError)
    return (
      <Card>
        <ErrorState error={files.error} />
      </Card>
    );

  const text = draft?.text ?? file?.content ?? "";
  const saveActive = () => {
    if (!can.write || save.isPending || capabilities.issues.length > 0) return;
    const content = editorRef.current?.getValue() ?? text;
    if (!file || content === (draft?.baseContent ?? file.content)) return;
    save.mutate({ kind: active, content, baseVersionId: draft?.baseVersionId ?? file.versionId });
  };
  const existing = files.data.files.filter((f) => f.exists).map((f) => f.kind);

  const switchTo = (kind: IdentityKind) => {
    if (kind === active) return;
    if (dirty) setPendingTab(kind);
    else setActive(kind);
  };

  const onChange = (value: string | undefined) => {
    if (!file) return;
    setDrafts((current) => {
      const previous = current[active];
      return {
        ...current,
        [active]: {
          baseVersionId: previous?.baseVersionId ?? file.versionId,
          baseContent: previous?.baseContent ?? file.content,
          text: value ?? "",
        },
      };
    });
  };

  const notice = staleNotice?.kind === active ? staleNotice : null;

  return (
    <Card data-testid="identity-panel">
      <CardHeader
        title="Identity"
        description={
          <>
            Every save is a new version.{" "}
            {profile ? (
              <span data-testid="identity-profile">
                Security profile <strong className="text-fg">{PROFILE_NOTES[profile]}</strong>.
              </span>
            ) : null}
          </>
        }
        actions={
          <>
            <Button variant="secondary" size="sm" onClick={() => setPreviewOpen(true)} data-testid="preview-prompt">
              <Eye className="size-3.5" /> Preview prompt
            </Button>
            {can.admin ? <RebootstrapButton agentId={agentId} agentName={agentName ?? "this agent"} existing={existing} /> : null}
          </>
        }
      />
      <div role="tablist" aria-label="Identity files" className="flex gap-1 overflow-x-auto border-b border-border px-2 pt-2 lg:flex-wrap">
        {files.data.files.map((f) => (
          <button
            key={f.kind}
            type="button"
            role="tab"
            aria-selected={f.kind === active}
            onClick={() => switchTo(f.kind)}
            data-testid={`identity-tab-${kindToSlug(f.kind)}`}
            className={cn(
              "-mb-px flex items-center gap-1 whitespace-nowrap rounded-t-md border border-transparent px-2.5 py-1.5 text-[13px]",
              f.kind === active ? "border-border border-b-panel bg-panel font-medium text-fg" : "text-fg-muted hover:text-fg",
              !f.exists && "italic",
            )}
          >
            {f.locked ? <Lock className="size-3" aria-label="agents cannot write this" /> : null}
            {f.path}
            {dirtyKinds.includes(f.kind) ? (
              <span className="size-1.5 rounded-full bg-warn" title="unsaved changes">
                <span className="sr-only">unsaved changes</span>
              </span>
            ) : null}
          </button>
        ))}
      </div>

      <div className="grid min-h-[560px] grid-cols-1 lg:grid-cols-[minmax(0,1fr)_320px]">
        <div className="flex min-w-0 flex-col border-border lg:border-r">
          <div className="flex flex-wrap items-center gap-2 border-b border-border px-3 py-2 text-xs text-fg-muted">
            {file?.exists ? (
              <span data-testid="identity-version">
                version {file.versionNumber} · {file.updatedAt ? timeAgo(file.updatedAt) : ""}
              </span>
            ) : (
              <Badge tone="warn">
                {file?.versionNumber ? `deleted in version ${file.versionNumber}; saving creates it again` : "not created yet"}
              </Badge>
            )}
            {file?.locked ? (
              <span className="flex items-center gap-1 text-fg" data-testid="locked-note">
                <Lock className="size-3" /> {LOCK_NOTES[active]}
              </span>
            ) : null}
            {dirty ? <Badge tone="warn">unsaved changes</Badge> : null}
          </div>

          {notice ? (
            <ConflictNotice
              className="border-b"
              testId="stale-conflict"
              actions={
                <Button
                  size="sm"
                  onClick={() => setConflict({ ...notice, mine: editorRef.current?.getValue() ?? notice.mine })}
                  data-testid="see-their-changes"
                >
                  See their changes
                </Button>
              }
            >
              <strong>{notice.theirs.by}</strong> saved {IDENTITY_FILE_NAMES[notice.kind]} (version {notice.theirs.versionNumber}) while you
              were editing, and the changes overlap. Your text is not saved yet.
            </ConflictNotice>
          ) : null}

          <div className="min-h-[440px] flex-1" data-testid="identity-editor">
            <CodeEditor
              key={`${agentId}-${active}-${resets}`}
              defaultValue={text}
              language={file?.language ?? "markdown"}
              onChange={onChange}
              onSave={saveActive}
              onMount={(instance, monaco) => {
                editorRef.current = instance;
                capabilities.onMount(instance, monaco);
              }}
              options={{ readOnly: !can.write }}
            />
          </div>
          <CapabilitiesIssues issues={capabilities.issues} upgrade={capabilities.upgrade} onUpgrade={can.write ? replaceText : undefined} />

          {can.write ? (
            <div className="flex flex-wrap items-center gap-2 border-t border-border px-3 py-2">
              <Input
                value={reason}
                onChange={(event) => setReason(event.target.value)}
                // The long text does not fit a phone's line, so the phone gets a shorter one saying the same.
                placeholder={narrow ? "Why? (optional, shown in the history)" : "Why this change? (optional, shown in the history)"}
                className="h-8 min-w-48 flex-1 basis-full sm:basis-0"
                maxLength={1000}
                aria-label="Reason for the change"
                data-testid="identity-reason"
              />
              {dirty ? (
                <Button
                  variant="ghost"
                  size="sm"
                  onClick={() => {
                    dropDraft(active);
                    // Nothing of mine is left to save: the conflict notice about it goes too.
                    if (staleNotice?.kind === active) setStaleNotice(null);
                    setResets((n) => n + 1);
                  }}
                >
                  Discard
                </Button>
              ) : null}
              <Button
                size="sm"
                disabled={!dirty || capabilities.issues.length > 0}
                busy={save.isPending}
                onClick={saveActive}
                data-testid="identity-save"
              >
                <Save className="size-3.5" /> Save {file?.path}
              </Button>
            </div>
          ) : (
            <p className="border-t border-border px-3 py-2 text-xs text-fg-muted">You have read-only access (viewer).</p>
          )}
        </div>
        <div className="min-h-0 border-t border-border lg:max-h-[720px] lg:border-t-0">
          <IdentityHistory agentId={agentId} kind={active} canWrite={can.write} />
        </div>
      </div>

      <ConfirmDialog
        open={pendingTab !== null}
        onOpenChange={(open) => !open && setPendingTab(null)}
        title={`Discard your changes to ${file?.path}?`}
        description={`${file?.path} has unsaved changes. Switching tabs discards them; save first to keep them.`}
        confirmLabel="Discard and switch"
        destructive
        onConfirm={() => {
          dropDraft(active);
          if (staleNotice?.kind === active) setStaleNotice(null);
          if (pendingTab) setActive(pendingTab);
          setPendingTab(null);
        }}
      />
      <ConflictDialog
        conflict={conflict}
        saving={save.isPending}
        onClose={() => setConflict(null)}
        onSaveMerged={(content) =>
          conflict &&
          save.mutate({ kind: conflict.kind, content, baseVersionId: conflict.theirs.versionId, typed: drafts[conflict.kind]?.text })
        }
        onDiscardMine={() => {
          if (!conflict) return;
          dropDraft(conflict.kind);
          setResets((n) => n + 1);
          setConflict(null);
          setStaleNotice(null);
          toast.info(`Loaded their version of ${IDENTITY_FILE_NAMES[conflict.kind]}`);
        }}
      />
      <PromptPreviewDialog agentId={agentId} open={previewOpen} onOpenChange={setPreviewOpen} />
    </Card>
  );
}
