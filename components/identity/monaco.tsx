"use client";

// Monaco, served by the app itself (public/monaco, copied at install), never a CDN.
// Editors are uncontrolled: Monaco owns the text, and callers read it from the
// editor instance (onMount) when they save or diff. Feeding each keystroke back as
// `value` races with fast typing and loses characters.
import { DiffEditor, Editor, loader, type OnMount } from "@monaco-editor/react";
import type { editor } from "monaco-editor";
import { useTheme } from "next-themes";
import { type ComponentProps, useEffect, useRef, useState } from "react";
import { EditorLoadError, PlainEditor, textareaEditor, useMonacoStatus } from "@/components/editor-fallback";
import { Loading } from "@/components/ui/states";
import { DiffToolbar, SIDE_BY_SIDE_MIN_WIDTH, useDiffView, useWidth } from "./diff-toolbar";

loader.config({ paths: { vs: "/monaco/vs" } });

export function useMonacoTheme(): string {
  const { resolvedTheme } = useTheme();
  return resolvedTheme === "dark" ? "vs-dark" : "light";
}

export const EDITOR_OPTIONS = {
  minimap: { enabled: false },
  wordWrap: "on" as const,
  scrollBeyondLastLine: false,
  fontSize: 13,
  lineNumbersMinChars: 3,
  automaticLayout: true,
  renderWhitespace: "selection" as const,
  // The sticky heading overlay hid the first visible lines of Markdown files.
  stickyScroll: { enabled: false },
  padding: { top: 8 },
};

type EditorProps = Omit<ComponentProps<typeof Editor>, "value"> & {
  /** Ctrl/Cmd+S inside the editor. */
  onSave?: () => void;
};

export function CodeEditor({ onSave, onMount, ...props }: EditorProps) {
  const theme = useMonacoTheme();
  const status = useMonacoStatus();
  const saveRef = useRef(onSave);
  saveRef.current = onSave;
  if (status === "loading") return <Loading label="Loading editor…" />;
  if (status === "failed")
    return (
      <PlainEditor
        defaultValue={props.defaultValue ?? ""}
        readOnly={Boolean(props.options?.readOnly)}
        label={props.options?.ariaLabel ?? "Editor"}
        onChange={(value) => props.onChange?.(value, undefined as never)}
        onSave={() => saveRef.current?.()}
        // No Monaco to hand over: callers that need it (markers) check for a model first.
        onReady={(instance) => onMount?.(instance, undefined as never)}
      />
    );
  const mount: OnMount = (instance, monaco) => {
    instance.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS, () => saveRef.current?.());
    onMount?.(instance, monaco);
  };
  return (
    <Editor
      theme={theme}
      loading={<Loading label="Loading editor…" />}
      {...props}
      onMount={mount}
      options={{ ...EDITOR_OPTIONS, ...props.options }}
    />
  );
}

/** A read-only view of a text that may change (previews): here `value` is fine. */
export function CodeViewer(props: ComponentProps<typeof Editor>) {
  const theme = useMonacoTheme();
  const status = useMonacoStatus();
  if (status === "loading") return <Loading label="Loading editor…" />;
  if (status === "failed") return <PlainText text={props.value ?? props.defaultValue ?? ""} />;
  return (
    <Editor
      theme={theme}
      loading={<Loading label="Loading editor…" />}
      {...props}
      options={{ ...EDITOR_OPTIONS, readOnly: true, ...props.options }}
    />
  );
}

function PlainText({ text, label }: { text: string; label?: string }) {
  return (
    <div className="flex h-full min-h-0 flex-col">
      {label ? <div className="border-b border-border px-3 py-1 text-xs text-fg-muted">{label}</div> : null}
      <pre className="min-h-0 flex-1 overflow-auto bg-panel p-3 font-mono text-[13px] leading-5 whitespace-pre-wrap [overflow-wrap:anywhere]">
        {text}
      </pre>
    </div>
  );
}

