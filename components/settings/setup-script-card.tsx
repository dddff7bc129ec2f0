"use client";

// The global setup script (scope global, key SETUP_SCRIPT): runs first in every
// agent's workspace, before the agent's own script.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { editor } from "monaco-editor";
import { useRef, useState } from "react";
import { toast } from "sonner";
import { api, describeError } from "@/lib/api-client";
import { type ConfigEntryDto, GLOBAL_SETUP_SCRIPT_KEY } from "@/lib/contracts/config";
import { CodeEditor } from "../code-editor";
import { RelativeTime } from "../relative-time";
import { useCan } from "../session-user";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardHeader } from "../ui/card";
import { ErrorState, Loading } from "../ui/states";
import { useUnsavedChangesGuard } from "../unsaved-guard";

const PATH = `/api/v1/config?scope=global&key=${GLOBAL_SETUP_SCRIPT_KEY}`;

export function SetupScriptCard() {
  const can = useCan();
  const queryClient = useQueryClient();
  const saved = useQuery({
    queryKey: ["config", "global", GLOBAL_SETUP_SCRIPT_KEY],
    queryFn: () => api<{ entries: ConfigEntryDto[] }>(PATH),
  });
  const entry = saved.data?.entries[0];
  const savedValue = entry?.value ?? "";
  const [draft, setDraft] = useState<string | null>(null);
  const [editorKey, setEditorKey] = useState(0);
  const editorRef = useRef<editor.IStandaloneCodeEditor | null>(null);
  const dirty = draft !== null && draft !== savedValue;

  // Leaving the page with unsaved edits asks first.
  useUnsavedChangesGuard(dirty, "The global setup script has unsaved changes. Leave this page and lose them?");

  const save = useMutation({
    mutationFn: (script: string) =>
      api<{ entry: ConfigEntryDto }>("/api/v1/config", {
        method: "PUT",
        body: { scope: "global", key: GLOBAL_SETUP_SCRIPT_KEY, value: script },
      }),
    onSuccess: ({ entry: updated }) => {
      queryClient.setQueryData(["config", "global", GLOBAL_SETUP_SCRIPT_KEY], { entries: [updated] });
      // Anything typed while the save was in flight stays a draft.
      const now = editorRef.current?.getValue();
      setDraft(now !== undefined && now !== updated.value ? now : null);
      toast.success("Global setup script saved");
    },
    onError: (error) => toast.error(describeError(error)),
  });

  const saveNow = () => {
    const script = editorRef.current?.getValue() ?? draft ?? savedValue;
    if (!can.write || save.isPending || script === savedValue) return;
    save.mutate(script);
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
                  setEditorKey((key) => key + 1);
                }}
              >
                Discard
              </Button>
            ) : null}
            {can.write ? (
              <Button size="sm" disabled={!dirty} busy={save.isPending} onClick={saveNow} data-testid="save-setup-script">
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
            <CodeEditor
              key={editorKey}
              label="Global setup script"
              language="shell"
              defaultValue={savedValue}
              onChange={(next) => setDraft(next)}
              editorRef={editorRef}
              onSave={saveNow}
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
