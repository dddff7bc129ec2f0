"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { GitCompare, RotateCcw } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { ConfirmDialog, Dialog } from "@/components/ui/dialog";
import { EmptyState, ErrorState, Loading } from "@/components/ui/states";
import { api, describeError } from "@/lib/api-client";
import { IDENTITY_FILE_NAMES, IDENTITY_LANGUAGES, type IdentityKind, type IdentityVersionDto, kindToSlug } from "@/lib/contracts/identity";
import { formatBytes, sourceLabel, timeAgo } from "./format";
import { CodeDiff } from "./monaco";

type VersionWithContent = IdentityVersionDto & { content: string };

export function IdentityHistory({ agentId, kind, canWrite }: { agentId: string; kind: IdentityKind; canWrite: boolean }) {
  const base = `/api/v1/agents/${agentId}/identity/${kindToSlug(kind)}`;
  const queryClient = useQueryClient();
  const versions = useQuery({
    queryKey: ["identity", agentId, kind, "versions"],
    queryFn: () => api<{ versions: IdentityVersionDto[] }>(`${base}/versions`),
  });
  const [selected, setSelected] = useState<string[]>([]);
  const [compare, setCompare] = useState<{ older: VersionWithContent; newer: VersionWithContent } | null>(null);
  const [restoring, setRestoring] = useState<IdentityVersionDto | null>(null);

  const openCompare = useMutation({
    mutationFn: async (ids: string[]) => {
      const loaded = await Promise.all(ids.map((id) => api<VersionWithContent>(`${base}/versions/${id}`)));
      loaded.sort((a, b) => a.number - b.number);
      return { older: loaded[0] as VersionWithContent, newer: loaded[1] as VersionWithContent };
    },
    onSuccess: setCompare,
    onError: (error) => toast.error(describeError(error)),
  });

  const restore = useMutation({
    mutationFn: (version: IdentityVersionDto) => api<{ number: number }>(`${base}/rollback`, { body: { versionId: version.id } }),
    onSuccess: (result, version) => {
      toast.success(`Restored version ${version.number} of ${IDENTITY_FILE_NAMES[kind]} as version ${result.number}`);
      setRestoring(null);
      setSelected([]);
      void queryClient.invalidateQueries({ queryKey: ["identity", agentId] });
    },
    onError: (error) => toast.error(describeError(error)),
  });

  const toggle = (id: string) =>
    setSelected((current) => (current.includes(id) ? current.filter((x) => x !== id) : [...current, id].slice(-2)));

  const list = versions.data?.versions ?? [];
  const currentId = list[0]?.id;

  return (
    <div className="flex h-full min-h-0 flex-col" data-testid="identity-history">
      <div className="flex items-center justify-between gap-2 border-b border-border px-3 py-2">
        <div>
          <h3 className="text-sm font-semibold">History</h3>
          <p className="text-xs text-fg-muted">Pick two versions to compare.</p>
        </div>
        <Button
          size="sm"
          variant="secondary"
          disabled={selected.length !== 2}
          busy={openCompare.isPending}
          onClick={() => openCompare.mutate(selected)}
          data-testid="compare-versions"
        >
          <GitCompare className="size-3.5" /> Compare
        </Button>
      </div>
      {versions.isPending ? (
        <Loading label="Loading history…" />
      ) : versions.isError ? (
        <ErrorState error={versions.error} />
      ) : list.length === 0 ? (
        <EmptyState title="No versions yet">
          Every save of {IDENTITY_FILE_NAMES[kind]}, by an operator or by the agent, is kept here as a version.
        </EmptyState>
      ) : (
        <ol className="min-h-0 flex-1 divide-y divide-border overflow-y-auto">
          {list.map((version) => (
            <li
              key={version.id}
              className={cn("flex gap-2 px-3 py-2 text-xs", selected.includes(version.id) && "bg-accent/5")}
              data-testid={`version-${version.number}`}
            >
              <input
                type="checkbox"
                className="mt-0.5 accent-[var(--accent)]"
                checked={selected.includes(version.id)}
                onChange={() => toggle(version.id)}
                aria-label={`Select version ${version.number}`}
                data-testid={`select-version-${version.number}`}
              />
              <div className="min-w-0 flex-1 space-y-0.5">
                <div className="flex flex-wrap items-center gap-1.5">
                  <span className="font-semibold text-fg">v{version.number}</span>
                  {version.id === currentId ? <Badge tone="accent">current</Badge> : null}
                  {version.deleted ? <Badge tone="danger">deleted</Badge> : null}
                  <Badge>{sourceLabel(version.source)}</Badge>
                  <span className="text-fg-muted" title={new Date(version.createdAt).toLocaleString()}>
                    {timeAgo(version.createdAt)}
                  </span>
                </div>
                <div className="truncate text-fg-muted">
                  by <span className="text-fg">{version.authorLabel}</span>
                  {version.deleted ? null : <> · {formatBytes(version.size)}</>}
                  {version.taskId ? <> · task {version.taskId.slice(0, 8)}</> : null}
                </div>
                {version.reason ? <div className="line-clamp-2 text-fg">“{version.reason}”</div> : null}
              </div>
              {canWrite && version.id !== currentId && !version.deleted ? (
                <Button
                  size="sm"
                  variant="ghost"
                  className="h-7 px-2"
                  onClick={() => setRestoring(version)}
                  aria-label={`Restore version ${version.number}`}
                  data-testid={`restore-version-${version.number}`}
                >
                  <RotateCcw className="size-3.5" /> Restore
                </Button>
              ) : null}
            </li>
          ))}
        </ol>
      )}

      <Dialog
        open={compare !== null}
        onOpenChange={(open) => !open && setCompare(null)}
        title={compare ? `${IDENTITY_FILE_NAMES[kind]}: version ${compare.older.number} → version ${compare.newer.number}` : ""}
        description={
          compare
            ? `Left: v${compare.older.number} by ${compare.older.authorLabel}. Right: v${compare.newer.number} by ${compare.newer.authorLabel}.`
            : undefined
        }
        className="max-w-6xl!"
      >
        {compare ? (
          <div className="h-[65vh] overflow-hidden rounded-md border border-border" data-testid="version-diff">
            <CodeDiff
              original={compare.older.content}
              modified={compare.newer.content}
              language={IDENTITY_LANGUAGES[kind]}
              options={{ readOnly: true, originalEditable: false }}
            />
          </div>
        ) : null}
      </Dialog>

      <ConfirmDialog
        open={restoring !== null}
        onOpenChange={(open) => !open && setRestoring(null)}
        title={restoring ? `Restore version ${restoring.number}?` : ""}
        description={
          restoring ? (
            <>
              {IDENTITY_FILE_NAMES[kind]} gets a new version {list[0] ? list[0].number + 1 : ""} with the content of version{" "}
              {restoring.number}. Nothing is deleted: the current version stays in the history.
            </>
          ) : null
        }
        confirmLabel="Restore"
        busy={restore.isPending}
        onConfirm={() => restoring && restore.mutate(restoring)}
      />
    </div>
  );
}
