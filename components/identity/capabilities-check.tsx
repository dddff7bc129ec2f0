"use client";

// capabilities.yaml is checked as the operator types (the same parser the app and
// the worker use, lib/contracts/capabilities.ts): problems are marked in the editor
// at their line and listed under it, and the file cannot be saved until they are fixed.
// A file in the shape agents had before the schema says so, lists what its upgrade
// changes (the cage workers enforce for it meanwhile), and offers that upgrade.
import { AlertTriangle } from "lucide-react";
import type { editor } from "monaco-editor";
import { useCallback, useEffect, useMemo, useRef } from "react";
import { Button } from "@/components/ui/button";
import { type CapabilitiesIssue, type CapabilitiesUpgrade, parseCapabilities, upgradeCapabilities } from "@/lib/contracts/capabilities";

type Monaco = typeof import("monaco-editor");
const OWNER = "capabilities";

/** `text` is null when the open file is not capabilities.yaml. */
export function useCapabilitiesCheck(text: string | null) {
  const issues = useMemo<CapabilitiesIssue[]>(() => {
    if (text === null) return [];
    const parsed = parseCapabilities(text);
    return parsed.ok ? [] : parsed.issues;
  }, [text]);
  const upgrade = useMemo<CapabilitiesUpgrade | null>(
    () => (text === null || issues.length === 0 ? null : upgradeCapabilities(text)),
    [text, issues],
  );
  const refs = useRef<{ editor: editor.IStandaloneCodeEditor; monaco: Monaco } | null>(null);
  const onMount = useCallback((instance: editor.IStandaloneCodeEditor, monaco: Monaco) => {
    refs.current = { editor: instance, monaco };
  }, []);
  useEffect(() => {
    const model = refs.current?.editor.getModel();
    if (!model || !refs.current) return;
    refs.current.monaco.editor.setModelMarkers(
      model,
      OWNER,
      issues.map((issue) => ({
        severity: refs.current!.monaco.MarkerSeverity.Error,
        message: issue.path ? `${issue.path}: ${issue.message}` : issue.message,
        startLineNumber: issue.line,
        startColumn: issue.column,
        endLineNumber: issue.line,
        endColumn: model.getLineMaxColumn(Math.min(issue.line, model.getLineCount())),
      })),
    );
  }, [issues]);
  return { issues, upgrade, onMount };
}

export function CapabilitiesIssues({
  issues,
  upgrade = null,
  onUpgrade,
}: {
  issues: CapabilitiesIssue[];
  upgrade?: CapabilitiesUpgrade | null;
  /** Puts the upgraded text in the editor (unsaved); absent where the viewer cannot edit. */
  onUpgrade?: (text: string) => void;
}) {
  if (issues.length === 0) return null;
  return (
    <div className="border-t border-danger/30 bg-danger/10 px-3 py-2 text-sm" role="alert" data-testid="capabilities-issues">
      <p className="flex items-center gap-1.5 font-medium text-danger">
        <AlertTriangle className="size-4" aria-hidden />
        {upgrade
          ? "capabilities.yaml cannot be saved as it is; workers enforce its upgrade (below) meanwhile"
          : "capabilities.yaml cannot be saved: the worker would refuse to run the agent"}
      </p>
      <ul className="mt-1 space-y-0.5 font-mono text-xs">
        {issues.map((issue) => (
          <li key={`${issue.line}:${issue.column}:${issue.message}`}>
            line {issue.line}: {issue.path ? `${issue.path}: ` : ""}
            {issue.message}
          </li>
        ))}
      </ul>
      {upgrade ? (
        <div className="mt-2 border-t border-danger/20 pt-2" data-testid="capabilities-upgrade">
          <p className="font-medium">This is the older capabilities.yaml shape. The same cage in the current shape differs in:</p>
          <ul className="mt-1 space-y-0.5 font-mono text-xs">
            {upgrade.notes.map((note) => (
              <li key={note}>{note}</li>
            ))}
          </ul>
          {onUpgrade ? (
            <Button size="sm" className="mt-2" onClick={() => onUpgrade(upgrade.text)} data-testid="capabilities-use-upgrade">
              Use the upgraded file
            </Button>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
