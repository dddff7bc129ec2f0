"use client";
// The worker's last run of the agent's setup script (it runs at worker start and
// whenever the composed script changes): a badge for the Agents list, and a card
// with the output for the agent's page. A failure in strict mode means the worker
// claims no tasks until the script is fixed, so it is shown loudly.
import type { AgentDto } from "@/lib/contracts/agents";
import { RelativeTime } from "../relative-time";
import { Badge } from "../ui/badge";
import { Card, CardHeader } from "../ui/card";

export function SetupStatusBadge({ setup }: { setup: AgentDto["setup"] }) {
  if (!setup) return <span className="text-fg-muted">not run yet</span>;
  return (
    <Badge tone={setup.status === "ok" ? "ok" : "danger"} className="whitespace-nowrap">
      <span data-testid="setup-status">{setup.status === "ok" ? "setup ok" : "setup failed"}</span>
    </Badge>
  );
}

export function SetupStatusCard({ agent }: { agent: AgentDto }) {
  const { setup } = agent;
  return (
    <Card>
      <CardHeader
        title={
          <span className="flex items-center gap-2">
            Setup script <SetupStatusBadge setup={setup} />
          </span>
        }
        description={
          setup ? (
            <>
              Last run <RelativeTime iso={setup.at} />
              {setup.status === "failed"
                ? ". Its worker claims no tasks until the script changes (STARTUP_SCRIPT_STRICT); fix the agent's or the global script and it runs again by itself."
                : ". It runs again whenever the global or the agent's script changes."}
            </>
          ) : (
            "The worker runs the composed setup script when it starts and reports the result here."
          )
        }
      />
      {setup?.output.trim() ? (
        <pre
          className="max-h-72 overflow-auto whitespace-pre-wrap break-words px-4 py-3 font-mono text-xs text-fg-muted"
          data-testid="setup-output"
        >
          {setup.output.trim()}
        </pre>
      ) : setup ? (
        <p className="px-4 py-3 text-sm text-fg-muted">No output.</p>
      ) : null}
    </Card>
  );
}
