"use client";

// Monaco, served by the app itself from /monaco/vs (scripts/copy-monaco.mjs),
// never from a CDN: the editor works with no internet. Follows the app theme.
// Uncontrolled on purpose: feeding every keystroke back through React state as
// `value` races with fast typing and drops characters. To replace the content
// (discard, reload), remount it with a new `key`.
import Editor, { loader } from "@monaco-editor/react";
import type { editor } from "monaco-editor";
import { useTheme } from "next-themes";
import { type RefObject, useRef } from "react";
import { PlainEditor, useMonacoStatus } from "./editor-fallback";
import { Loading } from "./ui/states";

loader.config({ paths: { vs: "/monaco/vs" } });

export function CodeEditor({
  defaultValue,
  onChange,
  language,
  height = 360,
  readOnly = false,
  label,
  editorRef,
  onSave,
}: {
  defaultValue: string;
  onChange?: (value: string) => void;
  language: "shell" | "markdown" | "yaml" | "json" | "plaintext";
  height?: number | string;
  readOnly?: boolean;
  /** The editor's accessible name. */
  label: string;
  /** Set to the Monaco instance once mounted: read the text from it to save. */
  editorRef?: RefObject<editor.IStandaloneCodeEditor | null>;
  /** Ctrl/Cmd+S inside the editor. */
  onSave?: () => void;
}) {
  const { resolvedTheme } = useTheme();
  const status = useMonacoStatus();
  const saveRef = useRef(onSave);
  saveRef.current = onSave;
  if (status !== "ready")
    return (
      <div className="overflow-hidden rounded-md border border-border" data-testid="code-editor" style={{ height }}>
        {status === "loading" ? (
          <Loading label="Loading the editor…" />
        ) : (
          <PlainEditor
            defaultValue={defaultValue}
            readOnly={readOnly}
            label={label}
            onChange={onChange}
            onSave={() => saveRef.current?.()}
            onReady={(instance) => {
              if (editorRef) editorRef.current = instance;
            }}
          />
        )}
      </div>
    );
  return (
    <div className="overflow-hidden rounded-md border border-border" data-testid="code-editor">
      <Editor
        defaultValue={defaultValue}
        language={language}
        height={height}
        theme={resolvedTheme === "dark" ? "vs-dark" : "vs"}
        loading={<Loading label="Loading the editor…" />}
        onChange={(next) => onChange?.(next ?? "")}
        onMount={(instance, monaco) => {
          if (editorRef) editorRef.current = instance;
          instance.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS, () => saveRef.current?.());
        }}
        options={{
          readOnly,
          ariaLabel: label,
          minimap: { enabled: false },
          fontSize: 13,
          scrollBeyondLastLine: false,
          wordWrap: "on",
          tabSize: 2,
          automaticLayout: true,
          renderLineHighlight: "line",
          stickyScroll: { enabled: false },
          padding: { top: 8 },
        }}
      />
    </div>
  );
}
