"use client";

// One agent-authored tool: source of the selected version (read-only), the version
// list with who, why and the review state, a diff against the version before, the
// test the worker ran, and the operator's actions.
import { GitCompare, Power, Trash2 } from "lucide-react";
import { useState } from "react";
import type { AgentToolDetailDto, ToolVersionDto } from "@/lib/contracts/tools";
import { timeAgo } from "../identity/format";
import { CodeDiff, CodeViewer } from "../identity/monaco";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardHeader } from "../ui/card";
import { cn } from "../ui/cn";
import { ConfirmDialog, Dialog } from "../ui/dialog";

export type ToolChangeRequest = { path: string; method: string; body?: unknown; done: string };

const STATUS_TONE = { applied: "ok", pending: "accent", rejected: "danger" } as const;

function Json({ label, value }: { label: string; value: unknown }) {
  return (
    <div className="min-w-0">
      <p className="text-xs font-medium text-fg-muted">{label}</p>
      <pre
        className="mt-1 max-h-48 overflow-auto rounded-md border border-border bg-muted/40 p-2 font-mono text-xs"
        data-testid={`tool-${label.toLowerCase().replace(/\s+/g, "-")}`}
      >
        {JSON.stringify(value, null, 2)}
      </pre>
    </div>
  );
}

function VersionRow({
  version,
  active,
  onSelect,
  onCompare,
  canCompare,
}: {
  version: ToolVersionDto;
  active: boolean;
  onSelect: () => void;
  onCompare: () => void;
  canCompare: boolean;
}) {
  return (
    <li
      className={cn("flex flex-wrap items-center gap-2 px-4 py-2 text-sm", active && "bg-muted")}
      data-testid={`tool-version-${version.version}`}
    >
      <button type="button" onClick={onSelect} className="font-medium hover:underline">
        v{version.version}
      </button>
      <Badge tone={STATUS_TONE[version.status]}>{version.op === "delete" ? `delete ${version.status}` : version.status}</Badge>
      <span className="text-xs text-fg-muted">
        {version.author.label || version.author.type} · {timeAgo(version.createdAt)}
        {version.taskId ? ` · task ${version.taskId.slice(0, 8)}` : ""}
      </span>
      {version.reason ? <span className="basis-full text-xs text-fg-muted">“{version.reason}”</span> : null}
      {canCompare ? (
        <Button variant="ghost" size="sm" onClick={onCompare} data-testid={`tool-compare-${version.version}`}>
          <GitCompare className="size-4" aria-hidden /> Diff
        </Button>
      ) : null}
    </li>
  );
}