type CodeDiffProps = ComponentProps<typeof DiffEditor> & {
  onSave?: () => void;
  /** A bar above the diff: a summary (+N, -M lines), side by side or inline, previous and next change. */
  toolbar?: boolean;
};

export function CodeDiff({ onSave, onMount, toolbar = false, ...props }: CodeDiffProps) {
  const theme = useMonacoTheme();
  const status = useMonacoStatus();
  const saveRef = useRef(onSave);
  saveRef.current = onSave;
  const original = useRef<editor.IStandaloneCodeEditor | null>(null);
  const [mounted, setMounted] = useState<editor.IStandaloneDiffEditor | null>(null);
  const [view, setView] = useDiffView();
  const [frame, setFrame] = useState<HTMLDivElement | null>(null);
  const width = useWidth(frame);
  // With the bar, the reviewer's pick decides; "auto" is Monaco's own rule (inline when narrow).
  const sideBySide = view === "auto" ? width >= SIDE_BY_SIDE_MIN_WIDTH : view === "side-by-side";
  useEffect(() => {
    // Monaco turns wrapping off on the hidden old side in the inline view, and does not turn it back
    // on when the view goes side by side again: its lines ran past the column's edge.
    if (toolbar && sideBySide) mounted?.getOriginalEditor().updateOptions({ wordWrapOverride2: "inherit" });
  }, [toolbar, sideBySide, mounted]);
  if (status === "loading") return <Loading label="Loading diff…" />;
  if (status === "failed") {
    const originalText = props.original ?? "";
    original.current ??= textareaEditor(() => null);
    return (
      <div className="flex h-full min-h-0 flex-col">
        <EditorLoadError />
        <div className="grid min-h-0 flex-1 grid-rows-2 divide-y divide-border">
          <PlainText text={originalText} label="Before" />
          <div className="flex min-h-0 flex-col">
            <div className="border-b border-border px-3 py-1 text-xs text-fg-muted">After</div>
            <PlainEditor
              className="min-h-0 flex-1"
              showError={false}
              defaultValue={props.modified ?? ""}
              readOnly={Boolean(props.options?.readOnly)}
              label="After"
              onSave={() => saveRef.current?.()}
              onReady={(modified) =>
                onMount?.(
                  {
                    getModifiedEditor: () => modified,
                    getOriginalEditor: () => ({ ...original.current, getValue: () => originalText }),
                  } as unknown as editor.IStandaloneDiffEditor,
                  undefined as never,
                )
              }
            />
          </div>
        </div>
      </div>
    );
  }
  const viewOptions = toolbar ? { renderSideBySide: sideBySide, useInlineViewWhenSpaceIsLimited: false } : {};
  const diffEditor = (
    <DiffEditor
      theme={theme}
      loading={<Loading label="Loading diff…" />}
      // Disposing the models before the widget resets them throws "TextModel got
      // disposed before DiffEditorWidget model got reset" on close.
      keepCurrentOriginalModel
      keepCurrentModifiedModel
      {...props}
      onMount={(diff, monaco) => {
        diff.getModifiedEditor().addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS, () => saveRef.current?.());
        setMounted(diff);
        onMount?.(diff, monaco);
      }}
      options={{
        ...EDITOR_OPTIONS,
        renderSideBySide: true,
        useInlineViewWhenSpaceIsLimited: true,
        renderSideBySideInlineBreakpoint: SIDE_BY_SIDE_MIN_WIDTH,
        // Long unchanged stretches fold away (a click opens them), so the change is in view at once.
        hideUnchangedRegions: { enabled: true, contextLineCount: 3, minimumLineCount: 5, revealLineCount: 20 },
        ...viewOptions,
        ...props.options,
      }}
    />
  );
  if (!toolbar) return diffEditor;
  return (
    <div className="flex h-full min-h-0 flex-col">
      <DiffToolbar diff={mounted} sideBySide={sideBySide} onView={setView} />
      <div ref={setFrame} className="min-h-0 flex-1">
        {diffEditor}
      </div>
    </div>
  );
}
