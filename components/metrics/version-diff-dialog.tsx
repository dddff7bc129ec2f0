"use client";

// One identity version against its parent, in Monaco's diff editor (served from
// /monaco/vs, never a CDN).
import { DiffEditor, loader } from "@monaco-editor/react";
import { useQuery } from "@tanstack/react-query";
import { useTheme } from "next-themes";
import { Badge } from "@/components/ui/badge";
import { Dialog } from "@/components/ui/dialog";
import { ErrorState, Loading } from "@/components/ui/states";
import { api } from "@/lib/api-client";

loader.config({ paths: { vs: "/monaco/vs" } });

type VersionDto = {
  id: string;
  kind: string;
  number: number;
  source: string;
  authorType: string;
  reason: string | null;
  content: string;
  createdAt: string;
};
type VersionWithParent = { agentName: string; version: VersionDto; parent: VersionDto | null };

export function VersionDiffDialog({ versionId, onClose }: { versionId: string | null; onClose: () => void }) {
  const { resolvedTheme } = useTheme();
  const query = useQuery({
    queryKey: ["metrics", "version", versionId],
    queryFn: () => api<VersionWithParent>(`/api/v1/metrics/identity/versions/${versionId}`),
    enabled: Boolean(versionId),
  });
  const data = query.data;
  return (
    <Dialog
      open={Boolean(versionId)}
      onOpenChange={(open) => (open ? null : onClose())}
      title={data ? `${data.agentName} · ${data.version.kind} v${data.version.number}` : "Identity version"}
      description={
        data ? (
          <span className="flex flex-wrap items-center gap-2">
            <Badge tone="accent">{data.version.source.replace(/_/g, " ")}</Badge>
            <span>
              by {data.version.authorType}, {new Date(data.version.createdAt).toLocaleString()}
              {data.version.reason ? ` — ${data.version.reason}` : ""}
            </span>
          </span>
        ) : undefined
      }
      className="max-w-5xl!"
    >
      {query.isPending ? (
        <Loading />
      ) : query.error ? (
        <ErrorState error={query.error} />
      ) : data ? (
        <div data-testid="version-diff">
          <p className="mb-2 text-xs text-fg-muted">
            {data.parent
              ? `Left: v${data.parent.number} (parent) · Right: v${data.version.number}`
              : "The first version of this file (nothing before it)."}
          </p>
          <div className="h-[60vh] overflow-hidden rounded-md border border-border">
            <DiffEditor
              original={data.parent?.content ?? ""}
              modified={data.version.content}
              keepCurrentOriginalModel
              keepCurrentModifiedModel
              language="markdown"
              theme={resolvedTheme === "dark" ? "vs-dark" : "light"}
              options={{ readOnly: true, renderSideBySide: true, minimap: { enabled: false }, wordWrap: "on", scrollBeyondLastLine: false }}
              loading={<Loading label="Loading the diff editor…" />}
            />
          </div>
        </div>
      ) : null}
    </Dialog>
  );
}