export function ToolDetail({
  tool,
  canWrite,
  busy,
  onChange,
}: {
  tool: AgentToolDetailDto;
  canWrite: boolean;
  busy: boolean;
  onChange: (request: ToolChangeRequest) => void;
}) {
  const writes = tool.versions.filter((v) => v.op === "write");
  const current = tool.versions.find((v) => v.id === tool.currentVersionId) ?? writes[0];
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const shown = tool.versions.find((v) => v.id === selectedId && v.op === "write") ?? current;
  const [compare, setCompare] = useState<{ older: ToolVersionDto; newer: ToolVersionDto } | null>(null);
  const [deleting, setDeleting] = useState(false);
  const previousWrite = (version: ToolVersionDto) => writes.find((v) => v.version < version.version);
  const pending = tool.versions.filter((v) => v.status === "pending");

  return (
    <div className="min-w-0 space-y-4" data-testid="tool-detail">
      <Card>
        <CardHeader
          title={<span className="font-mono">{tool.name}</span>}
          description={tool.description}
          actions={
            canWrite && !tool.deleted ? (
              <>
                <Button
                  size="sm"
                  variant="secondary"
                  disabled={busy}
                  data-testid="tool-toggle"
                  onClick={() =>
                    onChange({
                      path: tool.name,
                      method: "PATCH",
                      body: { enabled: !tool.enabled },
                      done: `${tool.name} ${tool.enabled ? "disabled" : "enabled"}`,
                    })
                  }
                >
                  <Power className="size-4" aria-hidden /> {tool.enabled ? "Disable" : "Enable"}
                </Button>
                <Button size="sm" variant="danger" disabled={busy} onClick={() => setDeleting(true)} data-testid="tool-delete">
                  <Trash2 className="size-4" aria-hidden /> Delete
                </Button>
              </>
            ) : null
          }
        />
        <dl className="grid grid-cols-2 gap-3 px-4 py-3 text-sm sm:grid-cols-4">
          <div>
            <dt className="text-xs text-fg-muted">State</dt>
            <dd data-testid="tool-state">{tool.deleted ? "deleted" : tool.enabled ? "enabled" : "disabled"}</dd>
          </div>
          <div>
            <dt className="text-xs text-fg-muted">Calls</dt>
            <dd data-testid="tool-calls">{tool.callCount}</dd>
          </div>
          <div>
            <dt className="text-xs text-fg-muted">Failures</dt>
            <dd>{tool.failureCount}</dd>
          </div>
          <div>
            <dt className="text-xs text-fg-muted">Last call</dt>
            <dd>{tool.lastCalledAt ? timeAgo(tool.lastCalledAt) : "never"}</dd>
          </div>
          {tool.lastError ? (
            <div className="col-span-full">
              <dt className="text-xs text-fg-muted">Last failure</dt>
              <dd className="whitespace-pre-wrap break-words font-mono text-xs text-danger">{tool.lastError}</dd>
            </div>
          ) : null}
        </dl>
      </Card>

      {pending.length && canWrite ? (
        <Card>
          <CardHeader title="Waiting for review" description="The agent's profile makes its tool changes proposals." />
          <ul className="divide-y divide-border">
            {pending.map((v) => (
              <li key={v.id} className="flex flex-wrap items-center gap-2 px-4 py-2 text-sm">
                <span>
                  v{v.version}: {v.op === "delete" ? "delete the tool" : "new source"} {v.reason ? `— “${v.reason}”` : ""}
                </span>
                <span className="ml-auto flex gap-2">
                  <Button
                    size="sm"
                    disabled={busy}
                    onClick={() =>
                      onChange({ path: `${tool.name}/versions/${v.id}/approve`, method: "POST", body: {}, done: `v${v.version} approved` })
                    }
                  >
                    Approve
                  </Button>
                  <Button
                    size="sm"
                    variant="secondary"
                    disabled={busy}
                    onClick={() =>
                      onChange({ path: `${tool.name}/versions/${v.id}/reject`, method: "POST", body: {}, done: `v${v.version} rejected` })
                    }
                  >
                    Reject
                  </Button>
                </span>
              </li>
            ))}
          </ul>
        </Card>
      ) : null}

      {shown ? (
        <Card className="overflow-hidden">
          <CardHeader
            title={`Source, v${shown.version}${shown.id === tool.currentVersionId ? " (in force)" : ""}`}
            description="Read-only. The agent changes it with tool_write."
          />
          <div data-testid="tool-source">
            <CodeViewer
              key={shown.id}
              height={320}
              language="typescript"
              value={shown.source}
              options={{ readOnly: true, ariaLabel: `${tool.name} source` }}
            />
          </div>
          <div className="grid gap-3 border-t border-border px-4 py-3 md:grid-cols-2">
            <Json label="Test input" value={shown.testInput} />
            <Json label="Test output" value={shown.testOutput} />
          </div>
        </Card>
      ) : null}

      <Card>
        <CardHeader title="Versions" description="Append-only: nothing is rewritten; a delete keeps the history." />
        <ul className="divide-y divide-border">
          {tool.versions.map((v) => {
            const before = v.op === "write" ? previousWrite(v) : undefined;
            return (
              <VersionRow
                key={v.id}
                version={v}
                active={v.id === shown?.id}
                onSelect={() => setSelectedId(v.id)}
                canCompare={Boolean(before)}
                onCompare={() => before && setCompare({ older: before, newer: v })}
              />
            );
          })}
        </ul>
      </Card>

      <Dialog
        open={compare !== null}
        onOpenChange={(open) => !open && setCompare(null)}
        title={compare ? `${tool.name}: v${compare.older.version} → v${compare.newer.version}` : ""}
        className="max-w-5xl"
      >
        {compare ? (
          <div className="h-[60vh]" data-testid="tool-diff">
            <CodeDiff
              height="100%"
              language="typescript"
              original={compare.older.source}
              modified={compare.newer.source}
              options={{ readOnly: true }}
            />
          </div>
        ) : null}
      </Dialog>
      <ConfirmDialog
        open={deleting}
        onOpenChange={setDeleting}
        title={`Delete ${tool.name}?`}
        description="The agent loses the tool at once, on every worker. Its versions stay here."
        confirmLabel="Delete tool"
        destructive
        busy={busy}
        onConfirm={() => {
          setDeleting(false);
          onChange({ path: tool.name, method: "DELETE", done: `${tool.name} deleted` });
        }}
      />
    </div>
  );
}
