"use client";

// The global setup script (scope global, key SETUP_SCRIPT): runs first in every
// agent's workspace, before the agent's own script.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { editor } from "monaco-editor";
import { useEffect, useRef, useState } from "react";
import { toast } from "sonner";
import { ApiClientError, api, describeError } from "@/lib/api-client";
import { type ConfigEntryDto, GLOBAL_SETUP_SCRIPT_KEY } from "@/lib/contracts/config";
import { CodeEditor } from "../code-editor";
import { RelativeTime } from "../relative-time";
import { useCan } from "../session-user";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardHeader } from "../ui/card";
import { ConflictNotice, ErrorState, Loading } from "../ui/states";
import { useUnsavedChangesGuard } from "../unsaved-guard";

const PATH = `/api/v1/config?scope=global&key=${GLOBAL_SETUP_SCRIPT_KEY}`;
const QUERY_KEY = ["config", "global", GLOBAL_SETUP_SCRIPT_KEY];

/** What is typed, and the saved script it was typed on (its text, and updatedAt: null when there was none). */
type Draft = { text: string; baseText: string; base: string | null };

export function SetupScriptCard() {
  const can = useCan();
  const queryClient = useQueryClient();
  const saved = useQuery({
    queryKey: QUERY_KEY,
    queryFn: () => api<{ entries: ConfigEntryDto[] }>(PATH),
  });
  const entry = saved.data?.entries[0];
  const savedValue = entry?.value ?? "";
  const [draft, setDraft] = useState<Draft | null>(null);
  // Saved by someone else since this draft's base: the save was refused (409 stale_base).
  const [conflict, setConflict] = useState<{ current: ConfigEntryDto | null } | null>(null);
  const [editorKey, setEditorKey] = useState(0);
  const editorRef = useRef<editor.IStandaloneCodeEditor | null>(null);
  const dirty = draft !== null && draft.text !== draft.baseText;

  // Saved elsewhere while nothing is typed here: show it, so an edit starts from it.
  useEffect(() => {
    const instance = editorRef.current;
    if (dirty || !saved.data || !instance || instance.getValue() === savedValue) return;
    instance.setValue(savedValue);
    setDraft(null);
  }, [dirty, saved.data, savedValue]);

  // Leaving the page with unsaved edits asks first.
  useUnsavedChangesGuard(dirty, "The global setup script has unsaved changes. Leave this page and lose them?");

  const save = useMutation({
    mutationFn: ({ script, base }: { script: string; base: string | null }) =>
      api<{ entry: ConfigEntryDto }>("/api/v1/config", {
        method: "PUT",
        body: { scope: "global", key: GLOBAL_SETUP_SCRIPT_KEY, value: script, baseUpdatedAt: base },
      }),
    onSuccess: ({ entry: updated }) => {
      queryClient.setQueryData(QUERY_KEY, { entries: [updated] });
      setConflict(null);
      // Anything typed while the save was in flight stays a draft, on top of what was saved.
      const now = editorRef.current?.getValue();
      const value = updated.value ?? "";
      setDraft(now !== undefined && now !== value ? { text: now, baseText: value, base: updated.updatedAt } : null);
      toast.success("Global setup script saved");
    },
    onError: (error) => {
      if (error instanceof ApiClientError && error.code === "stale_base") {
        const current = (error.details as { current?: ConfigEntryDto | null } | undefined)?.current ?? null;
        setConflict({ current });
        void queryClient.invalidateQueries({ queryKey: QUERY_KEY });
        return;
      }
      toast.error(describeError(error));
    },
  });

  const saveNow = (base = draft?.base ?? entry?.updatedAt ?? null) => {
    const script = editorRef.current?.getValue() ?? draft?.text ?? savedValue;
    if (!can.write || save.isPending || script === (draft?.baseText ?? savedValue)) return;
    save.mutate({ script, base });
  };
  const onChange = (text: string) =>
    setDraft((current) => (current ? { ...current, text } : { text, baseText: savedValue, base: entry?.updatedAt ?? null }));
  const loadTheirs = () => {
    if (conflict) queryClient.setQueryData(QUERY_KEY, { entries: conflict.current ? [conflict.current] : [] });
    setConflict(null);
    setDraft(null);
    setEditorKey((key) => key + 1);
  };

  return (
    <Card>
      <CardHeader
        title="Global setup script"
        description="Runs in every agent's workspace before the agent's own setup script (start-up.sh), under one #!/bin/bash."
        actions={
          <>
            {dirty ? (
              <Badge tone="warn" className="hidden sm:inline-flex">
                <span data-testid="unsaved-changes">Unsaved changes</span>
              </Badge>
            ) : entry ? (
              <span className="text-xs text-fg-muted">
                Saved <RelativeTime iso={entry.updatedAt} />
              </span>
            ) : null}
            {dirty ? (
              <Button
                size="sm"
                variant="ghost"
                onClick={() => {
                  setDraft(null);
                  setConflict(null);
                  setEditorKey((key) => key + 1);
                }}
              >
                Discard
              </Button>
            ) : null}
            {can.write ? (
              <Button size="sm" disabled={!dirty} busy={save.isPending} onClick={() => saveNow()} data-testid="save-setup-script">
                Save
              </Button>
            ) : null}
          </>
        }
      />
      <div className="p-4">
        {saved.isPending ? (
          <Loading label="Loading the script…" />
        ) : saved.isError ? (
          <ErrorState error={saved.error} />
        ) : (
          <>
            {conflict ? (
              <ConflictNotice
                className="mb-3 rounded-md border"
                testId="setup-script-conflict"
                actions={
                  <>
                    <Button size="sm" variant="secondary" onClick={loadTheirs} data-testid="setup-script-load-theirs">
                      Discard mine, load theirs
                    </Button>
                    <Button
                      size="sm"
                      busy={save.isPending}
                      onClick={() => saveNow(conflict.current?.updatedAt ?? null)}
                      data-testid="setup-script-overwrite"
                    >
                      Save mine over theirs
                    </Button>
                  </>
                }
              >
                Someone else saved the global setup script
                {conflict.current ? (
                  <>
                    {" "}
                    (<RelativeTime iso={conflict.current.updatedAt} />)
                  </>
                ) : null}{" "}
                while you were editing. Your text is not saved yet.
              </ConflictNotice>
            ) : null}
            <CodeEditor
              key={editorKey}
              label="Global setup script"
              language="shell"
              defaultValue={savedValue}
              onChange={onChange}
              editorRef={editorRef}
              onSave={() => saveNow()}
              readOnly={!can.write}
              height={340}
            />
            {!can.write ? (
              <p className="mt-2 text-xs text-fg-muted">Viewers can read the script; operators and admins can change it.</p>
            ) : null}
          </>
        )}
      </div>
    </Card>
  );
}
