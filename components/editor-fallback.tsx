"use client";

// When Monaco cannot be loaded (its files missing or blocked), every editor falls
// back to a plain textarea that still edits and saves: callers read the text from
// the editor instance they are given on mount, so the textarea is handed to them
// behind the few methods they use (getValue, setValue, onDidChangeModelContent).
import { loader } from "@monaco-editor/react";
import type { editor } from "monaco-editor";
import { type ReactNode, useEffect, useRef, useState } from "react";
import { cn } from "./ui/cn";

export type MonacoStatus = "loading" | "ready" | "failed";

let settled: MonacoStatus = "loading";
let loading: Promise<MonacoStatus> | null = null;

function loadMonaco(): Promise<MonacoStatus> {
  loading ??= loader.init().then(
    () => (settled = "ready"),
    () => (settled = "failed"),
  );
  return loading;
}

/** Whether Monaco loaded: editors render only once it did, and fall back when it failed. */
export function useMonacoStatus(): MonacoStatus {
  const [status, setStatus] = useState<MonacoStatus>(settled);
  useEffect(() => {
    if (status !== "loading") return;
    let live = true;
    loadMonaco().then((next) => live && setStatus(next));
    return () => {
      live = false;
    };
  }, [status]);
  return status;
}

export function EditorLoadError() {
  return (
    <div className="border-b border-warn/40 bg-warn/10 px-3 py-1.5 text-xs text-warn" role="alert" data-testid="editor-load-error">
      The code editor could not be loaded; a plain text box is shown instead (changes still save).
    </div>
  );
}

/** The subset of Monaco's editor the app's callers use, over a textarea. */
export function textareaEditor(box: () => HTMLTextAreaElement | null): editor.IStandaloneCodeEditor {
  const listeners = new Set<() => void>();
  const shim = {
    getValue: () => box()?.value ?? "",
    setValue: (value: string) => {
      const element = box();
      if (!element) return;
      element.value = value;
      for (const listener of listeners) listener();
    },
    getModel: () => null,
    focus: () => box()?.focus(),
    addCommand: () => null,
    onDidChangeModelContent: (listener: () => void) => {
      listeners.add(listener);
      return { dispose: () => listeners.delete(listener) };
    },
    /** Called by the textarea on every input. */
    _changed: () => {
      for (const listener of listeners) listener();
    },
  };
  return shim as unknown as editor.IStandaloneCodeEditor;
}

export function PlainEditor({
  defaultValue,
  readOnly,
  label,
  onChange,
  onSave,
  onReady,
  className,
  showError = true,
}: {
  defaultValue: string;
  readOnly?: boolean;
  label: string;
  onChange?: (value: string) => void;
  onSave?: () => void;
  /** Given the textarea behind Monaco's interface, once. */
  onReady?: (instance: editor.IStandaloneCodeEditor) => void;
  className?: string;
  showError?: boolean;
}): ReactNode {
  const box = useRef<HTMLTextAreaElement>(null);
  const [instance] = useState(() => textareaEditor(() => box.current));
  const ready = useRef(onReady);
  ready.current = onReady;
  useEffect(() => {
    ready.current?.(instance);
  }, [instance]);
  return (
    <div className={cn("flex h-full min-h-40 flex-col", className)}>
      {showError ? <EditorLoadError /> : null}
      <textarea
        ref={box}
        defaultValue={defaultValue}
        readOnly={readOnly}
        aria-label={label}
        spellCheck={false}
        className="min-h-40 w-full flex-1 resize-y bg-panel p-3 font-mono text-[13px] leading-5 text-fg focus:outline-none"
        data-testid="plain-editor"
        onChange={(event) => {
          onChange?.(event.target.value);
          (instance as unknown as { _changed: () => void })._changed();
        }}
        onKeyDown={(event) => {
          if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s") {
            event.preventDefault();
            onSave?.();
          }
        }}
      />
    </div>
  );
}
