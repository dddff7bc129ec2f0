"use client";

// Monaco, served by the app itself (public/monaco, copied at install), never a CDN.
import { DiffEditor, Editor, loader } from "@monaco-editor/react";
import { useTheme } from "next-themes";
import type { ComponentProps } from "react";
import { Loading } from "@/components/ui/states";

loader.config({ paths: { vs: "/monaco/vs" } });

export function useMonacoTheme(): string {
  const { resolvedTheme } = useTheme();
  return resolvedTheme === "dark" ? "vs-dark" : "light";
}

const OPTIONS = {
  minimap: { enabled: false },
  wordWrap: "on" as const,
  scrollBeyondLastLine: false,
  fontSize: 13,
  lineNumbersMinChars: 3,
  automaticLayout: true,
  renderWhitespace: "selection" as const,
};

export function CodeEditor(props: ComponentProps<typeof Editor>) {
  const theme = useMonacoTheme();
  return <Editor theme={theme} loading={<Loading label="Loading editor…" />} {...props} options={{ ...OPTIONS, ...props.options }} />;
}

export function CodeDiff(props: ComponentProps<typeof DiffEditor>) {
  const theme = useMonacoTheme();
  return (
    <DiffEditor
      theme={theme}
      loading={<Loading label="Loading diff…" />}
      {...props}
      options={{ ...OPTIONS, renderSideBySide: true, useInlineViewWhenSpaceIsLimited: false, ...props.options }}
    />
  );
}
