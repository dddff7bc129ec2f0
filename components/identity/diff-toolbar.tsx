"use client";

// The bar above a reviewed diff (components/identity/monaco.tsx, CodeDiff with
// `toolbar`): how much changed, side by side or inline, and a step from change to
// change. A rewrite of most of a file is one long change; inline, Monaco draws all
// of its removed lines first, and "next change" goes straight to the added text.
import { ChevronDown, ChevronUp } from "lucide-react";
import type { editor } from "monaco-editor";
import { useEffect, useState } from "react";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";

/** Below this width "auto" shows the diff inline: two columns on a phone leave a word or two per line. */
export const SIDE_BY_SIDE_MIN_WIDTH = 700;

export type DiffView = "auto" | "side-by-side" | "inline";
const VIEW_KEY = "swarmdeck:diff-view";

/** The reviewer's pick of view, kept in this browser; "auto" until they pick. */
export function useDiffView(): [DiffView, (view: DiffView) => void] {
  const [view, setView] = useState<DiffView>("auto");
  useEffect(() => {
    const kept = window.localStorage.getItem(VIEW_KEY);
    if (kept === "side-by-side" || kept === "inline") setView(kept);
  }, []);
  return [
    view,
    (next) => {
      setView(next);
      window.localStorage.setItem(VIEW_KEY, next);
    },
  ];
}

/** The element's width, following resizes (0 until measured). */
export function useWidth(element: HTMLElement | null): number {
  const [width, setWidth] = useState(0);
  useEffect(() => {
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => setWidth(entry?.contentRect.width ?? 0));
    observer.observe(element);
    return () => observer.disconnect();
  }, [element]);
  return width;
}

type Summary = { changes: editor.ILineChange[]; added: number; removed: number };

const count = (start: number, end: number) => (end === 0 ? 0 : end - start + 1);

function summarise(changes: editor.ILineChange[]): Summary {
  let added = 0;
  let removed = 0;
  for (const change of changes) {
    added += count(change.modifiedStartLineNumber, change.modifiedEndLineNumber);
    removed += count(change.originalStartLineNumber, change.originalEndLineNumber);
  }
  return { changes, added, removed };
}

/** The diff's line changes, recomputed whenever Monaco finishes a diff (after each edit too); null until the first. */
function useLineChanges(diff: editor.IStandaloneDiffEditor | null): Summary | null {
  const [summary, setSummary] = useState<Summary | null>(null);
  useEffect(() => {
    if (!diff) return;
    const update = () => {
      const changes = diff.getLineChanges();
      if (changes) setSummary(summarise(changes));
    };
    update();
    const listener = diff.onDidUpdateDiff(update);
    return () => listener.dispose();
  }, [diff]);
  return summary;
}

const lines = (n: number) => `${n} ${n === 1 ? "line" : "lines"}`;

export function DiffToolbar({
  diff,
  sideBySide,
  onView,
}: {
  diff: editor.IStandaloneDiffEditor | null;
  sideBySide: boolean;
  onView: (view: DiffView) => void;
}) {
  const summary = useLineChanges(diff);
  const [at, setAt] = useState<number | null>(null);
  const total = summary?.changes.length ?? 0;
  // An edit recomputes the changes: the step starts again from the top.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset on each new set of changes
  useEffect(() => setAt(null), [summary]);

  const step = (by: 1 | -1) => {
    if (!diff || !summary || total === 0) return;
    const next = at === null ? (by === 1 ? 0 : total - 1) : (at + by + total) % total;
    setAt(next);
    const change = summary.changes[next];
    if (!change) return;
    // The first added line (for a removal, the line it was removed after) at the top: inline, the
    // removed lines stand just above it, side by side they are level with it.
    const line = Math.max(1, change.modifiedStartLineNumber);
    const modified = diff.getModifiedEditor();
    modified.setPosition({ lineNumber: line, column: 1 });
    modified.revealLineNearTop(line);
  };

  return (
    <div
      className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1.5 border-b border-border bg-muted/50 px-2 py-1.5"
      data-testid="diff-toolbar"
    >
      <p className="text-xs tabular-nums" role="status" data-testid="diff-summary">
        {!summary ? (
          <span className="text-fg-muted">Comparing…</span>
        ) : total === 0 ? (
          <span className="text-fg-muted">No changes</span>
        ) : (
          <>
            <span className="font-medium text-ok">+{lines(summary.added)}</span>,{" "}
            <span className="font-medium text-danger">−{lines(summary.removed)}</span>
            <span className="text-fg-muted">
              {" "}
              in {total} {total === 1 ? "change" : "changes"}
            </span>
          </>
        )}
      </p>
      <div className="flex items-center gap-2">
        <fieldset className="flex rounded-md border border-border" aria-label="Diff view">
          {(
            [
              ["side-by-side", "Side by side", true],
              ["inline", "Inline", false],
            ] as const
          ).map(([view, label, isSideBySide]) => (
            <button
              key={view}
              type="button"
              aria-pressed={sideBySide === isSideBySide}
              onClick={() => onView(view)}
              className={cn(
                "h-7 px-2.5 text-xs first:rounded-l-md last:rounded-r-md focus-visible:outline-2 focus-visible:outline-accent",
                sideBySide === isSideBySide ? "bg-accent text-accent-fg" : "bg-panel text-fg hover:bg-muted",
              )}
            >
              {label}
            </button>
          ))}
        </fieldset>
        <span className="min-w-10 text-center text-xs text-fg-muted tabular-nums" data-testid="diff-position">
          {at === null || total === 0 ? "" : `${at + 1} of ${total}`}
        </span>
        <Button
          variant="secondary"
          size="sm"
          className="size-7 px-0"
          aria-label="Previous change"
          title="Previous change"
          disabled={total === 0}
          onClick={() => step(-1)}
        >
          <ChevronUp className="size-4" aria-hidden />
        </Button>
        <Button
          variant="secondary"
          size="sm"
          className="size-7 px-0"
          aria-label="Next change"
          title="Next change"
          disabled={total === 0}
          onClick={() => step(1)}
        >
          <ChevronDown className="size-4" aria-hidden />
        </Button>
      </div>
    </div>
  );
}
