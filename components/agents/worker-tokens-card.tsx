"use client";

// The agent's worker tokens (admin only): create one (shown once), see when each
// was last used, revoke with a confirmation.
import { useQuery } from "@tanstack/react-query";
import { KeyRound, Plus } from "lucide-react";
import type { FormEvent } from "react";
import { api } from "@/lib/api-client";
import type { AgentDto } from "@/lib/contracts/agents";
import type { CreatedTokenDto, TokenDto } from "@/lib/contracts/tokens";
import { RelativeTime } from "../relative-time";
import { useCan } from "../session-user";
import { TokenRevealDialog } from "../token-reveal-dialog";
import { RevokeTokenDialog, useTokenAdmin } from "../tokens/use-token-admin";
import { Badge } from "../ui/badge";
import { Button } from "../ui/button";
import { Card, CardHeader } from "../ui/card";
import { Dialog, FormActions } from "../ui/dialog";
import { Field, Input } from "../ui/input";
import { EmptyState, ErrorState, Loading } from "../ui/states";

export function WorkerTokensCard({ agent }: { agent: AgentDto }) {
  const can = useCan();
  if (!can.admin) {
    return (
      <Card>
        <CardHeader title="Worker tokens" description="A worker runner connects with one of the agent's tokens." />
        <p className="px-4 py-4 text-sm text-fg-muted">Only an admin can create or revoke worker tokens.</p>
      </Card>
    );
  }
  return <AdminWorkerTokens agent={agent} />;
}

function AdminWorkerTokens({ agent }: { agent: AgentDto }) {
  const key = ["agent", agent.id, "tokens"];
  const tokens = useQuery({ queryKey: key, queryFn: () => api<{ tokens: TokenDto[] }>(`/api/v1/agents/${agent.id}/tokens`) });
  const admin = useTokenAdmin({
    queryKey: key,
    create: (name: string) => api<CreatedTokenDto>(`/api/v1/agents/${agent.id}/tokens`, { method: "POST", body: { name } }),
    revoke: (token: TokenDto) => api(`/api/v1/agents/${agent.id}/tokens/${token.id}`, { method: "DELETE" }),
  });

  function onCreate(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    admin.create.mutate(String(new FormData(event.currentTarget).get("name") ?? "").trim());
  }

  const active = tokens.data?.tokens.filter((token) => !token.revokedAt) ?? [];
  const revoked = tokens.data?.tokens.filter((token) => token.revokedAt) ?? [];

  return (
    <Card data-testid="worker-tokens">
      <CardHeader
        title="Worker tokens"
        description="A worker runner connects with one of these; it acts only as this agent."
        actions={
          <Button size="sm" onClick={() => admin.setCreating(true)} data-testid="new-worker-token">
            <Plus className="size-4" aria-hidden /> New token
          </Button>
        }
      />
      {tokens.isPending ? (
        <Loading />
      ) : tokens.isError ? (
        <ErrorState error={tokens.error} />
      ) : tokens.data.tokens.length === 0 ? (
        <EmptyState title="No tokens yet">Create a token, then start a worker with it.</EmptyState>
      ) : (
        <ul className="divide-y divide-border">
          {[...active, ...revoked].map((token) => (
            <li key={token.id} className="flex items-center justify-between gap-3 px-4 py-2.5 text-sm" data-testid="worker-token-row">
              <div className="min-w-0">
                <div className="flex items-center gap-2">
                  <KeyRound className="size-3.5 text-fg-muted" aria-hidden />
                  <span className="font-medium">{token.name}</span>
                  <code className="text-xs text-fg-muted">{token.prefix}</code>
                  {token.revokedAt ? <Badge tone="danger">revoked</Badge> : null}
                </div>
                <p className="mt-0.5 text-xs text-fg-muted">
                  Created <RelativeTime iso={token.createdAt} /> · last used <RelativeTime iso={token.lastUsedAt} />
                </p>
              </div>
              {token.revokedAt ? null : (
                <Button size="sm" variant="ghost" onClick={() => admin.setRevoking(token)} data-testid="revoke-worker-token">
                  Revoke
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}

      <Dialog open={admin.creating} onOpenChange={admin.setCreating} title="New worker token" description={`For agent ${agent.name}.`}>
        <form ref={admin.problems.ref} onSubmit={onCreate} className="space-y-4" noValidate>
          <Field
            label="Token name"
            htmlFor="worker-token-name"
            hint="Where the worker runs, e.g. “docker on build-box”."
            error={admin.nameError}
          >
            <Input id="worker-token-name" name="name" required maxLength={80} autoFocus autoComplete="off" />
          </Field>
          <FormActions onCancel={() => admin.setCreating(false)} submitLabel="Create token" busy={admin.create.isPending} />
        </form>
      </Dialog>

      <TokenRevealDialog token={admin.revealed} title="Worker token created" onClose={admin.clearRevealed}>
        Start a worker with it, from a clone of Swarmdeck (worker/README.md there lists every setting; the Docker image takes the same
        variables):
        <pre className="mt-2 overflow-x-auto whitespace-pre rounded-md bg-muted p-2 font-mono text-xs">
          {[
            `SWARMDECK_URL=${typeof window === "undefined" ? "" : window.location.origin} \\`,
            "SWARMDECK_TOKEN=<this token> \\",
            "WORKSPACE_DIR=/srv/swarmdeck/workspace \\",
            "REPO_URL=<the project's git repository> \\",
            "HARNESS=claude npm run worker",
          ].join("\n")}
        </pre>
      </TokenRevealDialog>

      <RevokeTokenDialog admin={admin} consequence="A worker using this token is refused from its next request on." />
    </Card>
  );
}
