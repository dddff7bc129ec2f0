"use client";

// Monaco, served by the app itself (public/monaco, copied at install), never a CDN.
// Editors are uncontrolled: Monaco owns the text, and callers read it from the
// editor instance (onMount) when they save or diff. Feeding each keystroke back as
// `value` races with fast typing and loses characters.
import { DiffEditor, Editor, loader, type OnMount } from "@monaco-editor/react";
import { useTheme } from "next-themes";
import { type ComponentProps, useRef } from "react";
import { Loading } from "@/components/ui/states";

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
  const saveRef = useRef(onSave);
  saveRef.current = onSave;
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
  return (
    <Editor
      theme={theme}
      loading={<Loading label="Loading editor…" />}
      {...props}
      options={{ ...EDITOR_OPTIONS, readOnly: true, ...props.options }}
    />
  );
}

export function CodeDiff({ onSave, onMount, ...props }: ComponentProps<typeof DiffEditor> & { onSave?: () => void }) {
  const theme = useMonacoTheme();
  const saveRef = useRef(onSave);
  saveRef.current = onSave;
  return (
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
        onMount?.(diff, monaco);
      }}
      options={{ ...EDITOR_OPTIONS, renderSideBySide: true, useInlineViewWhenSpaceIsLimited: false, ...props.options }}
    />
  );
}
